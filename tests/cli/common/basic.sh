# The generated bench trace (btgen, fixed seed) read from a file, from
# stdin (none and "-"), as a per-CPU set, with -H and -c.
set -e
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
btgen -n 3000 -c 2 -o "$d" 2>/dev/null
cd "$d"
optcheck bench.bin
optcheck < bench.bin
optcheck - < bench.bin
optcheck bench
optcheck -H bench.bin
optcheck -c bench.bin
optcheck --csv --no-header bench.bin
