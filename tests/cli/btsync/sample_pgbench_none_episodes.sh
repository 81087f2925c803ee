btsync -e sample-traces/pgbench-none.bin.gz | head -20
