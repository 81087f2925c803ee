# A trace captured with only D and C events (blktrace -a issue -a complete;
# keep.pl drops the rest of pgbench-none): btslice can compute nothing, and says
# on stderr which events the trace lacks and what works on it instead.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
gzip -dc sample-traces/pgbench-none.bin.gz |
	perl tests/cli/btmerge/keep.pl D C >"$tmp/dc.bin" || exit 99
btslice "$tmp/dc.bin"
btslice --from=messages "$tmp/dc.bin"
