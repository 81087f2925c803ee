# A trace without D events (keep.pl drops them from pgbench-none): btsize
# says so and names every action the trace holds, also those its reader set
# aside undecoded (all but D).
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
gzip -dc sample-traces/pgbench-none.bin.gz |
	perl tests/cli/btmerge/keep.pl Q G I C M >"$tmp/nod.bin" || exit 99
btsize -H "$tmp/nod.bin"
