btdiff -m q2c_p99_us,ios,merge_ratio,request_bytes_mean sample-traces/pgbench-bfq.bin.gz sample-traces/pgbench-none.bin.gz
