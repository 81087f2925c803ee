# No TRACE or "-" reads standard input (gzip too), named "stdin"; -o writes the file and
# nothing to stdout; an output that cannot be created: message, exit 1.
btplot -k iops <sample-traces/pgbench-none.bin.gz | xmllint --noout - && echo stdin ok
btplot -k iops - <sample-traces/nvme-readahead-2020.bin | grep -c '<polyline'
btplot -k depth <sample-traces/nvme-readahead-2020.bin | grep -o '>stdin<'
btplot -k iops -o out.svg sample-traces/nvme-readahead-2020.bin | wc -c
xmllint --noout out.svg && echo file ok
rm -f out.svg
btplot -k iops -o no-such-dir/out.svg sample-traces/nvme-readahead-2020.bin
echo "exit $?"
