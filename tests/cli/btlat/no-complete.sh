# A per-CPU file without completions (mklat.pl noc: Q, G, I, D only): the
# default table is empty, and stderr says why (no C events) and what
# works (--btt, which then prints q2g, g2i and i2d); exit 0.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl tests/cli/btlat/mklat.pl noc >"$tmp/noc.bin" || exit 99
btlat "$tmp/noc.bin"
btlat -e "$tmp/noc.bin"
btlat --btt "$tmp/noc.bin"
