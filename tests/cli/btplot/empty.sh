# An empty trace is bad input ("empty trace", exit 1), yet the picture of
# what was read (nothing) is written and well-formed: axes, "no samples".
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
: >"$tmp/empty.bin"
btplot -k heatmap -o "$tmp/e.svg" "$tmp/empty.bin" 2>&1 | sed "s|$tmp/||"
echo "exit ${PIPESTATUS[0]}"
xmllint --noout "$tmp/e.svg" && perl tests/cli/btplot/svgsum.pl <"$tmp/e.svg"
