: > empty.bin
btdiff -m ios,mb_s,fsync_episodes empty.bin sample-traces/pgbench-none.bin.gz
