# -g draws bar charts, which have no CSV form: -g with -c is a usage error.
btsize -g -c sample-traces/nvme-readahead-2020.bin
