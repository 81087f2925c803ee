# btlat -j: JSON Lines, one object per row (numbers bare, text quoted, null for an absent value).
btlat --json sample-traces/pgbench-bfq.bin.gz
btlat -j -e -w 0:0.001 sample-traces/pgbench-bfq.bin.gz
