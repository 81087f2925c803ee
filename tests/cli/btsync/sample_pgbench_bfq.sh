btsync sample-traces/pgbench-bfq.bin.gz
