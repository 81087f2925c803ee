#!/bin/bash
# SPDX-License-Identifier: MIT
# Whatever way btcapture ends, every tracefs and sysfs setting is as
# before: SIGINT and SIGTERM mid-capture (the trace still complete), a
# failing command (its status is btcapture's), lost events (reported, exit
# 1), a missing command, a second capture of the same device (refused, the
# first unharmed), a tracer already in use (refused, untouched),
# --via=relay (EPERM under lockdown).
set -u
. "$(dirname "$0")/capture_common.bash"

L=$(new_loop 64) || skip "cannot set up a loop device"
state "$L" >"$T/before"

for sig in INT TERM; do
	"$BTCAPTURE" -d "$L" -o "$T/$sig.bin" 2>"$T/$sig.err" &
	bg=$!
	sleep 1
	dd if="$L" of=/dev/null bs=4k count=100 iflag=direct status=none
	sleep 0.2
	kill -$sig $bg
	wait $bg
	rc=$?
	cat "$T/$sig.err"
	[ $rc = 0 ] || fail "SIG$sig: btcapture exit $rc"
	same_state "$L" "$T/before" "after SIG$sig"
	check_trace "$T/$sig.bin"
	n=$(awk '$6 == "C" && $7 ~ /^R/' "$T/parse.txt" | wc -l)
	[ "$n" -ge 100 ] || fail "SIG$sig: expected >= 100 read completions, got $n"
done

# Lost events: the reader stopped while the buffer (-b 16 KB) overflows;
# reported, exit 1, the rest of the trace readable, -b restored.
"$BTCAPTURE" -b 16 -d "$L" -o "$T/lost.bin" 2>"$T/err" &
bg=$!
sleep 1
kill -STOP $bg
dd if="$L" of=/dev/null bs=4k count=5000 iflag=direct status=none
kill -CONT $bg
sleep 0.5
kill -INT $bg
wait $bg
rc=$?
cat "$T/err"
[ $rc = 1 ] || fail "lost events: exit $rc, want 1"
grep -q 'events lost' "$T/err" || fail "lost events not reported"
same_state "$L" "$T/before" "after a capture with -b 16 that lost events"
check_trace "$T/lost.bin"

"$BTCAPTURE" -q -d "$L" -o "$T/fail.bin" -- sh -c \
	'dd if=/dev/zero of="$1" bs=4k count=10 oflag=direct status=none; exit 3' sh "$L"
rc=$?
[ $rc = 3 ] || fail "failing command: exit $rc, want 3"
same_state "$L" "$T/before" "after a failing command"
check_trace "$T/fail.bin"

"$BTCAPTURE" -q -d "$L" -o "$T/nocmd.bin" -- /nonexistent/command 2>"$T/err"
rc=$?
[ $rc = 127 ] || fail "missing command: exit $rc, want 127"
same_state "$L" "$T/before" "after a missing command"

"$BTCAPTURE" -q -d "$L" -o "$T/first.bin" &
bg=$!
sleep 1
"$BTCAPTURE" -q -d "$L" -o "$T/second.bin" 2>"$T/err"
rc=$?
cat "$T/err"
[ $rc != 0 ] || fail "a second capture of $L was not refused"
grep -q -e 'another capture' -e 'in use' -e 'already being traced' "$T/err" ||
	fail "second capture: no clear message"
[ "$(cat $TRACEFS/current_tracer)" = blk ] || fail "second capture stopped the first"
dd if="$L" of=/dev/null bs=4k count=10 iflag=direct status=none
kill -INT $bg
wait $bg || fail "first capture exit $?"
same_state "$L" "$T/before" "after a refused second capture"
check_trace "$T/first.bin"

# Someone else's tracer (function where lockdown allows it, else blk).
busy=
for t in function blk; do
	echo $t >$TRACEFS/current_tracer 2>/dev/null && { busy=$t; break; }
done
[ -n "$busy" ] || fail "cannot set any tracer to test refusal"
"$BTCAPTURE" -q -d "$L" -o "$T/busy.bin" 2>"$T/err"
rc=$?
now=$(cat $TRACEFS/current_tracer)
echo nop >$TRACEFS/current_tracer
cat "$T/err"
[ $rc != 0 ] || fail "capture with the $busy tracer in use was not refused"
[ "$now" = "$busy" ] || fail "btcapture changed the $busy tracer in use to $now"
grep -q "tracer '$busy' is in use" "$T/err" || fail "no clear message"
same_state "$L" "$T/before" "after refusing a busy tracer"

"$BTCAPTURE" -q --via=relay -d "$L" -o "$T/relay.bin" -w 1 2>"$T/err"
rc=$?
cat "$T/err"
if [ $rc = 0 ]; then
	check_trace "$T/relay.bin"
else
	grep -q 'Operation not permitted' "$T/err" ||
		fail "--via=relay failed for another reason than lockdown"
fi
same_state "$L" "$T/before" "after --via=relay"
finish
