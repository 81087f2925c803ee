# btslice -j: JSON Lines, one object per row (numbers bare, text quoted, null for an absent value).
btslice -j sample-traces/fsync-vs-readers-bfq.bin.gz
btslice -j -e -w 0:0.01 sample-traces/fsync-vs-readers-bfq.bin.gz
