btdiff sample-traces/pgbench-bfq.bin.gz does-not-exist.bin
