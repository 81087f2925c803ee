# -e: one line per completed request, in completion order; "-" (in CSV
# an empty cell) where a request has no Q (blk-flush's flush) or no D
# (the empty preflush).
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl tests/cli/btmerge/mkreq.pl >"$tmp/req.bin" || exit 99
btlat -e "$tmp/req.bin" && btlat -e -c -p 200 "$tmp/req.bin"
