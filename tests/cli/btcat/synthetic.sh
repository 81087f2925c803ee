# Every line shape and blkparse's ordering rules on a synthetic trace
# (mktrace.pl): late PROCESS notes within a batch of 512 name earlier
# events, the first name of a pid wins, ties come out last read first,
# cgroup-flagged records follow blkparse 1.3.0.  tests/oracle/btcat_blkparse
# checks the same trace against blkparse itself.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl tests/cli/btcat/mktrace.pl >"$tmp/syn.bin" || exit 99
cd "$tmp" && btcat syn.bin
