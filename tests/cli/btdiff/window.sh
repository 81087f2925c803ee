# -w applies to every recording: the first two seconds of each.
btdiff -w 0:2 -m ios,iops,fsync_episodes,fsync_p50_us sample-traces/pgbench-bfq.bin.gz \
	sample-traces/pgbench-none.bin.gz
