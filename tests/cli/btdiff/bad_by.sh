btdiff --by=tty sample-traces/pgbench-bfq.bin.gz sample-traces/pgbench-none.bin.gz
