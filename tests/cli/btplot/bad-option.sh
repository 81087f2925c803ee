# Usage errors exit 2 with one message and the hint: an unknown option,
# no -k, a bad kind, metric, bin or top, a missing argument, an option of
# the table tools that btplot has no use for (-c), --report with -k or -p.
for a in "--bogus" "" "-k pie" "-k heatmap --metric p99" "-k iops --bin 0" \
	"-k iops --bin 1x" "-k waits --top 0" "-k waits --top 129" "-k" \
	"-k iops -c" "-k iops -w 5:1" "--report -k iops" "--report -p 1"; do
	echo "btplot $a"
	# shellcheck disable=SC2086
	btplot $a sample-traces/nvme-readahead-2020.bin 2>&1 >/dev/null
	echo "exit $?"
done
