# --blkparse=1.2 drops exactly the cgroup-flagged lines that 1.2.0 cannot
# print: the difference to the default (1.3.0) output.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl tests/cli/btcat/mktrace.pl >"$tmp/syn.bin" || exit 99
cd "$tmp" || exit 99
btcat --blkparse=1.2 syn.bin >v12
btcat syn.bin >v13 2>/dev/null
diff v12 v13
exit 0
