#!/bin/bash
# SPDX-License-Identifier: MIT
# btreplay's figures for `make bench` (bench/run.sh calls this), on a
# direct-I/O loop device over a sparse file in TMPDIR.  Root only; prints
# why and exits 0 when it cannot run.
#
# Lag, at the recorded pace: how late I/Os went out.  Two figures: the
# table's lag from each I/O's due time, which also holds the device being
# slower than the traced one (an I/O due while its process still has its
# traced depth in flight cannot go), and the engine's own issue lag,
# counted from when each I/O could go (btreplay's stderr line); the
# target, p99 <= 200 us, is about the engine.
#
# IOPS, with --no-stall: reads+writes over the time from the first I/O
# issued to the last completion (as fio counts), against fio replaying
# the same trace with io_uring and direct I/O in two ways:
#   per process  one fio job per traced pid (bench/fio_iolog.awk), each with
#                that process's I/O in order and its depth: the same work
#                btreplay does, so the target (ratio >= 1) is measured here;
#   one stream   fio --read_iolog=TRACE --replay_redirect=DEV at an iodepth
#                equal to the sum of the depths: no process waits for its
#                own earlier I/O, so a writer's next write no longer waits
#                for its fdatasync; shown for reference.
# Traces: fsync-vs-readers (five processes, a writer whose every write
# waits for an fdatasync), the NVMe read-ahead trace (one reader at depth
# 1; only 963 I/Os, and fio's run time has a 1 ms resolution), pgbench, and
# for IOPS only the NVMe trace 50 times over (bench/repeat.pl: 48,150 I/Os,
# long enough to time a depth-1 stream).
#   BENCH_REPLAY_TRACE  one trace to replay instead
#   BENCH_REPLAY_RUNS   runs at the recorded pace, the median is shown (default 3)
#   BENCH_REPLAY_IOPS_RUNS  runs of each --no-stall measurement (default 7:
#                       they take well under a second, and on a virtual machine
#                       a depth-1 run is either fast or slow, as its idle CPUs
#                       wake or not; the median and the range are shown)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-build}
BIN=$TOP/$B/bin
if [ -n "${BENCH_REPLAY_TRACE:-}" ]; then
	TRACES=("$BENCH_REPLAY_TRACE")
else
	TRACES=("$TOP/sample-traces/fsync-vs-readers-none.bin.gz"
		"$TOP/sample-traces/nvme-readahead-2020.bin"
		"$TOP/sample-traces/pgbench-none.bin.gz"
		"iops:x50:$TOP/sample-traces/nvme-readahead-2020.bin")
fi
RUNS=${BENCH_REPLAY_RUNS:-3}
IRUNS=${BENCH_REPLAY_IOPS_RUNS:-7}
export LC_ALL=C

skip() { echo "replay: skipped: $*"; exit 0; }
[ "$(id -u)" = 0 ] || skip "not root (loop devices)"
[ -e /dev/loop-control ] || skip "no loop devices"
command -v fio >/dev/null || skip "no fio"
[ -x "$BIN/btreplay" ] && [ -x "$BIN/btcat" ] || skip "btreplay/btcat not built"
case $RUNS in ''|*[!0-9]*|0) echo "BENCH_REPLAY_RUNS must be a positive number" >&2; exit 1 ;; esac
case $IRUNS in ''|*[!0-9]*|0) echo "BENCH_REPLAY_IOPS_RUNS must be a positive number" >&2; exit 1 ;; esac

tmp=$(mktemp -d)
L=
cleanup() { [ -n "$L" ] && losetup -d "$L"; rm -rf "$tmp"; }
trap cleanup EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# range FILE: "lowest-highest" of the runs.
range() { sort -n "$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo "-" hi }'; }

# fio_iops TERSE: reads+writes over the longer of the two run times
# (terse v3: fields 8/9 read IOPS and ms, 49/50 write IOPS and ms).
fio_iops() {
	awk -F';' '{ r = $8 * $9 / 1000; w = $49 * $50 / 1000
		t = ($9 > $50 ? $9 : $50) / 1000
		printf "%.0f\n", (t > 0 ? (r + w) / t : 0) }' "$1"
}

