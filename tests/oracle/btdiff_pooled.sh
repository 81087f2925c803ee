#!/bin/bash
# SPDX-License-Identifier: MIT
# btdiff pools a group's samples before taking percentiles: on the pgbench
# sample traces (bfq and none), the postgres group's fsync_p50_us and
# fsync_p99_us must equal the nearest-rank median and 99th percentile of
# every backend's episodes together, computed here from `btsync -e` with
# awk and sort alone (valid episodes: kind without "+invalid").  The mean
# of the backends' own medians must differ from it, or the check would not
# tell pooling from averaging.  The same for slice waits against
# `btslice -e --from=events` pooled (within 1/128 of the value: past 1024
# samples percentiles come from buckets, btkit(7) "Percentiles"), and the
# all group's request latency against btlat's "all" row of the device.
# Exit 0 pass, 1 fail, 77 skip.
set -u
. "$(dirname "$0")/common.bash"
for t in btdiff btsync btslice btlat; do
	if [ ! -x "$BIN/$t" ]; then
		echo "$t not built: $BIN/$t"
		exit 77
	fi
done
A=$TOP/sample-traces/pgbench-bfq.bin.gz
B=$TOP/sample-traces/pgbench-none.bin.gz
fail=0

# nearest_rank Q: the ceil(Q*n)-th smallest of the numbers on stdin, as %.3f.
nearest_rank() {
	sort -g | awk -v q="$1" '{ v[NR] = $1 }
	END {
		if (!NR) exit 1
		r = q * NR; k = int(r); if (k < r) k++; if (k < 1) k = 1
		printf "%.3f\n", v[k]
	}'
}

"$BIN/btdiff" -m fsync_episodes,fsync_p50_us,fsync_p99_us,slice_source,slice_wait_p50_us,slice_wait_p99_us,q2c_p50_us,q2c_p99_us,d2c_p50_us "$A" "$B" \
	>"$tmp/diff.tsv" 2>/dev/null || { echo "FAIL: btdiff exit $?"; exit 1; }
col=3
for t in "$A" "$B"; do
	"$BIN/btsync" -e "$t" | awk -F'\t' 'NR > 1 && $3 == "postgres" &&
		$8 !~ /invalid/ { print $2 "\t" $4 }' >"$tmp/eps" || exit 1
	n=$(wc -l <"$tmp/eps")
	p50=$(cut -f2 "$tmp/eps" | nearest_rank 0.5)
	p99=$(cut -f2 "$tmp/eps" | nearest_rank 0.99)
	# Per backend medians, then their mean: what pooling must not give.
	avg=$(sort -k1,1n -k2,2g "$tmp/eps" | awk -F'\t' '
		{ v[$1, ++c[$1]] = $2 }
		END {
			for (p in c) {
				r = c[p] / 2; k = int(r); if (k < r) k++
				s += v[p, k]; m++
			}
			printf "%.3f\n", s / m
		}')
	got() { awk -F'\t' -v g="${2:-postgres}" -v m="$1" -v c=$col '$1 == g && $2 == m { print $c }' "$tmp/diff.tsv"; }
	name=$(basename "$t")
	[ "$n" -gt 100 ] || { echo "FAIL: $name: only $n postgres episodes"; fail=1; }
	[ "$(got fsync_episodes)" = "$n" ] ||
		{ echo "FAIL: $name: episodes $(got fsync_episodes), btsync -e has $n"; fail=1; }
	[ "$(got fsync_p50_us)" = "$p50" ] ||
		{ echo "FAIL: $name: fsync_p50_us $(got fsync_p50_us), pooled median $p50"; fail=1; }
	[ "$(got fsync_p99_us)" = "$p99" ] ||
		{ echo "FAIL: $name: fsync_p99_us $(got fsync_p99_us), pooled p99 $p99"; fail=1; }
	[ "$avg" != "$p50" ] ||
		{ echo "FAIL: $name: mean of per-backend medians equals the pooled one ($p50): no test"; fail=1; }
	# Slice waits: events on both sides (none has no scheduler messages).
	[ "$(got slice_source all)" = events ] ||
		{ echo "FAIL: $name: slice_source $(got slice_source all)"; fail=1; }
	"$BIN/btslice" -e --from=events "$t" | awk -F'\t' 'NR > 1 &&
		$3 == "postgres" { print $4 }' >"$tmp/waits" || exit 1
	for q in 0.5:slice_wait_p50_us 0.99:slice_wait_p99_us; do
		want=$(nearest_rank "${q%%:*}" <"$tmp/waits")
		have=$(got "${q#*:}")
		awk -v a="$have" -v b="$want" 'BEGIN {
			d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= b / 128) }' ||
			{ echo "FAIL: $name: ${q#*:} $have, pooled btslice -e $want"; fail=1; }
	done
	# Latency of all: btlat's per-request distributions of the one device.
	"$BIN/btlat" "$t" >"$tmp/lat" || exit 1
	for m in q2c:p50:6 q2c:p99:8 d2c:p50:6; do
		IFS=: read -r what pct c <<<"$m"
		want=$(awk -F'\t' -v w="$what" -v c="$c" '$2 == "all" && $3 == w { print $c }' "$tmp/lat")
		[ "$(got "${what}_${pct}_us" all)" = "$want" ] ||
			{ echo "FAIL: $name: all ${what}_${pct}_us $(got "${what}_${pct}_us" all), btlat $want"; fail=1; }
	done
	echo "$name: postgres $n episodes, pooled p50 $p50 us p99 $p99 us (mean of backend medians $avg)"
	col=$((col + 1))
done
exit $fail
