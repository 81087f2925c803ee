# Traces captured without Q or without C events (keep.pl drops the rest of
# pgbench-none): btsync can compute nothing and says which events the trace
# lacks, naming every action it holds, also those its reader set aside
# undecoded (M, G and I while no episode is open).
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
gzip -dc sample-traces/pgbench-none.bin.gz |
	perl tests/cli/btmerge/keep.pl G I D C M >"$tmp/noq.bin" || exit 99
gzip -dc sample-traces/pgbench-none.bin.gz |
	perl tests/cli/btmerge/keep.pl Q G I D M >"$tmp/noc.bin" || exit 99
btsync -H "$tmp/noq.bin"; btsync -H "$tmp/noc.bin"
