# -s ends with blkparse -s's statistics: per process (names from PROCESS
# notes, "unknown" for a pid counted before any note) and per device and
# CPU.  The oracle test compares them with blkparse on every trace.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl tests/cli/btcat/mktrace.pl >"$tmp/syn.bin" || exit 99
cd "$tmp" && btcat -s syn.bin | sed -n '/^abcdefghijklmno (101)/,$p'
