btdiff -m ios,fsync_p50 sample-traces/pgbench-bfq.bin.gz sample-traces/pgbench-none.bin.gz
