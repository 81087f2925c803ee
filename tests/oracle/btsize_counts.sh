#!/bin/bash
# SPDX-License-Identifier: MIT
# btsize's histograms against the events counted from blkparse's text: on
# every trace in sample-traces/ and $BTKIT_TRACES/*/ when set (and the synthetic
# traces of tests/cli/btmerge/mkreq.pl and tests/cli/btsize/mkpc.pl, SCSI
# pass-through commands never completed), each (device, op, power-of-two
# bucket) count of `btsize` must equal the D lines of `blkparse -q` in that
# bucket, and those of `btsize --at=Q` the Q lines; the counts of every
# device and op add up to the number of D (or Q) lines.  Op from the rwbs
# column: D discard, F a flush without data, N anything else without
# data, W write, R read; bytes from "+ N" sectors, or for pass-through (PC)
# lines from the number after the rwbs (`D   N 0 [gnome-disks]`).
# blkparse 1.2.0 drops cgroup-flagged records ("Bad fs action",
# btkit-format(5) "ORACLE QUIRKS"): for such traces the lines of btcat, which
# prints them, are counted instead, and the test says so.
set -u
. "$(dirname "$0")/common.bash"
oracle_need blkparse btsize btcat

perl "$TOP/tests/cli/btmerge/mkreq.pl" >"$tmp/mkreq.bin" || exit 1
perl "$TOP/tests/cli/btsize/mkpc.pl" >"$tmp/mkpc.bin" || exit 1
oracle_traces "$tmp/mkreq.bin" "$tmp/mkpc.bin"

# "dev op lo hi count" for the lines of action ACT, pass-through included.
count_awk='
$6 == act {
	if ($9 == "+") b = $10 * 512
	else if ($8 ~ /^[0-9]+$/) b = $8
	else b = 0
	if ($7 ~ /D/) op = "D"
	else if (b == 0) op = ($7 ~ /^F/) ? "F" : "N"
	else if ($7 ~ /W/) op = "W"
	else op = "R"
	lo = 0; hi = 0
	if (b > 0) { lo = 1; while (lo * 2 <= b) lo *= 2; hi = lo * 2 - 1 }
	n[$1 " " op " " lo " " hi]++
}
END { for (k in n) print k, n[k] }'

failed=0
for f in "${traces[@]}"; do
	oracle_open "$f" || { failed=1; continue; }
	timeout 300 blkparse -q -i - <"$plain" >"$tmp/lines" 2>"$tmp/bp.err"
	bad_fs=$(cat "$tmp/lines" "$tmp/bp.err" | grep -c 'Bad fs action')
	if [ "$bad_fs" -gt 0 ]; then
		echo "note $name: blkparse 1.2.0 drops $bad_fs cgroup-flagged records: counting btcat's lines"
		"$BIN/btcat" "$f" >"$tmp/lines" 2>/dev/null
	fi
	bad=0 msg=
	for at in D Q; do
		awk -v act="$at" "$count_awk" "$tmp/lines" | sort >"$tmp/want"
		"$BIN/btsize" -H --at=$at "$f" 2>/dev/null |
			awk '$5 > 0 { print $1, $2, $3, $4, $5 }' | sort >"$tmp/got"
		lines=$(awk -v act="$at" '$6 == act' "$tmp/lines" | wc -l)
		sum=$(awk '{ s += $5 } END { print s + 0 }' "$tmp/got")
		msg="${msg}${msg:+, }$lines $at"
		if ! cmp -s "$tmp/want" "$tmp/got"; then
			echo "FAIL $name --at=$at: btsize differs from the $at lines"
			diff "$tmp/want" "$tmp/got" | head -10 | sed 's/^/    /'
			bad=1
		elif [ "$sum" -ne "$lines" ]; then
			echo "FAIL $name --at=$at: counts add up to $sum, $lines $at lines"
			bad=1
		fi
	done
	[ $bad -eq 0 ] && echo "ok $name: $msg lines counted alike"
	failed=$((failed | bad))
done
exit $failed
