# The none recording cut inside a record: what was read of it is still
# compared, the message names the file and offset, exit 1.
zcat sample-traces/pgbench-none.bin.gz | head -c 30000 > cut.bin
btdiff -m ios,bytes,fsync_episodes,q2c_p50_us sample-traces/pgbench-bfq.bin.gz cut.bin
