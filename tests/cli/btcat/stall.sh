# A gap in a CPU's sequence numbers stalls blkparse's stream reading: the
# rest prints at the end, named with every PROCESS note of the trace (pid
# 102 is named "late" only after its first events, in a later batch).
# The input is read once: stdin and a FIFO name them as a file does (the
# rest goes through a temporary file).  -s counts the gap as a skip.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl tests/cli/btcat/mktrace.pl -g >"$tmp/gap.bin" || exit 99
cd "$tmp" || exit 99
btcat gap.bin 2>/dev/null | grep -c '\[late\]'
btcat <gap.bin 2>/dev/null | grep -c '\[late\]'
mkfifo fifo && { cat gap.bin >fifo & }
btcat fifo 2>/dev/null | grep -c '\[late\]'
btcat gap.bin | md5sum
btcat - <gap.bin | md5sum
btcat -s gap.bin 2>/dev/null | grep '^Skips'
