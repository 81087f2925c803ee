btslice sample-traces/fsync-vs-readers-none.bin.gz
