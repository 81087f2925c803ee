# An ext4 trace whose only durability operation is jbd2's commit
# (mkcommit.pl: journal blocks, then the FWFS commit block, 81 ms each):
# the journal thread's commits are its own episodes, flagged journal.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl tests/cli/btsync/mkcommit.pl >"$tmp/commit.bin" || exit 99
btsync "$tmp/commit.bin" && btsync -e -H "$tmp/commit.bin"
