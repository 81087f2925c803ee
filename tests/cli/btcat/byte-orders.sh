# The same records little- and big-endian, version 7 and 8 (64-byte
# header): each decodes without error to the same lines, but for action
# 18, which is version 8's zone plug (ZP) and an action blkparse does not
# print in version 7.  The lines are printed once; every other layout must
# match them byte for byte, else the case fails with its name and the
# difference.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
rc=0
for v in "" -b -8 "-b -8"; do
	name=${v:-le-v7}
	# shellcheck disable=SC2086
	perl tests/cli/btcat/mktrace.pl $v >"$tmp/t.bin" || exit 99
	if ! btcat "$tmp/t.bin" >"$tmp/raw"; then
		echo "layout '$name': btcat failed"
		rc=1
		continue
	fi
	awk '$6 != "ZP"' "$tmp/raw" >"$tmp/out.$name"
	[ -s "$tmp/out.$name" ] || { echo "layout '$name': no lines"; rc=1; }
	if [ "$name" = le-v7 ]; then
		cat "$tmp/out.$name"
	elif ! diff -u "$tmp/out.le-v7" "$tmp/out.$name"; then
		echo "layout '$name': lines differ from le-v7"
		rc=1
	else
		echo "layout '$name': same lines"
	fi
done
exit $rc
