#!/bin/bash
# SPDX-License-Identifier: MIT
# btreplay switches an explicit device's scheduler for the replay and puts
# back the old one with its tunables afterwards: after a normal end, after
# SIGINT and after SIGTERM.  --sched=cfq runs BFQ with slice_idle=8 and
# low_latency=0 and says so; --sched-opt sets a tunable.  A scratch device
# is gone after a normal end, SIGINT and even SIGKILL.
# The settings are read once btreplay says they are in place (its
# "scheduler X on DISK" line) and then all through the replay: the switch
# itself comes first, because switching resets nr_requests and the
# tunables, and each queue attribute written after it takes tens of ms
# (the kernel freezes the queue), so a read as soon as the scheduler name
# changes sees the new scheduler's defaults.
set -u
. "$(dirname "$0")/replay_common.bash"

get_trace
sched_loop L
nr=$(cat "/sys/block/$n/queue/nr_requests")
before() {
	[ "$(sched "$n")" = mq-deadline ] || fail "$1: scheduler $(sched "$n"), want mq-deadline back"
	[ "$(cat "/sys/block/$n/queue/iosched/read_expire")" = "$re" ] ||
		fail "$1: read_expire $(cat "/sys/block/$n/queue/iosched/read_expire"), want $re back"
	[ "$(cat "/sys/block/$n/queue/nr_requests")" = "$nr" ] ||
		fail "$1: nr_requests $(cat "/sys/block/$n/queue/nr_requests"), want $nr back"
}

# A whole replay under cfq (= bfq here) with a queue attribute changed.
"$BTREPLAY" --target "$L" --write --sched=cfq --sched-opt nr_requests=32 \
	"$TRACE" >"$T/out" 2>"$T/err" &
pid=$!
KIDS=("$pid")
for ((i = 0; i < 500; i++)); do
	grep -q '^btreplay: scheduler ' "$T/err" && break
	sleep 0.01
done
grep -q '^btreplay: scheduler ' "$T/err" ||
	{ cat "$T/err"; fail "btreplay did not say its scheduler within 5 s"; }
# The trace spans 5 s at speed 1: sample its first 3 s, every 0.25 s.
bad=
for ((i = 0; i < 12; i++)); do
	s=$(sched "$n")
	si=$(cat "/sys/block/$n/queue/iosched/slice_idle" 2>/dev/null)
	ll=$(cat "/sys/block/$n/queue/iosched/low_latency" 2>/dev/null)
	nq=$(cat "/sys/block/$n/queue/nr_requests")
	[ "$s $si $ll $nq" = "bfq 8 0 32" ] ||
		bad="${bad:-at $((i * 250)) ms after the scheduler line: scheduler $s slice_idle $si low_latency $ll nr_requests $nq (want bfq 8 0 32)}"
	sleep 0.25
done
kill -0 "$pid" 2>/dev/null || fail "btreplay ended within 3 s, before the last sample"
wait "$pid" || { cat "$T/err"; fail "btreplay exit $?"; }
KIDS=()
cat "$T/err"
[ -z "$bad" ] || fail "during the replay, $bad"
grep -q 'using bfq' "$T/err" || fail "no note of the cfq -> bfq substitution"
grep -q 'BFQ is not CFQ' "$T/err" || fail "no note that BFQ is not CFQ"
grep -q '^btreplay: scheduler bfq on '"$n"' (was mq-deadline)$' "$T/err" ||
	fail "no scheduler line"
before "after the replay"

# Interrupted: SIGINT and SIGTERM half way through a slowed-down replay.
for sig in INT TERM; do
	"$BTREPLAY" --target "$L" --write --sched=none --speed 0.1 "$TRACE" \
		>"$T/out" 2>"$T/err" &
	pid=$!
	KIDS=("$pid")
	wait_sched "$n" none 5 || fail "scheduler during the replay: $(sched "$n"), want none"
	sleep 0.5
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	KIDS=()
	want=$((128 + $(kill -l "$sig")))
	[ "$rc" = "$want" ] || { cat "$T/err"; fail "SIG$sig: exit $rc, want $want"; }
	grep -q '^total' "$T/out" || fail "SIG$sig: no report"
	before "after SIG$sig"
done

# Scratch devices vanish: after the end, after SIGINT, after SIGKILL.
for how in end INT KILL; do
	"$BTREPLAY" --speed "$([ $how = end ] && echo 4 || echo 0.1)" "$TRACE" \
		>"$T/out" 2>"$T/err" &
	pid=$!
	KIDS=("$pid")
	for ((i = 0; i < 500; i++)); do
		dev=$(grep -o 'scratch device /dev/loop[0-9]*' "$T/err" | head -1)
		[ -n "$dev" ] && break
		sleep 0.01
	done
	dev=${dev#scratch device /dev/}
	[ -n "$dev" ] || fail "$how: no scratch device named"
	[ $how = end ] || { sleep 0.3; kill -"$how" "$pid"; }
	wait "$pid"
	KIDS=()
	for ((i = 0; i < 200; i++)); do
		[ -e "/sys/block/$dev/loop/backing_file" ] || break
		sleep 0.01
	done
	[ -e "/sys/block/$dev/loop/backing_file" ] &&
		fail "$how: scratch $dev still attached to $(cat "/sys/block/$dev/loop/backing_file")"
done
echo ok
