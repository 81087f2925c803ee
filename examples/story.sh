#!/bin/bash
# SPDX-License-Identifier: MIT
# The question of btkit(7) as a script: why is fdatasync slower under one
# scheduler than another?  Replays the fsync-vs-readers sample (four
# random readers and one writer calling fdatasync, recorded under none)
# under bfq and under none on a scratch loop device, records each replay
# with --capture, and prints side by side what btreplay, btsync
# (fdatasync episodes) and btslice (how long each process waited for the
# device, from events for both, so the columns compare) say of the two.
# Needs root (scratch loop device, tracing).  Usage: story.sh [TRACE]
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BTKIT_BIN:-$TOP/build/bin}
TRACE=${1:-$TOP/sample-traces/fsync-vs-readers-none.bin.gz}
for t in btreplay btsync btslice; do
	[ -x "$BIN/$t" ] || { echo "story: $BIN/$t not built (make)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "story: run as root (loop device, tracing)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for s in bfq none; do
	echo "== replaying $(basename "$TRACE") under $s"
	"$BIN/btreplay" --sched="$s" --capture "$out/$s.bin" "$TRACE" \
		>"$out/$s.replay" 2>"$out/$s.err" || { cat "$out/$s.err" >&2; exit 1; }
	grep -E 'scheduler|replayed|captured' "$out/$s.err"
	"$BIN/btsync" "$out/$s.bin" >"$out/$s.sync"
	"$BIN/btslice" --from=events "$out/$s.bin" >"$out/$s.slice"
done

# side TITLE COLUMN...: the named columns of $out/bfq.X and $out/none.X,
# row by row (both sorted by pid: replay threads start in the original's
# pid order), bfq left, none right.
side() {
	local x=$1
	shift
	echo
	echo "== $x: under bfq | under none"
	paste "$out/bfq.$x" "$out/none.$x" | awk -F'\t' -v cols="$*" '
		NR == 1 {
			n = split(cols, want, " "); half = NF / 2
			for (i = 1; i <= half; i++) pos[$i] = i
		}
		{
			line = ""
			for (side = 0; side < 2; side++) {
				for (k = 1; k <= n; k++)
					line = line (k > 1 ? "\t" : "") $(pos[want[k]] + side * half)
				line = line (side == 0 ? "\t|\t" : "")
			}
			print line
		}'
}
side replay comm ios lat_p50_us lat_p99_us lag_p99_us
side sync comm episodes lat_p50_us lat_p99_us flush_mean_us
side slice comm episodes wait_p50_us wait_p99_us idle_share
