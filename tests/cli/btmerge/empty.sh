# An empty trace, as a file and on stdin: the header only, exit 0.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
: >"$tmp/empty.bin"
cd "$tmp" && btmerge empty.bin && btmerge <empty.bin
