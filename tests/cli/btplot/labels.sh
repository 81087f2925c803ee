# Labels as btdiff names recordings; two alike are a usage error.
btplot -k iops x=sample-traces/pgbench-bfq.bin.gz x=sample-traces/pgbench-none.bin.gz >/dev/null
echo "exit $?"
btplot -k iops group=sample-traces/pgbench-bfq.bin.gz sample-traces/pgbench-none.bin.gz >/dev/null
echo "exit $?"
btplot -k iops sample-traces/nvme-readahead-2020.bin | grep -c "nvme-readahead-2020"
