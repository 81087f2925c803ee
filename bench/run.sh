#!/bin/bash
# SPDX-License-Identifier: MIT
# `make bench`: throughput and peak memory of the btkit tools against
# blkparse and btt on one large generated trace, printed as ratios in one
# run.  The trace (bench/btgen.c, BENCH_EVENTS records, default 10 M) is
# cached in $B/bench-data and rebuilt when btgen.c or the size changes.
#
# Events/s are computed from CPU time (user + sys): other jobs may share
# the machine, so wall time is shown but not used for the ratios.  Peak RSS is GNU time's
# %M.  blkparse and btt get BENCH_TIMEOUT seconds (default 600), the btkit
# tools BENCH_TOOL_TIMEOUT (default 60: ten times btt's speed needs ~3 s).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-build}
BIN=$TOP/$B/bin
EVENTS=${BENCH_EVENTS:-10000000}
DATA=${BENCH_DATA:-$TOP/$B/bench-data}
REF_TIMEOUT=${BENCH_TIMEOUT:-600}
TOOL_TIMEOUT=${BENCH_TOOL_TIMEOUT:-60}
GNUTIME=/usr/bin/time
export LC_ALL=C

die() { echo "bench: $*" >&2; exit 1; }

[ -x "$GNUTIME" ] || die "$GNUTIME missing (Debian package 'time')"
[ -x "$TOP/$B/bench/btgen" ] || die "$B/bench/btgen not built (run make)"
[ -x "$BIN/btcat" ] || die "$B/bin/btcat not built (run make)"
case $EVENTS in ''|*[!0-9]*) die "BENCH_EVENTS must be a number" ;; esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---------------------------------------------------------------- data
stamp="$(cksum <"$TOP/bench/btgen.c") $EVENTS"
if [ "$(cat "$DATA/stamp" 2>/dev/null)" != "$stamp" ]; then
	echo "bench: generating $EVENTS events into $DATA (cached for next runs)"
	rm -rf "$DATA"
	mkdir -p "$DATA" || die "cannot create $DATA"
	"$TOP/$B/bench/btgen" -n "$EVENTS" -o "$DATA" -b bench 2>"$tmp/gen" ||
		die "btgen failed: $(cat "$tmp/gen")"
	gzip -c "$DATA/bench.bin" >"$DATA/bench.bin.gz" || die "gzip failed"
	sed -n 's/^btgen: \([0-9]*\) records.*/\1/p' "$tmp/gen" >"$DATA/records"
	echo "$stamp" >"$DATA/stamp"
fi
RECORDS=$(cat "$DATA/records")
MERGED=$DATA/bench.bin
NCPU=$(ls "$DATA"/bench.blktrace.* | wc -l)

