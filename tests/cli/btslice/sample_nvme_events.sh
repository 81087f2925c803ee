btslice sample-traces/nvme-readahead-2020.bin
