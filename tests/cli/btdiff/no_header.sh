btdiff -H -m fsync_p50_us sample-traces/pgbench-bfq.bin.gz sample-traces/pgbench-none.bin.gz
