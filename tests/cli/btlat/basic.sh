# The public NVMe trace: 963 read-ahead 4 KiB reads remapped from a
# partition, no merges, no I events, no PROCESS note.
btlat sample-traces/nvme-readahead-2020.bin
