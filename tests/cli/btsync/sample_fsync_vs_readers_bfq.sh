btsync sample-traces/fsync-vs-readers-bfq.bin.gz
