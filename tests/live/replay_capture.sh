#!/bin/bash
# SPDX-License-Identifier: MIT
# btreplay replays a trace onto its scratch loop device under mq-deadline
# and records the replay with --capture.  The replay queues as many bios as
# the original (within 2%), from one thread per original pid (as many
# distinct pids), with the same preflush and FUA bios and the same Q size
# histogram; replayed from D (--from=D), as many requests within 2%.
# The scratch device's scheduler read from sysfs during the
# replay is the one asked for; the device is gone afterwards.
set -u
. "$(dirname "$0")/replay_common.bash"
grep -qw tracefs /proc/filesystems || skip "kernel without tracefs: no --capture"

get_trace
"$BTREPLAY" --sched=mq-deadline --capture "$T/rep.bin" "$TRACE" \
	>"$T/report" 2>"$T/err" &
pid=$!
KIDS+=("$pid")
for ((i = 0; i < 500; i++)); do
	dev=$(grep -o 'scratch device /dev/loop[0-9]*' "$T/err" | head -1)
	[ -n "$dev" ] && break
	sleep 0.01
done
dev=${dev#scratch device /dev/}
[ -n "$dev" ] || { cat "$T/err"; fail "no scratch device named on stderr"; }
wait_sched "$dev" mq-deadline 5 ||
	fail "scheduler of $dev during the replay: $(sched "$dev"), want mq-deadline"
wait "$pid" || { cat "$T/err"; fail "btreplay exit $?"; }
KIDS=()
cat "$T/err"
cat "$T/report"
[ -e "/sys/block/$dev/loop/backing_file" ] &&
	fail "scratch device $dev still attached to $(cat "/sys/block/$dev/loop/backing_file")"

orig=$(qstats "$TRACE")
rep=$(qstats "$T/rep.bin")
n0=$("$BTCAT" "$TRACE" | awk '$6 == "Q"' | wc -l)
n1=$("$BTCAT" "$T/rep.bin" | awk '$6 == "Q"' | wc -l)
echo "Q events: original $n0, replay $n1"
[ "$n0" -gt 0 ] || fail "no Q event in $TRACE"
d=$(( (n1 - n0) * 1000 / n0 ))
[ "${d#-}" -le 20 ] || fail "Q count off by $d per mille (original $n0, replay $n1)"

p0=$(qpids "$TRACE")
p1=$(qpids "$T/rep.bin")
rows=$(awk 'NR > 1 && $1 != "total"' "$T/report" | wc -l)
echo "pids: original $p0, replay $p1, report rows $rows"
[ "$p0" = "$p1" ] || fail "distinct pids: original $p0, replay $p1"
[ "$p0" = "$rows" ] || fail "report has $rows processes, the trace $p0"

grep preflush <<<"$orig"
[ "$(grep preflush <<<"$orig")" = "$(grep preflush <<<"$rep")" ] ||
	fail "preflush bios: $(grep preflush <<<"$orig") vs $(grep preflush <<<"$rep")"
[ "$(grep fua <<<"$orig")" = "$(grep fua <<<"$rep")" ] ||
	fail "FUA bios: $(grep fua <<<"$orig") vs $(grep fua <<<"$rep")"
diff <(grep ^size <<<"$orig") <(grep ^size <<<"$rep") ||
	fail "Q size histograms differ (< original, > replay)"
# Flush requests (no Q) reach the device in the replay too.
f0=$("$BTCAT" "$TRACE" | awk '$6 == "D" && $7 ~ /^F/' | wc -l)
f1=$("$BTCAT" "$T/rep.bin" | awk '$6 == "D" && $7 ~ /^F/' | wc -l)
echo "flush requests dispatched: original $f0, replay $f1"
[ "$f0" -eq 0 ] || [ "$f1" -gt 0 ] || fail "no flush request dispatched in the replay"
awk '$1 == "total" && $NF != 0 { exit 1 }' "$T/report" || fail "I/O errors in the replay"

# --from=D: the requests as dispatched, counted at D.
"$BTREPLAY" --from=D --capture "$T/rep-d.bin" "$TRACE" >"$T/report" 2>"$T/err" ||
	{ cat "$T/err"; fail "btreplay --from=D exit $?"; }
n0=$("$BTCAT" "$TRACE" | awk '$6 == "D"' | wc -l)
n1=$("$BTCAT" "$T/rep-d.bin" | awk '$6 == "D"' | wc -l)
echo "--from=D: D events: original $n0, replay $n1"
d=$(( (n1 - n0) * 1000 / n0 ))
[ "${d#-}" -le 20 ] || fail "--from=D: D count off by $d per mille (original $n0, replay $n1)"
f1=$("$BTCAT" "$T/rep-d.bin" | awk '$6 == "D" && $7 ~ /^F/' | wc -l)
[ "$f0" -eq 0 ] || [ "$f1" -gt 0 ] || fail "--from=D: no flush request in the replay"
echo ok
