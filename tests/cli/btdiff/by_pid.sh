# Both pgbench recordings come from one postgres instance: its
# checkpointer (7211) and the journal thread (6862) keep their pids.
btdiff --by=pid -m fsync_episodes,fsync_p50_us sample-traces/pgbench-bfq.bin.gz \
	sample-traces/pgbench-none.bin.gz
