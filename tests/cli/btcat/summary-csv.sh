# -s prints blkparse's text statistics: with -c it is a usage error, not
# silently dropped.
btcat -s -c sample-traces/nvme-readahead-2020.bin
