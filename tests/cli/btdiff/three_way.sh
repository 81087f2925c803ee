# Three recordings: ratio is the last against the first, ratio_LABEL each
# after the first against the first.
btdiff -m ios,mb_s,fsync_episodes,fsync_p50_us,fsync_p99_us,slice_source,slice_wait_p99_us \
	sample-traces/fsync-vs-readers-bfq.bin.gz sample-traces/fsync-vs-readers-none.bin.gz \
	sample-traces/pgbench-none.bin.gz
