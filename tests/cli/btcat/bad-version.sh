# --blkparse takes 1.2 or 1.3 only.
btcat --blkparse=1.1 sample-traces/nvme-readahead-2020.bin
