# --at=Q counts submitted bios: the split read is one 8 KiB bio, the four
# merged reads four 4 KiB bios; a bad --at value is a usage error.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl tests/cli/btmerge/mkreq.pl >"$tmp/req.bin" || exit 99
btsize --at=Q "$tmp/req.bin" && btsize --at=X "$tmp/req.bin"
