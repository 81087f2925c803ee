btdiff sample-traces/pgbench-bfq.bin.gz
