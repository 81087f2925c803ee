# -w takes seconds in any form strtod reads: 1e0:2e0 is 1:2, 1.5e0 is 1.5,
# 1e-3 is 0.001; plain decimals stay exact to the ns.
set -e
p=sample-traces/pgbench-bfq.bin.gz
for w in 1:2 1e0:2e0 1E0:0.2e1 1.5: 1.5e0: 15e-1: :1e-3 :0.001 0x1p0:2; do
	echo "-w $w: $(optcheck -H -w "$w" "$p")"
done
