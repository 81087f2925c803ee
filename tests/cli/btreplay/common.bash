# Sourced by the btreplay CLI tests: a sparse regular file as the target
# (no root needed), the timing columns cut away (they vary from run to
# run), and the times and counts of the "replayed ... IOPS" and "issue lag"
# lines, which vary, replaced by letters.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
NVME=sample-traces/nvme-readahead-2020.bin
# replay SIZE ARGS...: btreplay --target FILE-of-SIZE ARGS; stable columns.
replay() {
	local size=$1 rc
	shift
	rm -f "$tmp/dev"
	truncate -s "$size" "$tmp/dev"
	btreplay --target "$tmp/dev" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if grep -q , "$tmp/out"; then cut -d, -f1-4,10 "$tmp/out"; else cut -f1-4,10 "$tmp/out"; fi
	sed -e "s|$tmp|TMP|g" -e "s/in [0-9.]* s ([0-9]* IOPS)/in T s (N IOPS)/" \
		-e "s/could go: p50 [0-9.]* us, p99 [0-9.]* us, max [0-9.]* us; [0-9]* I/could go: p50 L us, p99 L us, max L us; H I/" \
		"$tmp/err" >&2
	return $rc
}
# gen: the bench generator's small synthetic trace (partition 8,1 of 8,0).
gen() {
	mkdir -p "$tmp/gen"
	btgen -n 20000 -o "$tmp/gen" -b g >/dev/null 2>&1 || { echo "btgen failed" >&2; exit 99; }
	echo "$tmp/gen/g.bin"
}
