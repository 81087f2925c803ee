# The public NVMe trace (963 read-ahead reads of one pid, no PROCESS note)
# onto a sparse file as large as its extent: every read replayed.
. tests/cli/btreplay/common.bash
replay 1269808672768 "$NVME"
