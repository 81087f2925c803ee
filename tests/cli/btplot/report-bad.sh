# --report on bad input: a trace cut in the middle of a record gives the
# reader's message and exit 1, and the page of what was read is written
# all the same; an empty trace too ("empty trace"), its tables "No rows".
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
head -c 100000 sample-traces/nvme-readahead-2020.bin >"$tmp/cut.bin"
: >"$tmp/empty.bin"
cd "$tmp" || exit 1
btplot --report -o cut.html cut.bin
echo "exit $?"
perl "$OLDPWD/tests/cli/btplot/htmltab.pl" <cut.html | grep -E '^(h1|  table)'
btplot --report -o empty.html empty.bin
echo "exit $?"
perl "$OLDPWD/tests/cli/btplot/htmltab.pl" <empty.html | grep -E '^(h1|  none|  svg)'
