# -g draws biolatency-style bar charts, per owner with -P.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl tests/cli/btmerge/mkreq.pl >"$tmp/req.bin" || exit 99
btsize -g "$tmp/req.bin" && btsize -g -P --at=Q "$tmp/req.bin"
