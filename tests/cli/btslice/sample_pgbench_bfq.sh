btslice sample-traces/pgbench-bfq.bin.gz
