#!/bin/bash
# SPDX-License-Identifier: MIT
# `make bench`: throughput and peak memory of the btkit tools against
# blkparse and btt, printed as ratios in one run, on two generated traces
# (bench/btgen.c), cached in $B/bench-data and rebuilt when btgen.c or a
# size changes:
#   bench.bin  btgen's disk model: BENCH_EVENTS records (default 10 M),
#              remaps, plugs, splits, flushes, few merges;
#   merge.bin  merge-heavy (btgen -m BENCH_MERGES, default 3): 8 streaming
#              processes, each request Q G, 0..3 back-merged bios (Q M),
#              I D C, 48-byte records, BENCH_MERGE_EVENTS records (default
#              11.6 M, 556 MB: the size issue 15 measured).
#              BENCH_MERGE_EVENTS=0 leaves it out.
#
# Events/s are computed from CPU time (user + sys): other jobs may share
# the machine, so wall time is shown but not used for the ratios.  Each
# tool's row gives its events/s, its ratio to the reference (blkparse for
# text output, btt for the analyses: events/s over theirs), and its CPU
# time over `cat FILE > /dev/null`'s on the same file (timed over ten
# passes).  Above the tools' rows: the reader alone (bench/btread) and
# the floor under the analyses that rebuild requests (bench/btread -p:
# the reader plus a bare pairing of Q, G, M and C in two hash tables;
# bench/PROFILE.md, "The floor").  Peak RSS is GNU time's %M.  blkparse
# and btt get BENCH_TIMEOUT seconds (default 600), the btkit tools
# BENCH_TOOL_TIMEOUT (default 60).  The whole run, both traces at their default sizes and
# without btreplay, takes about 3 minutes on a 2-core VM (blkparse:
# 20 s of it), plus a minute to generate the traces the first time.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-build}
BIN=$TOP/$B/bin
EVENTS=${BENCH_EVENTS:-10000000}
MEVENTS=${BENCH_MERGE_EVENTS:-11600000}
MERGES=${BENCH_MERGES:-3}
DATA=${BENCH_DATA:-$TOP/$B/bench-data}
REF_TIMEOUT=${BENCH_TIMEOUT:-600}
TOOL_TIMEOUT=${BENCH_TOOL_TIMEOUT:-60}
GNUTIME=/usr/bin/time
export LC_ALL=C

die() { echo "bench: $*" >&2; exit 1; }

[ -x "$GNUTIME" ] || die "$GNUTIME missing (Debian package 'time')"
[ -x "$TOP/$B/bench/btgen" ] && [ -x "$TOP/$B/bench/btread" ] ||
	die "$B/bench/btgen or btread not built (make bench builds them)"
[ -x "$BIN/btcat" ] || die "$B/bin/btcat not built (run make)"
for n in "$EVENTS" "$MEVENTS" "$MERGES"; do
	case $n in ''|*[!0-9]*) die "BENCH_EVENTS, BENCH_MERGE_EVENTS and BENCH_MERGES must be numbers" ;; esac
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---------------------------------------------------------------- data
# gen NAME EVENTS BTGEN-OPTIONS...: DATA/NAME.bin, its per-CPU files, .gz
# and record count, regenerated when btgen.c or the options change.
gen() {
	local name=$1 n=$2 stamp
	shift 2
	stamp="$(cksum <"$TOP/bench/btgen.c") $n $*"
	[ "$(cat "$DATA/$name.stamp" 2>/dev/null)" = "$stamp" ] && return 0
	echo "bench: generating $n events into $DATA/$name.* (cached for next runs)"
	mkdir -p "$DATA" || die "cannot create $DATA"
	rm -f "$DATA/$name".*
	"$TOP/$B/bench/btgen" -n "$n" "$@" -o "$DATA" -b "$name" 2>"$tmp/gen" ||
		die "btgen failed: $(cat "$tmp/gen")"
	gzip -c "$DATA/$name.bin" >"$DATA/$name.bin.gz" || die "gzip failed"
	sed -n 's/^btgen: \([0-9]*\) records.*/\1/p' "$tmp/gen" >"$DATA/$name.records"
	echo "$stamp" >"$DATA/$name.stamp"
}
# Data of the one-trace layout this script had before.
rm -f "$DATA/stamp" "$DATA/records"
gen bench "$EVENTS"
[ "$MEVENTS" -gt 0 ] && gen merge "$MEVENTS" -m "$MERGES"

