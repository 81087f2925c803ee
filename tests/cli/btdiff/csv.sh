btdiff -c -m ios,fsync_p99_us,slice_source sample-traces/pgbench-bfq.bin.gz sample-traces/pgbench-none.bin.gz
