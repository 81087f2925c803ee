# A trace cut in the middle of a record: the reader's message with file
# and offset, the results up to there still printed, exit 1.
set -e
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
btgen -n 3000 -c 2 -o "$d" 2>/dev/null
cd "$d"
head -c 5000 bench.bin > cut.bin
optcheck cut.bin
