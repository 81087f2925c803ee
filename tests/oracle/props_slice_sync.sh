#!/bin/bash
# SPDX-License-Identifier: MIT
# Properties btslice and btsync must hold on every sample trace (and on the
# traces of $BTKIT_TRACES when set and mkslice's hand-made ones, so this never runs on
# nothing): waits >= 0 and device idle <= wait; p50 <= p95 <= p99 <= max and
# mean <= max; idle_share in [0,1]; for btsync data + flush = latency in
# every episode, the kinds add up to the episodes, and the distinct closing
# instants of flushed episodes are no more than the flush-class completions
# btcat counts.  Runs from the top directory; exit 0 pass, 1 fail.
set -u
B=${B:-build}
BIN=${BTKIT_BIN:-$PWD/$B/bin}
HELP=$PWD/$B/tests
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0

bad() { echo "FAIL: $1: $2"; fail=1; }

"$HELP/mkslice" >"$tmp/mk-bfq.bin" || exit 1
"$HELP/mkslice" -n >"$tmp/mk-none.bin" || exit 1
"$HELP/mkslice" -N -r 7 >"$tmp/mk-noname.bin" || exit 1

traces=("$tmp"/mk-*.bin)
for f in sample-traces/* ${BTKIT_TRACES:+$BTKIT_TRACES/*/*.blktrace.*}; do
	[ -f "$f" ] || continue
	case $f in *.bin|*.bin.gz|*.blktrace.*|*.dump|*.dump.gz) ;; *) continue ;; esac
	traces+=("$f")
done

# Columns: $1.. of a TSV with header; check ordered quantiles.
check_quantiles() { # name file mean p50 p95 p99 max
	awk -F'\t' -v name="$1" -v m="$3" -v a="$4" -v b="$5" -v c="$6" -v d="$7" '
	NR > 1 {
		if (!($a + 0 <= $b + 0 && $b + 0 <= $c + 0 && $c + 0 <= $d + 0 &&
		      $m + 0 <= $d + 0 + 0.001)) {
			print name ": row " NR ": quantiles out of order: " $0; bad = 1
		}
	}
	END { exit bad }' "$2"
}

for f in "${traces[@]}"; do
	name=$(basename "$f")
	n=$((n + 1))
	for from in auto events messages; do
		"$BIN/btslice" --from=$from "$f" >"$tmp/s.tsv" 2>"$tmp/s.err" ||
			{ bad "$name" "btslice --from=$from exit $?: $(head -1 "$tmp/s.err")"; continue; }
		check_quantiles "$name btslice --from=$from" "$tmp/s.tsv" 7 8 9 10 11 || fail=1
		awk -F'\t' -v name="$name" 'NR > 1 && ($12 < 0 || $12 > 1 || $4 < 0 || $6 < 0) {
			print name ": btslice: bad row " $0; bad = 1 } END { exit bad }' \
			"$tmp/s.tsv" || fail=1
		"$BIN/btslice" -e --from=$from "$f" >"$tmp/se.tsv" 2>/dev/null ||
			{ bad "$name" "btslice -e exit $?"; continue; }
		awk -F'\t' -v name="$name" 'NR > 1 && ($4 !~ /^[0-9]+\.[0-9]+$/ ||
			$5 + 0 > $4 + 0 || $6 < 0) {
			print name ": btslice -e: bad episode " $0; bad = 1 } END { exit bad }' \
			"$tmp/se.tsv" || fail=1
	done

	"$BIN/btsync" "$f" >"$tmp/y.tsv" 2>"$tmp/y.err" ||
		{ bad "$name" "btsync exit $?: $(head -1 "$tmp/y.err")"; continue; }
	check_quantiles "$name btsync" "$tmp/y.tsv" 4 5 6 7 8 || fail=1
	awk -F'\t' -v name="$name" 'NR > 1 && $11 + $12 + $13 + $14 != $3 {
		print name ": btsync: kinds do not add up: " $0; bad = 1 } END { exit bad }' \
		"$tmp/y.tsv" || fail=1
	"$BIN/btsync" -e "$f" >"$tmp/ye.tsv" 2>/dev/null || { bad "$name" "btsync -e"; continue; }
	# data + flush = latency, in ns (three decimals of microseconds).
	awk -F'\t' -v name="$name" 'function ns(x) { sub(/\./, "", x); return x + 0 }
		NR > 1 && (ns($5) + ns($6) != ns($4) || $4 ~ /^-/) {
			print name ": btsync -e: data + flush != lat: " $0; bad = 1 }
		END { exit bad }' "$tmp/ye.tsv" || fail=1
	# Distinct closes of flushed episodes <= flush-class completions.
	closes=$(awk -F'\t' 'function ns(x) { sub(/\./, "", x); return x + 0 }
		NR > 1 && $8 !~ /noflush/ { c[ns($1) + ns($4)] = 1 }
		END { print length(c) }' "$tmp/ye.tsv")
	flushes=$("$BIN/btcat" "$f" 2>/dev/null | awk '{ a = $6; r = $7;
		if (a ~ /,/) { a = $7; r = $8 } }
		a == "C" && r ~ /F/ { n++ } END { print n + 0 }')
	if [ "$closes" -gt "$flushes" ]; then
		bad "$name" "$closes flushed episodes closing apart, $flushes flush-class completions"
	fi
	echo "ok: $name: $(($(wc -l <"$tmp/ye.tsv") - 1)) sync episodes," \
		"$closes closes, $flushes flush completions"
done
echo "$n traces checked"
exit $fail
