btslice --from=events sample-traces/fsync-vs-readers-bfq.bin.gz
