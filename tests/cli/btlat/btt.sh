# --btt weights q2c, q2d and d2c per bio (the four merged reads count four
# times, the split read not at all, as btt) and leaves out flushes.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl tests/cli/btmerge/mkreq.pl >"$tmp/req.bin" || exit 99
btlat --btt "$tmp/req.bin"
