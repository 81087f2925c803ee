btdiff sample-traces/pgbench-bfq.bin.gz tests/../sample-traces/pgbench-bfq.bin.gz
