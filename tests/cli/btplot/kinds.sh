# Every kind on the NVMe sample (963 read-ahead reads, one process): well
# formed, every cell with hover text, axes with units, a legend.
for k in heatmap offset iops depth waits; do
	echo "== $k"
	btplot -k "$k" sample-traces/nvme-readahead-2020.bin >out.svg || echo "exit $?"
	xmllint --noout out.svg && perl tests/cli/btplot/svgsum.pl <out.svg
done
rm -f out.svg
