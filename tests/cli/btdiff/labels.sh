# LABEL=PATH names the columns; the ratio_ columns take the labels too.
btdiff -m fsync_p50_us,fsync_p99_us cfq=sample-traces/pgbench-bfq.bin.gz \
	noop=sample-traces/pgbench-none.bin.gz again=sample-traces/pgbench-bfq.bin.gz
