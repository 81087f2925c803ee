# --device, the old name of --target, still works, with a note: in the
# other tools --device is the -d filter.
. tests/cli/btreplay/common.bash
rm -f "$tmp/dev"
truncate -s 1269808672768 "$tmp/dev"
btreplay -H --device "$tmp/dev" "$NVME" >"$tmp/out" 2>"$tmp/err"
echo "exit $?"
head -1 "$tmp/err"
wc -l <"$tmp/out"
