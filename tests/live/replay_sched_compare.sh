#!/bin/bash
# SPDX-License-Identifier: MIT
# btreplay --sched=none,bfq replays the fsync-vs-readers sample once under
# each scheduler on an explicit loop device, captures each run, and prints
# the btdiff table with one column per scheduler (none, bfq, ratio), the
# processes pooled by name (fio) with as many fdatasync episodes in both
# runs; each run's scheduler is the one asked for, and the device's own
# scheduler and tunables are back afterwards: after a normal end and after
# SIGINT during the second run.  --capture keeps each run's capture
# (FILE-NAME.EXT); --sched=cfq,none --repeat 2 interleaves the runs
# (cfq(bfq) none cfq(bfq) none) and shows medians and ranges.
set -u
. "$(dirname "$0")/replay_common.bash"
grep -qw tracefs /proc/filesystems || skip "kernel without tracefs: no captures"

TRACE=$TOP/sample-traces/fsync-vs-readers-none.bin.gz
[ -f "$TRACE" ] || get_trace
sched_loop L
before() {
	[ "$(sched "$n")" = mq-deadline ] || fail "$1: scheduler $(sched "$n"), want mq-deadline back"
	[ "$(cat "/sys/block/$n/queue/iosched/read_expire")" = "$re" ] ||
		fail "$1: read_expire $(cat "/sys/block/$n/queue/iosched/read_expire"), want $re back"
}

# cell GROUP METRIC COLUMN: a cell of the table in $T/out.
cell() {
	awk -F'\t' -v g="$1" -v m="$2" -v c="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == g && $2 == m { print $(col[c]) }' "$T/out"
}

# The comparison, watched: each run under its scheduler.
"$BTREPLAY" --target "$L" --write --sched=none,bfq --speed 2 \
	--capture "$T/cap.bin" "$TRACE" >"$T/out" 2>"$T/err" &
pid=$!
KIDS=("$pid")
for want in none bfq; do
	for ((i = 0; i < 3000; i++)); do
		grep -q "^btreplay: scheduler $want on $n " "$T/err" && break
		sleep 0.01
	done
	# read at once: the run lasts 2.5 s after its scheduler line
	got=$(sched "$n")
	[ "$got" = "$want" ] || fail "during the $want run: scheduler $got"
done
wait "$pid" || { cat "$T/err"; fail "btreplay exit $?"; }
KIDS=()
cat "$T/err"
cat "$T/out"
before "after the comparison"
[ "$(head -1 "$T/out")" = "$(printf 'group\tmetric\tnone\tbfq\tratio')" ] ||
	fail "header: $(head -1 "$T/out")"
for s in none bfq; do
	grep -q "^btreplay: scheduler $s on $n (was mq-deadline)$" "$T/err" ||
		fail "no line for the $s run's scheduler"
	[ -s "$T/cap-$s.bin" ] || fail "no capture $T/cap-$s.bin"
	"$BTCAT" "$T/cap-$s.bin" >/dev/null || fail "cap-$s.bin unreadable"
done
grep -q '^btreplay: verdict: ' "$T/err" || fail "no verdict"
ep=$(cell fio fsync_episodes none)
[ -n "$ep" ] && [ "$ep" -gt 0 ] || fail "fio: no fdatasync episodes under none"
[ "$(cell fio fsync_episodes bfq)" = "$ep" ] ||
	fail "fio: $ep episodes under none, $(cell fio fsync_episodes bfq) under bfq"
[ "$(cell all slice_source none)" = events ] || fail "slice waits not from events"
[ -n "$(cell fio fsync_p99_us bfq)" ] || fail "fio: no fsync_p99_us under bfq"

# Interrupted during the second run: the first compared, all restored.
"$BTREPLAY" --target "$L" --write --sched=none,bfq --speed 0.5 "$TRACE" \
	>"$T/out" 2>"$T/err" &
pid=$!
KIDS=("$pid")
for ((i = 0; i < 3000; i++)); do
	grep -q "^btreplay: scheduler bfq on $n " "$T/err" && break
	sleep 0.01
done
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
KIDS=()
[ "$rc" = 130 ] || { cat "$T/err"; fail "SIGINT: exit $rc, want 130"; }
[ "$(head -1 "$T/out")" = "$(printf 'group\tmetric\tnone\tratio')" ] ||
	fail "after SIGINT: header $(head -1 "$T/out"), want the none run only"
before "after SIGINT"

# Repeated: interleaved runs, medians and ranges.
"$BTREPLAY" --target "$L" --write --sched=cfq,none --repeat 2 --speed 4 \
	"$TRACE" >"$T/out" 2>"$T/err" || { cat "$T/err"; fail "--repeat 2: exit $?"; }
cat "$T/out" | head -8
order=$(sed -n 's/^btreplay: run [0-9] of 4: //p' "$T/err" | tr '\n' ' ')
[ "$order" = "cfq(bfq) none cfq(bfq) none " ] || fail "run order: $order"
[ "$(head -1 "$T/out")" = "$(printf 'group\tmetric\tcfq(bfq)\tcfq(bfq)_range\tnone\tnone_range\tratio')" ] ||
	fail "--repeat header: $(head -1 "$T/out")"
grep -q '^btreplay: verdict (medians of 2 runs): ' "$T/err" || fail "no verdict on medians"
before "after --repeat"
echo ok
