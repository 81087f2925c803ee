#!/bin/bash
# SPDX-License-Identifier: MIT
# btreplay refuses an explicit device, exit 3, and leaves its content as
# it was (same checksum): writes without --write (naming how many); a
# device smaller than the trace's extent, even with --force; a device open
# O_EXCL elsewhere, mounted, or with a GPT or ext4 signature, unless
# --force; the device holding /, even with --force.  --force then replays.
set -u
. "$(dirname "$0")/replay_common.bash"

get_trace
sum() { sha256sum <"$1" | cut -d' ' -f1; }

# refused WHY DEV ARGS...: exit 3, WHY on stderr, DEV unchanged.
refused() {
	local why=$1 dev=$2 s0 rc
	shift 2
	s0=$(sum "$dev")
	"$BTREPLAY" --target "$dev" "$@" "$TRACE" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc = 3 ] || { cat "$T/err"; fail "$why: exit $rc, want 3 (args: $*)"; }
	grep -q "refused: .*$why" "$T/err" || { cat "$T/err"; fail "message does not say '$why'"; }
	[ "$(sum "$dev")" = "$s0" ] || fail "$why: the device changed"
	cat "$T/err"
}

new_loop L "$(trace_mb)"
w=$("$BTCAT" "$TRACE" | awk '$6 == "Q" && $7 ~ /^F?[WD]/ && $10 > 0' | wc -l)
[ "$w" -gt 0 ] || skip "the trace has no writes"
refused "has $w writes" "$L"
refused "has $w writes" "$L" --force

new_loop S 1
refused "the trace reaches byte" "$S" --write
refused "the trace reaches byte" "$S" --write --force

perl -e 'use Fcntl; sysopen(my $f, $ARGV[0], O_RDONLY | O_EXCL) or die "$!\n";
	print "held\n"; $| = 1; sleep 60' "$L" >"$T/held" &
KIDS+=("$!")
for ((i = 0; i < 300; i++)); do [ -s "$T/held" ] && break; sleep 0.01; done
[ -s "$T/held" ] || fail "perl could not open $L O_EXCL"
refused "open elsewhere" "$L" --write
kill "${KIDS[-1]}"; wait "${KIDS[-1]}" 2>/dev/null; unset 'KIDS[-1]'

printf 'EFI PART' | dd of="$L" bs=1 seek=512 conv=notrunc status=none
refused "signature (GPT partition table)" "$L" --write
"$BTREPLAY" --target "$L" --write --force "$TRACE" >"$T/out" 2>"$T/err" ||
	{ cat "$T/err"; fail "--force on a GPT-signed device: exit $?"; }

new_loop E "$(trace_mb)"
command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4 (all else passed)"
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$E" 64M >/dev/null ||
	fail "mkfs.ext4 failed"
refused "signature (ext2/3/4 filesystem)" "$E" --write
mkdir "$T/mnt"
mount -o ro "$E" "$T/mnt" || skip "cannot mount ext4 (all else passed)"
MOUNTS+=("$T/mnt")
refused "mounted on $T/mnt" "$E" --write

# The root filesystem's device: refused before anything is opened for
# writing; without --write the trace's writes would be refused anyway.
rd=$(stat -c '%Hd:%Ld' /)
if [ -e "/sys/dev/block/$rd" ]; then
	r=/dev/$(basename "$(readlink -f "/sys/dev/block/$rd")")
	[ -b "$r" ] || skip "no node $r for / (all else passed)"
	"$BTREPLAY" --target "$r" --force "$TRACE" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc = 3 ] && grep -q "refused: it holds the root filesystem" "$T/err" ||
		{ cat "$T/err"; fail "device of / ($r): exit $rc"; }
	cat "$T/err"
else
	echo "/ is not on a block device ($rd): root refusal not tested"
fi
echo ok
