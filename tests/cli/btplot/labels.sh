# Labels and names reach the picture escaped: a label with markup
# characters and a control byte; the default label is the file name up
# to its first dot; a file whose name holds '=' is a file, not a label.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
cp sample-traces/nvme-readahead-2020.bin "$tmp/a=b.bin"
btplot -k depth "$(printf 'x<&>"\001'"'"'=sample-traces/nvme-readahead-2020.bin')" \
	"$tmp/a=b.bin" sample-traces/nvme-readahead-2020.bin >"$tmp/l.svg"
xmllint --noout "$tmp/l.svg" && grep -o '<text[^>]*>[^<]*</text>' "$tmp/l.svg" |
	sed -n '/traces/,$p'
