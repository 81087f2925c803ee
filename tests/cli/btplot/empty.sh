# An empty trace is bad input ("empty trace", exit 1), yet the picture of
# what was read (nothing) is written and well-formed: axes, "no samples".
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
: >"$tmp/empty.bin"
btplot -k heatmap -o "$tmp/e.svg" "$tmp/empty.bin" 2>&1 | sed "s|$tmp/||"
echo "exit ${PIPESTATUS[0]}"
xmllint --noout "$tmp/e.svg" && perl tests/cli/btplot/svgsum.pl <"$tmp/e.svg"
# The other kinds too: well-formed, and the offset picture says it is empty.
for k in offset iops depth waits; do
	btplot -k "$k" "$tmp/empty.bin" 2>/dev/null >"$tmp/e.svg"
	xmllint --noout "$tmp/e.svg" && echo "$k: well-formed"
done
btplot -k offset "$tmp/empty.bin" 2>/dev/null | grep -o -m1 'no read[^<]*'
