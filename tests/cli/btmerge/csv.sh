# -c writes CSV with a header; -H drops the header; -d keeps one device.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl tests/cli/btmerge/mkreq.pl >"$tmp/req.bin" || exit 99
btmerge -c "$tmp/req.bin" && btmerge -H -d 253,0 "$tmp/req.bin"
