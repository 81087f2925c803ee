# btmerge -j: JSON Lines, one object per row (numbers bare, text quoted, null for an absent value).
btmerge -j -P sample-traces/pgbench-bfq.bin.gz
