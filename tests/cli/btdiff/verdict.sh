btdiff --verdict -m fsync_p99_us,mb_s sample-traces/fsync-vs-readers-bfq.bin.gz sample-traces/fsync-vs-readers-none.bin.gz
