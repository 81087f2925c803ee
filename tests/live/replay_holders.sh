#!/bin/bash
# SPDX-License-Identifier: MIT
# btreplay refuses, exit 3, a device another block device is stacked on
# (a device-mapper linear target: holders/ is not empty), and leaves it
# unchanged; --force would replay.
set -u
. "$(dirname "$0")/replay_common.bash"
command -v dmsetup >/dev/null || skip "no dmsetup: holders refusal not tested"

get_trace
new_loop L "$(trace_mb)"
name=btreplay-test-$$
echo "0 $(blockdev --getsz "$L") linear $L 0" | dmsetup create "$name" 2>"$T/dm.err" ||
	skip "device-mapper unavailable: $(head -1 "$T/dm.err")"
LOOPS=("/dev/mapper/$name" "${LOOPS[@]}")
s0=$(sha256sum <"$L")
"$BTREPLAY" --device "$L" --write "$TRACE" >"$T/out" 2>"$T/err"
rc=$?
cat "$T/err"
[ $rc = 3 ] || fail "exit $rc, want 3"
grep -q 'refused: held by dm-' "$T/err" || fail "message does not name the holder"
[ "$(sha256sum <"$L")" = "$s0" ] || fail "the device changed"
echo ok
