# btdiff -j: JSON Lines, one object per row, labels as keys.
btdiff -j -m ios,fsync_p99_us,slice_source sample-traces/pgbench-bfq.bin.gz sample-traces/pgbench-none.bin.gz
