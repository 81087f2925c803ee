btdiff sample-traces/fsync-vs-readers-bfq.bin.gz sample-traces/fsync-vs-readers-none.bin.gz
