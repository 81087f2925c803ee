# The heat map's metrics on pgbench under BFQ: q2c per op (a panel per op
# that has requests), d2c, q2d, fdatasync episodes, slice waits (from BFQ's
# messages: the panel says so).
for m in "--op" "--metric d2c" "--metric q2d" "--metric fsync" "--metric slice"; do
	echo "== $m"
	# shellcheck disable=SC2086
	btplot -k heatmap $m sample-traces/pgbench-bfq.bin.gz >out.svg
	xmllint --noout out.svg && perl tests/cli/btplot/svgsum.pl <out.svg |
		grep -v '^text: [0-9.]* [a-zµ]*s$'
done
rm -f out.svg
