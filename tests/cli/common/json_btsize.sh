# btsize -j: JSON Lines, one object per row (numbers bare, text quoted, null for an absent value).
btsize -j sample-traces/pgbench-bfq.bin.gz