# --------------------------------------------------------------- measure
# measure NAME IN OUT CMD...: run CMD <IN >OUT under GNU time, RUNS times
# (BENCH_RUNS, default 3; once for blkparse, whose run takes a minute) and
# keep the run of median CPU time: on a shared or virtual machine one run
# can be 30% off.  Sets WALL, CPU, RSS (MB, the largest) and EVS (events
# per CPU second), or prints why it could not.  Prints the row without
# its end, which row_end adds.
RUNS=${BENCH_RUNS:-3}
measure() {
	local name=$1 in=$2 out=$3 rc limit=$TOOL_TIMEOUT runs=$RUNS i
	local -a cpus=() rss=()
	shift 3
	case $1 in "$BIN"/* | "$TOP/$B/bench"/*) ;; *) limit=$REF_TIMEOUT ;; esac
	case $1 in blkparse) runs=1 ;; esac
	for ((i = 0; i < runs; i++)); do
		STATUS=ok
		timeout "$limit" "$GNUTIME" -f '%e %U %S %M' -o "$tmp/time" \
			"$@" <"$in" >"$out" 2>"$tmp/err"
		rc=$?
		if [ $rc -eq 124 ]; then
			STATUS="timed out after ${limit}s"
		elif [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
			STATUS="failed (exit $rc): $(grep -v '^Command' "$tmp/err" | head -1)"
		fi
		if [ "$STATUS" != ok ]; then
			printf '%-34s %s\n' "$name" "$STATUS"
			return 1
		fi
		read -r WALL U S KB < <(tail -1 "$tmp/time")
		cpus+=("$(awk -v u="$U" -v s="$S" 'BEGIN { c = u + s; if (c < 0.01) c = 0.01; printf "%.2f", c }') $WALL")
		rss+=("$KB")
	done
	read -r CPU WALL < <(printf '%s\n' "${cpus[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
	KB=$(printf '%s\n' "${rss[@]}" | sort -n | tail -1)
	RSS=$(awk -v k="$KB" 'BEGIN { printf "%.1f", k / 1024 }')
	EVS=$(awk -v n="$RECORDS" -v c="$CPU" 'BEGIN { printf "%.0f", n / c }')
	printf '%-34s %7.2f %6.2f %7.2f %6.1f' "$name" "$WALL" "$CPU" \
		"$(awk -v e="$EVS" 'BEGIN { printf "%.3f", e / 1e6 }')" "$RSS"
}

# row_end REF_EVS TARGET_X TARGET_MEVS: ratio to the reference, time over
# cat's, and whether the targets are met (empty: none).
row_end() {
	awk -v a="$EVS" -v b="$1" -v cpu="$CPU" -v cat="$CAT_CPU" \
		-v rss="$RSS" -v tx="$2" -v tm="$3" 'BEGIN {
		if (b != "")
			printf " %10.1fx", a / b
		else
			printf " %11s", "-"
		printf " %7.1fx", cpu / cat
		if (tx != "" || tm != "") {
			ok = rss <= 16 && (tx == "" || b == "" || a / b >= tx) &&
			     (tm == "" || a / 1e6 >= tm)
			printf "  [>= %sx%s, <= 16 MB: %s]", tx,
				tm != "" ? ", >= " tm " Mev/s" : "",
				ok ? "met" : "NOT met"
		}
		printf "\n"
	}'
}

hdr() {
	printf '\n%-34s %7s %6s %7s %6s %11s %8s\n' "$1" wall_s cpu_s Mev/s \
		rss_MB "vs_$2" over_cat
}

NOMATCH=4095,1048575	# -d filter matching nothing: read and decode, print nothing

# suite NAME TEXT_TARGET TOOL_TARGET MEVS_TARGET: the table for DATA/NAME.bin.
suite() {
	local name=$1 tt=$2 at=$3 mt=$4 t a m
	local trace=$DATA/$name.bin
	local bp_evs="" btt_evs=""

	RECORDS=$(cat "$DATA/$name.records")
	echo
	echo "== $name.bin: $RECORDS records ($(du -m "$trace" | cut -f1) MB)," \
		"$(ls "$DATA/$name".blktrace.* | wc -l) per-CPU files"
	# cat takes a few hundredths of a second, GNU time's resolution:
	# ten passes in one run (the row's times); over_cat uses a tenth.
	CAT_CPU=0.01
	RECORDS=$((RECORDS * 10))
	measure "cat $name.bin x10 > /dev/null" /dev/null /dev/null \
		cat "$trace" "$trace" "$trace" "$trace" "$trace" \
		"$trace" "$trace" "$trace" "$trace" "$trace" &&
		{ CAT_CPU=$(awk -v c="$CPU" 'BEGIN { print c / 10 }'); echo; }
	RECORDS=$((RECORDS / 10))

	hdr "text output to /dev/null" blkparse
	if command -v blkparse >/dev/null; then
		measure "blkparse -q -i - < $name.bin" "$trace" /dev/null \
			blkparse -q -i - && { bp_evs=$EVS; row_end "" "" ""; }
	else
		echo "blkparse not installed: skipped (Debian package blktrace)"
	fi
	measure "btcat $name.bin" /dev/null /dev/null "$BIN/btcat" "$trace" &&
		row_end "$bp_evs" "$tt" ""
	measure "btcat per-CPU set" /dev/null /dev/null \
		"$BIN/btcat" "$DATA/$name" && row_end "$bp_evs" "" ""
	measure "btcat -c (CSV)" /dev/null /dev/null "$BIN/btcat" -c "$trace" &&
		row_end "$bp_evs" "" ""

	hdr "analysis, output to /dev/null" btt
	if command -v btt >/dev/null; then
		# btt writes *_iops_fp.dat and *_mbps_fp.dat into the current
		# directory.  It reads the merged stream as it would a
		# `blkparse -d` dump: the same records; the dump only rebases
		# event times to the first event.
		mkdir -p "$tmp/btt"
		cd "$tmp/btt" || die "cd $tmp/btt"
		measure "btt -i $name.bin" /dev/null /dev/null btt -i "$trace" &&
			{ btt_evs=$EVS; row_end "" "" ""; }
		cd "$TOP" || die "cd $TOP"
	else
		echo "btt not installed: skipped (Debian package blktrace)"
	fi
	# The reader alone (bench/btread: bt_reader_next() in a loop), then
	# btcat's reading and ordering: what every tool's row has beneath it.
	measure "reader alone (bench/btread)" /dev/null /dev/null \
		"$TOP/$B/bench/btread" "$trace" && row_end "$btt_evs" "" ""
	# The floor under the analyses that rebuild requests (btread -p: the
	# reader plus Q/G/M/C paired in two hash tables, nothing else).
	measure "floor: reader + Q/M/C pairing" /dev/null /dev/null \
		"$TOP/$B/bench/btread" -p "$trace" && row_end "$btt_evs" "" ""
	measure "btcat -d $NOMATCH (reading)" /dev/null /dev/null \
		"$BIN/btcat" -d "$NOMATCH" "$trace" && row_end "$btt_evs" "" ""
	for t in "btlat --btt" btlat btmerge btsize btslice btsync \
		"btplot -k iops"; do
		# shellcheck disable=SC2086 # $t is a tool and its options
		set -- $t
		[ -x "$BIN/$1" ] || { printf '%-34s %s\n' "$t" "not built: skipped"; continue; }
		case $1 in btplot) a=""; m="" ;; *) a=$at; m=$mt ;; esac
		shift
		measure "$t" /dev/null /dev/null "$BIN/${t%% *}" "$@" "$trace" &&
			row_end "$btt_evs" "$a" "$m"
	done

	# gzip input: decoding a .gz trace vs zcat alone.
	hdr "gzip input ($(du -m "$trace.gz" | cut -f1) MB .gz)" zcat
	if measure "zcat $name.bin.gz > /dev/null" /dev/null /dev/null \
		zcat "$trace.gz"; then
		local z_evs=$EVS
		row_end "" "" ""
		if measure "btcat -d $NOMATCH $name.bin.gz" /dev/null /dev/null \
			"$BIN/btcat" -d "$NOMATCH" "$trace.gz"; then
			row_end "$z_evs" "" ""
			awk -v a="$EVS" -v b="$z_evs" 'BEGIN {
				x = b / a
				printf "  => btcat on .gz takes %.2fx zcat'"'"'s CPU time  [target <= 1.3x: %s]\n",
					x, x <= 1.3 ? "met" : "NOT met" }'
		fi
	fi
}

echo "btkit bench: data in ${DATA#"$TOP"/}; Mev/s = million events per CPU" \
	"second (user+sys), median of $RUNS runs (blkparse: 1); ratios from CPU time"
# btgen's disk model: the targets set before issue 15.
suite bench 10 10 ""
# The merge-heavy trace: issue 15's targets.
[ "$MEVENTS" -gt 0 ] && suite merge 20 15 20

# btreplay: issue lag at recorded pace and --no-stall IOPS against fio
# (root only; bench/replay.sh says why when it cannot run; BENCH_REPLAY=0
# leaves it out, e.g. where loop devices are someone else's).
printf '\nbtreplay (loop device)\n'
if [ "${BENCH_REPLAY:-1}" = 0 ]; then
	echo "replay: skipped: BENCH_REPLAY=0"
else
	B=$B "$TOP/bench/replay.sh"
fi
