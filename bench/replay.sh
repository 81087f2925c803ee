#!/bin/bash
# SPDX-License-Identifier: MIT
# btreplay's figures for `make bench` (bench/run.sh calls this): how late
# I/Os are issued when a sample trace is replayed at its recorded pace
# (lag p50/p99, target p99 <= 200 us), and read+write IOPS with --no-stall
# against fio replaying the same trace (fio --read_iolog=TRACE
# --replay_redirect=DEV --ioengine=io_uring --direct=1 --replay_no_stall=1)
# with an iodepth equal to the sum of btreplay's per-process depths, on the
# same loop device (direct I/O, sparse file in TMPDIR).  Root only; prints
# why and exits 0 when it cannot run.
# Two sample traces by default: fsync-vs-readers (five processes, a writer
# whose every write waits for an fdatasync: its chain bounds --no-stall)
# and the NVMe read-ahead trace (one reader, no flush).
#   BENCH_REPLAY_TRACE  one trace to replay instead
#   BENCH_REPLAY_RUNS   runs of each measurement, the median is shown (default 3)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-build}
BIN=$TOP/$B/bin
if [ -n "${BENCH_REPLAY_TRACE:-}" ]; then
	TRACES=("$BENCH_REPLAY_TRACE")
else
	TRACES=("$TOP/sample-traces/fsync-vs-readers-none.bin.gz"
		"$TOP/sample-traces/nvme-readahead-2020.bin")
fi
RUNS=${BENCH_REPLAY_RUNS:-3}
export LC_ALL=C

skip() { echo "replay: skipped: $*"; exit 0; }
[ "$(id -u)" = 0 ] || skip "not root (loop devices)"
[ -e /dev/loop-control ] || skip "no loop devices"
command -v fio >/dev/null || skip "no fio"
[ -x "$BIN/btreplay" ] && [ -x "$BIN/btcat" ] || skip "btreplay/btcat not built"
case $RUNS in ''|*[!0-9]*|0) echo "BENCH_REPLAY_RUNS must be a positive number" >&2; exit 1 ;; esac

tmp=$(mktemp -d)
L=
cleanup() { [ -n "$L" ] && losetup -d "$L"; rm -rf "$tmp"; }
trap cleanup EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# measure TRACE: both figures for one trace, on a fresh loop device.
measure() {
	local size rw p50 p99 max threads depth bt fio i
	# fio reads plain blktrace files only.
	case $1 in *.gz) zcat "$1" >"$tmp/trace.bin" ;; *) cp "$1" "$tmp/trace.bin" ;; esac
	"$BIN/btcat" "$tmp/trace.bin" | awk '
		$6 == "Q" && $9 == "+" {
			end = ($8 + $10) * 512; if (end > max) max = end
			if ($10 > 0 && $7 !~ /D/) rw++
		}
		END { printf "%.0f %d\n", max + 1048576, rw }' >"$tmp/facts"
	read -r size rw <"$tmp/facts"
	rm -f "$tmp/dev.img" "$tmp/lags" "$tmp/bt_iops" "$tmp/fio_iops"
	truncate -s "$size" "$tmp/dev.img"
	L=$(losetup -f --show --direct-io=on "$tmp/dev.img") || skip "losetup failed"

	# Warm-up: the first writes to a sparse backing file allocate blocks (ext4
	# journal commits on every flush); whoever ran first would pay for both.
	"$BIN/btreplay" -H --device "$L" --write --force --no-stall "$tmp/trace.bin" \
		>/dev/null 2>"$tmp/warm.err" || { cat "$tmp/warm.err"; exit 1; }

	# Recorded pace: the total row's lag columns.
	for ((i = 0; i < RUNS; i++)); do
		"$BIN/btreplay" -H --device "$L" --write --force "$tmp/trace.bin" \
			>"$tmp/pace" 2>"$tmp/pace.err" || { cat "$tmp/pace.err"; exit 1; }
		awk '$1 == "total" { print $7, $8, $9 }' "$tmp/pace" >>"$tmp/lags"
	done
	p50=$(cut -d' ' -f1 "$tmp/lags" | median)
	p99=$(cut -d' ' -f2 "$tmp/lags" | median)
	max=$(cut -d' ' -f3 "$tmp/lags" | median)
	threads=$(sed -n 's/.* by \([0-9]*\) threads.*/\1/p' "$tmp/pace.err")
	depth=$(sed -n 's/.* total depth \([0-9]*\) .*/\1/p' "$tmp/pace.err")

	# As fast as the depths allow: read+write I/Os over btreplay's run time
	# (flushes are done but not counted, as fio does not count them either).
	for ((i = 0; i < RUNS; i++)); do
		"$BIN/btreplay" -H --device "$L" --write --force --no-stall "$tmp/trace.bin" \
			>/dev/null 2>"$tmp/ns.err" || { cat "$tmp/ns.err"; exit 1; }
		sed -n 's/.* in \([0-9.]*\) s .*/\1/p' "$tmp/ns.err" |
			awk -v n="$rw" '{ printf "%.0f\n", n / $1 }' >>"$tmp/bt_iops"
		fio --name=replay --read_iolog="$tmp/trace.bin" --replay_redirect="$L" \
			--ioengine=io_uring --direct=1 --iodepth="$depth" \
			--replay_no_stall=1 --output-format=terse >"$tmp/fio.out" 2>"$tmp/fio.err" ||
			{ cat "$tmp/fio.err"; exit 1; }
		# terse v3: field 8 read IOPS, field 49 write IOPS.
		awk -F';' '{ printf "%.0f\n", $8 + $49 }' "$tmp/fio.out" >>"$tmp/fio_iops"
	done
	bt=$(median <"$tmp/bt_iops")
	fio=$(median <"$tmp/fio_iops")

	echo "replay: trace $(basename "$1"): $rw reads+writes by $threads processes, total depth $depth; device $(basename "$L") (direct-I/O loop on a sparse file), median of $RUNS runs"
	echo "replay: lag at recorded pace: p50 $p50 us, p99 $p99 us, max $max us (target p99 <= 200 us)"
	awk -v b="$bt" -v f="$fio" -v d="$depth" 'BEGIN {
		printf "replay: --no-stall: btreplay %d r+w IOPS, fio --read_iolog io_uring direct iodepth %d %d r+w IOPS: ratio %.2f (target >= 1)\n",
			b, d, f, (f > 0 ? b / f : 0) }'
	losetup -d "$L"
	L=
}

for t in "${TRACES[@]}"; do
	[ -f "$t" ] || { echo "replay: skipped $t: no such file"; continue; }
	measure "$t"
done
