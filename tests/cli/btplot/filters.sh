# -p keeps what one process owns (its lane alone), -w a window (the time
# axis ends with it), -d a device (none here: "no fdatasync episode").
btplot -k waits -p 8564 sample-traces/pgbench-bfq.bin.gz >out.svg &&
	grep -o '<text[^>]*class="e"><title>[^<]*' out.svg | sed 's/.*<title>//'
btplot -k iops -w 1:2 sample-traces/pgbench-bfq.bin.gz >out.svg &&
	grep -o 'column [^;]*' out.svg
btplot -k waits -d 8,0 sample-traces/pgbench-bfq.bin.gz | grep -o 'no fdatasync[^<]*'
rm -f out.svg
