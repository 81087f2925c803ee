# The same records little- and big-endian, version 7 and 8 (64-byte
# header): the same lines, but for action 18, which is version 8's zone
# plug (ZP) and an action blkparse does not print in version 7.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
for v in "" -b -8 "-b -8"; do
	# shellcheck disable=SC2086
	perl tests/cli/btcat/mktrace.pl $v >"$tmp/t.bin" || exit 99
	btcat "$tmp/t.bin" 2>/dev/null | awk '$6 != "ZP"' | md5sum
done | uniq -c | awk '{ print $1 }'
