# -d of a device the recordings do not have: nothing but empty figures.
btdiff -d 8,0 -m ios,fsync_episodes sample-traces/pgbench-bfq.bin.gz \
	sample-traces/pgbench-none.bin.gz
