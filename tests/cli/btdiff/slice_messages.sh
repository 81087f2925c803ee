# Both recordings ran under BFQ and have its queue messages: slice waits
# come from the messages on both sides.  (With a none recording among
# them, every side uses the events: see sample_pgbench.)
btdiff -m slice_source,slice_wait_p50_us,slice_wait_p99_us \
	sample-traces/fsync-vs-readers-bfq.bin.gz sample-traces/pgbench-bfq.bin.gz
