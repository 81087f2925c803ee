# A gap in a CPU's sequence numbers stalls blkparse's stream reading: the
# rest prints at the end, named with every PROCESS note of the trace (pid
# 102 is named "late" only after its first events, in a later batch).  A
# file is read again for the names; stdin cannot be, and keeps the names
# known so far.  -s counts the gap as a skip.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl tests/cli/btcat/mktrace.pl -g >"$tmp/gap.bin" || exit 99
cd "$tmp" || exit 99
btcat gap.bin 2>/dev/null | grep -c '\[late\]'
btcat <gap.bin 2>/dev/null | grep -c '\[late\]'
btcat -s gap.bin 2>/dev/null | grep '^Skips'
