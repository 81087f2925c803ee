# An empty trace, as a file and on stdin: bad input, "empty trace", exit 1.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
: >"$tmp/empty.bin"
cd "$tmp" && { btlat empty.bin; btlat <empty.bin; }
