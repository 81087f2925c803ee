btslice -e -p 6196 sample-traces/fsync-vs-readers-bfq.bin.gz | head -20
