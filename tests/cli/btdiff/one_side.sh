# postgres and jbd2 only in the first recording, fio only in the second:
# every group is shown, with empty cells where it is absent.
btdiff -m ios,fsync_episodes,fsync_p50_us,q2c_p50_us \
	sample-traces/pgbench-bfq.bin.gz sample-traces/fsync-vs-readers-none.bin.gz
