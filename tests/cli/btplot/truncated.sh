# A trace cut in the middle of a record: the reader's message with file
# and offset, exit 1, and the picture of the requests read before it.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
head -c 100000 sample-traces/nvme-readahead-2020.bin >"$tmp/cut.bin"
cd "$tmp" && btplot -k iops -o cut.svg cut.bin
echo "exit $?"
xmllint --noout cut.svg && grep -c '<title>' cut.svg
