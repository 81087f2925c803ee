# The public NVMe trace: 963 read-ahead 4 KiB reads remapped from a
# partition, no merges, no I events, no PROCESS note.
btmerge "$SHARED/traces/nvme-readahead-2020/sample.blktrace.0"
