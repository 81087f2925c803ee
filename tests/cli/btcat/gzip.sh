# A gzipped trace reads as the plain one.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
t=sample-traces/nvme-readahead-2020.bin
gzip -c "$t" >"$tmp/t.gz"
btcat "$t" >"$tmp/plain"
btcat <"$tmp/t.gz" | cmp - "$tmp/plain" && echo same
