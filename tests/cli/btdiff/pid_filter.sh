# -p selects what a process owns, on every side: the checkpointer 7211.
btdiff -p 7211 -m ios,fsync_episodes,fsync_p50_us sample-traces/pgbench-bfq.bin.gz \
	sample-traces/pgbench-none.bin.gz
