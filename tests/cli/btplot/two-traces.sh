# Two traces, named LABEL=PATH: small multiples with one colour scale (one
# gradient, one legend) for the heat map; overlays with one line per trace
# and op for iops, one per trace for depth; lanes per trace for waits, slice
# waits from events only on both sides since none has no scheduler messages.
for k in heatmap iops depth waits offset; do
	echo "== $k"
	btplot -k "$k" -o out.svg bfq=sample-traces/pgbench-bfq.bin.gz \
		none=sample-traces/pgbench-none.bin.gz
	xmllint --noout out.svg && perl tests/cli/btplot/svgsum.pl <out.svg |
		grep -v '^text: [0-9.]* [a-zµ]*s$' | grep -v '^text: postgres [0-9]*$'
done
rm -f out.svg
