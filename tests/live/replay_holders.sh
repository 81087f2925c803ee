#!/bin/bash
# SPDX-License-Identifier: MIT
# btreplay refuses, exit 3, a device another block device is stacked on
# (holders/ is not empty), and leaves it unchanged; --force replays.
# With device-mapper: a linear target on the loop device.  Without it (no
# dm module, as on some test VMs): the loop device's holders/ directory is
# covered, in a private mount namespace only, by one holding an entry
# dm-99, so btreplay's own sysfs reading meets a holder; the test says so.
set -u
. "$(dirname "$0")/replay_common.bash"

get_trace
new_loop L "$(trace_mb)"
s0=$(sha256sum <"$L")
how=
holders=
run=()
name=btreplay-test-$$
if command -v dmsetup >/dev/null &&
	echo "0 $(blockdev --getsz "$L") linear $L 0" | dmsetup create "$name" 2>"$T/dm.err"; then
	LOOPS=("/dev/mapper/$name" "${LOOPS[@]}")
	how="device-mapper linear target"
else
	why=$( (command -v dmsetup >/dev/null && head -1 "$T/dm.err") || echo "no dmsetup")
	command -v unshare >/dev/null || skip "device-mapper unavailable ($why) and no unshare"
	holders=$(readlink -f "/sys/class/block/$(kname "$L")/holders")
	[ -d "$holders" ] || fail "no $holders"
	mkdir "$T/holders"
	ln -s ../../dm-99 "$T/holders/dm-99"
	run=(unshare -m --propagation private sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$T/holders" "$holders")
	how="simulated holder dm-99 (device-mapper unavailable: $why)"
fi
echo "holder: $how"

"${run[@]}" "$BTREPLAY" --target "$L" --write "$TRACE" >"$T/out" 2>"$T/err"
rc=$?
cat "$T/err"
[ $rc = 3 ] || fail "exit $rc, want 3"
grep -q 'refused: held by dm-' "$T/err" || fail "message does not name the holder"
[ "$(sha256sum <"$L")" = "$s0" ] || fail "the device changed"
[ -z "$(ls -A "$holders" 2>/dev/null)" ] || [ -z "${run[*]}" ] ||
	fail "the simulated holder leaked out of its mount namespace"

"${run[@]}" "$BTREPLAY" -H --target "$L" --write --force "$TRACE" >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 0 ] || { cat "$T/err"; fail "--force: exit $rc, want 0"; }
grep -q '^total' "$T/out" || fail "--force: no total row"
echo ok