# measure TRACE [iops]: all figures for one trace (only IOPS with "iops"),
# on a fresh loop device.
measure() {
	local size rw threads=0 depth=0 pids pid d i f
	local -a perproc
	# fio reads plain blktrace files only.
	case $1 in *.gz) zcat "$1" >"$tmp/trace.bin" ;; *) cp "$1" "$tmp/trace.bin" ;; esac
	"$BIN/btcat" "$tmp/trace.bin" >"$tmp/trace.txt"
	awk '
		$6 == "Q" && $9 == "+" {
			end = ($8 + $10) * 512; if (end > max) max = end
			if ($10 > 0 && $7 !~ /D/) rw++
		}
		END { printf "%.0f %d\n", max + 1048576, rw }' "$tmp/trace.txt" >"$tmp/facts"
	read -r size rw <"$tmp/facts"
	rm -rf "$tmp/dev.img" "$tmp/logs" "$tmp/lags" "$tmp/elags" "$tmp"/*_iops
	mkdir "$tmp/logs"
	truncate -s "$size" "$tmp/dev.img"
	L=$(losetup -f --show --direct-io=on "$tmp/dev.img") || skip "losetup failed"

	# fio's per-process logs, and each process's depth as btreplay finds it.
	# Replaying each pid alone is also the warm-up: the first writes to a
	# sparse backing file allocate blocks (ext4 journal commits on every
	# flush), and whoever ran first would pay for both.
	pids=$(awk -v dir="$tmp/logs" -v dev="$L" -f "$TOP/bench/fio_iolog.awk" "$tmp/trace.txt")
	for pid in $pids; do
		"$BIN/btreplay" -H -p "$pid" --target "$L" --write --force --no-stall \
			"$tmp/trace.bin" >/dev/null 2>"$tmp/warm.err" || { cat "$tmp/warm.err"; exit 1; }
		d=$(sed -n 's/.* total depth \([0-9]*\) .*/\1/p' "$tmp/warm.err")
		perproc+=(--name="p$pid" --read_iolog="$tmp/logs/$pid.log" --iodepth="${d:-1}")
		threads=$((threads + 1))
		depth=$((depth + ${d:-1}))
	done

	# Recorded pace: the total row's lag columns and the engine's line.
	for ((i = 0; i < RUNS && $# < 2; i++)); do
		"$BIN/btreplay" -H --target "$L" --write --force "$tmp/trace.bin" \
			>"$tmp/pace" 2>"$tmp/pace.err" || { cat "$tmp/pace.err"; exit 1; }
		awk '$1 == "total" { print $7, $8, $9 }' "$tmp/pace" >>"$tmp/lags"
		sed -n 's/.*could go: p50 \([0-9.]*\) us, p99 \([0-9.]*\) us, max \([0-9.]*\) us; \([0-9]*\) I.Os were held.*/\1 \2 \3 \4/p' \
			"$tmp/pace.err" >>"$tmp/elags"
	done

	# As fast as the depths allow (flushes are done but not counted, as fio
	# does not count them either).
	for ((i = 0; i < IRUNS; i++)); do
		"$BIN/btreplay" -H --target "$L" --write --force --no-stall "$tmp/trace.bin" \
			>/dev/null 2>"$tmp/ns.err" || { cat "$tmp/ns.err"; exit 1; }
		sed -n 's/.* in \([0-9.]*\) s .*/\1/p' "$tmp/ns.err" |
			awk -v n="$rw" '{ printf "%.0f\n", n / $1 }' >>"$tmp/bt_iops"
		fio --ioengine=io_uring --direct=1 --replay_no_stall=1 --group_reporting \
			--output-format=terse "${perproc[@]}" >"$tmp/fio.out" 2>"$tmp/fio.err" ||
			{ cat "$tmp/fio.err"; exit 1; }
		fio_iops "$tmp/fio.out" >>"$tmp/fiop_iops"
		fio --name=replay --read_iolog="$tmp/trace.bin" --replay_redirect="$L" \
			--ioengine=io_uring --direct=1 --iodepth="$depth" \
			--replay_no_stall=1 --output-format=terse >"$tmp/fio.out" 2>"$tmp/fio.err" ||
			{ cat "$tmp/fio.err"; exit 1; }
		fio_iops "$tmp/fio.out" >>"$tmp/fios_iops"
	done
	f="medians of $RUNS runs (lag) and $IRUNS (IOPS)"
	[ $# -lt 2 ] || f="IOPS only, median of $IRUNS runs"
	echo "replay: trace $(basename "$1"): $rw reads+writes by $threads processes, total depth $depth; device $(basename "$L") (direct-I/O loop on a sparse file); $f"
	if [ $# -lt 2 ]; then
		lag_lines
	fi
	bt=$(median <"$tmp/bt_iops")
	fiop=$(median <"$tmp/fiop_iops")
	fios=$(median <"$tmp/fios_iops")
	awk -v b="$bt" -v p="$fiop" -v s="$fios" -v d="$depth" \
		-v br="$(range "$tmp/bt_iops")" -v pr="$(range "$tmp/fiop_iops")" \
		-v sr="$(range "$tmp/fios_iops")" 'BEGIN {
		printf "replay: --no-stall r+w IOPS (runs ranged): btreplay %d (%s); fio per process %d (%s): ratio %.2f (target >= 1); fio one stream at iodepth %d %d (%s): ratio %.2f\n",
			b, br, p, pr, (p > 0 ? b / p : 0), d, s, sr, (s > 0 ? b / s : 0) }'
	losetup -d "$L"
	L=
}

# lag_lines: the two lag lines from the recorded-pace runs.
lag_lines() {
	local lag50 lag99 lagmax elag50 elag99 elagmax held
	lag50=$(cut -d' ' -f1 "$tmp/lags" | median)
	lag99=$(cut -d' ' -f2 "$tmp/lags" | median)
	lagmax=$(cut -d' ' -f3 "$tmp/lags" | median)
	elag50=$(cut -d' ' -f1 "$tmp/elags" | median)
	elag99=$(cut -d' ' -f2 "$tmp/elags" | median)
	elagmax=$(cut -d' ' -f3 "$tmp/elags" | median)
	held=$(cut -d' ' -f4 "$tmp/elags" | median)
	echo "replay: issue lag at recorded pace, from when each I/O could go: p50 $elag50 us, p99 $elag99 us, max $elagmax us (target p99 <= 200 us)"
	echo "replay: lag from the due time: p50 $lag50 us, p99 $lag99 us, max $lagmax us; $held I/Os held by their own process's I/O in flight"
}

for t in "${TRACES[@]}"; do
	case $t in
	iops:x*:*)
		n=${t#iops:x}; n=${n%%:*}; t=${t#iops:x*:}
		[ -f "$t" ] || { echo "replay: skipped $t: no such file"; continue; }
		f=$tmp/$(basename "${t%.bin}")-x$n.bin
		perl "$TOP/bench/repeat.pl" "$n" "$t" "$f" || exit 1
		measure "$f" iops ;;
	*)
		[ -f "$t" ] || { echo "replay: skipped $t: no such file"; continue; }
		measure "$t" ;;
	esac
done