# --------------------------------------------------------------- measure
# measure NAME IN OUT CMD...: run CMD <IN >OUT under GNU time, RUNS times
# (BENCH_RUNS, default 3; once for blkparse, whose run takes a minute) and
# keep the run of median CPU time: on a shared or virtual machine one run
# can be 30% off.  Sets WALL, CPU, RSS (MB, the largest) and EVS (events
# per CPU second), or prints why it could not.
RUNS=${BENCH_RUNS:-3}
measure() {
	local name=$1 in=$2 out=$3 rc limit=$TOOL_TIMEOUT runs=$RUNS i
	local -a cpus=() rss=()
	shift 3
	case $1 in "$BIN"/*) ;; *) limit=$REF_TIMEOUT ;; esac
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
			printf '%-40s %s\n' "$name" "$STATUS"
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
	printf '%-40s %8.2f %8.2f %9.3f %9.1f\n' "$name" "$WALL" "$CPU" \
		"$(awk -v e="$EVS" 'BEGIN { printf "%.3f", e / 1e6 }')" "$RSS"
}

# ratio WHAT MINE_EVS THEIR_EVS MINE_RSS THEIR_RSS TARGET
ratio() {
	awk -v what="$1" -v a="$2" -v b="$3" -v ra="$4" -v rb="$5" -v t="$6" 'BEGIN {
		x = a / b
		printf "  => %s: %.1fx the events/s, peak RSS %.1f MB vs %.1f MB", what, x, ra, rb
		if (t != "")
			printf "  [target >= %sx, <= 16 MB: %s]", t,
				(x >= t && ra <= 16) ? "met" : "NOT met"
		printf "\n"
	}'
}

hdr() {
	printf '\n%-40s %8s %8s %9s %9s\n' "$1" wall_s cpu_s Mev/s rss_MB
}

echo "btkit bench: $RECORDS records, $NCPU per-CPU files + merged stream" \
	"($(du -m "$MERGED" | cut -f1) MB), data in ${DATA#"$TOP"/}"
echo "Mev/s = million events per CPU second (user+sys), median of $RUNS runs (blkparse: 1); ratios from CPU time"

NOMATCH=4095,1048575	# -d filter matching nothing: read and decode, print nothing

# btcat text vs blkparse text.
hdr "text output to /dev/null"
bp_ok=0
if command -v blkparse >/dev/null; then
	measure "blkparse -q -i - < merged" "$MERGED" /dev/null blkparse -q -i - &&
		{ BP_EVS=$EVS; BP_RSS=$RSS; bp_ok=1; }
else
	echo "blkparse not installed: skipped (Debian package blktrace)"
fi
if measure "btcat merged" /dev/null /dev/null "$BIN/btcat" "$MERGED"; then
	CAT_EVS=$EVS CAT_RSS=$RSS
	[ $bp_ok = 1 ] && ratio "btcat vs blkparse" "$CAT_EVS" "$BP_EVS" "$CAT_RSS" "$BP_RSS" 10
fi
measure "btcat per-CPU set ($NCPU files)" /dev/null /dev/null \
	"$BIN/btcat" "$DATA/bench"
measure "btcat -c merged (CSV)" /dev/null /dev/null "$BIN/btcat" -c "$MERGED"

# Reading without output and the analysis tools vs btt.
hdr "analysis, output to /dev/null"
btt_ok=0
if command -v btt >/dev/null; then
	# btt writes *_iops_fp.dat and *_mbps_fp.dat into the current directory.
	# It reads the merged stream as it would a `blkparse -d` dump: the same
	# records; the dump only rebases event times to the first event.
	mkdir -p "$tmp/btt"
	cd "$tmp/btt" || die "cd $tmp/btt"
	measure "btt -i merged" /dev/null /dev/null btt -i "$MERGED" &&
		{ BTT_EVS=$EVS; BTT_RSS=$RSS; btt_ok=1; }
	cd "$TOP" || die "cd $TOP"
else
	echo "btt not installed: skipped (Debian package blktrace)"
fi
if measure "btcat -d $NOMATCH merged (no output)" /dev/null /dev/null \
	"$BIN/btcat" -d "$NOMATCH" "$MERGED"; then
	[ $btt_ok = 1 ] && ratio "reading vs btt" "$EVS" "$BTT_EVS" "$RSS" "$BTT_RSS" 10
fi
for t in btmerge btsize btlat btslice btsync; do
	[ -x "$BIN/$t" ] || { printf '%-40s %s\n' "$t" "not built: skipped"; continue; }
	if measure "$t merged" /dev/null /dev/null "$BIN/$t" "$MERGED"; then
		[ $btt_ok = 1 ] && ratio "$t vs btt" "$EVS" "$BTT_EVS" "$RSS" "$BTT_RSS" 10
	fi
done

# gzip input: decoding a .gz trace vs zcat alone.
hdr "gzip input ($(du -m "$MERGED.gz" | cut -f1) MB .gz)"
if measure "zcat merged.gz > /dev/null" /dev/null /dev/null zcat "$MERGED.gz"; then
	Z_CPU=$CPU
	if measure "btcat -d $NOMATCH merged.gz" /dev/null /dev/null \
		"$BIN/btcat" -d "$NOMATCH" "$MERGED.gz"; then
		awk -v a="$CPU" -v b="$Z_CPU" 'BEGIN {
			x = a / b
			printf "  => btcat on .gz takes %.2fx zcat'"'"'s CPU time  [target <= 1.3x: %s]\n",
				x, x <= 1.3 ? "met" : "NOT met" }'
	fi
fi

# btreplay: issue lag at recorded pace and --no-stall IOPS against fio
# (root only; bench/replay.sh says why when it cannot run).
hdr "btreplay (loop device)"
B=$B "$TOP/bench/replay.sh"
