# btsync -j: JSON Lines, one object per row (numbers bare, text quoted, null for an absent value).
btsync -j sample-traces/pgbench-bfq.bin.gz
btsync -c -j -e -w 0:0.26 sample-traces/fsync-vs-readers-bfq.bin.gz
