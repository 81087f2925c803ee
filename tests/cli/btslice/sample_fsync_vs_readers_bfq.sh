btslice sample-traces/fsync-vs-readers-bfq.bin.gz
