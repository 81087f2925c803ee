# btcat -j: JSON Lines, one object per row (numbers bare, text quoted, null for an absent value).
btcat -j -w 0:0.0001 sample-traces/pgbench-bfq.bin.gz
