# A trace with writes needs --write, whatever the target; the refusal
# names how many writes; nothing is written (exit 3).
. tests/cli/btreplay/common.bash
replay 250G "$(gen)"
rc=$?
[ "$(stat -c %b "$tmp/dev")" = 0 ] || echo "the file was written"
exit $rc
