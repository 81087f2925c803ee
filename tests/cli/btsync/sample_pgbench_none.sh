btsync sample-traces/pgbench-none.bin.gz
