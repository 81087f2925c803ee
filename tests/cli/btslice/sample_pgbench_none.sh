btslice sample-traces/pgbench-none.bin.gz
