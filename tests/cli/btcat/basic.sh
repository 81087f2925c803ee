# The public NVMe trace (a per-CPU file whose records say cpu 1, no
# PROCESS note): first and last lines and the line count.  The oracle test
# compares every line with blkparse.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
btcat sample-traces/nvme-readahead-2020.bin >"$tmp/out"
rc=$?
sed -n '1,12p;6735,$p' "$tmp/out"
wc -l <"$tmp/out"
exit $rc
