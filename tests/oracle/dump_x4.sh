#!/bin/bash
# SPDX-License-Identifier: MIT
# A real `blkparse -d` dump of a per-CPU set given four times (every
# record four times, notes written as blkparse reads them and events as
# it sorts them) gives every analysis tool the tables of the trace itself:
# duplicates are records equal to one already read, scheduler messages
# (sequence 0) included.  On the bfq sample traces (cut into per-CPU files
# by tests/cli/btcat/percpu.pl) and mkslice's CFQ trace with blktrace's
# sequences (tests/cli/btcat/repeat.pl -s).
set -u
. "$(dirname "$0")/common.bash"
oracle_need blkparse btslice btsync btmerge btsize btlat
H=$TOP/tests/cli/btcat
MKSLICE=$TOP/${B:-build}/tests/mkslice
[ -x "$MKSLICE" ] || { echo "mkslice not built: $MKSLICE"; exit 77; }

"$MKSLICE" -C -r 8 | perl "$H/repeat.pl" -s 1 >"$tmp/cfq.bin" || exit 1
for t in fsync-vs-readers-bfq pgbench-bfq; do
	gzip -dc "$TOP/sample-traces/$t.bin.gz" >"$tmp/$t.bin" || exit 1
done
cd "$tmp" || exit 1
fail=0
for t in cfq fsync-vs-readers-bfq pgbench-bfq; do
	perl "$H/percpu.pl" "$t-set" <"$t.bin" || exit 1
	blkparse -i "$t-set" -i "$t-set" -i "$t-set" -i "$t-set" \
		-d "$t-x4.bin" -O >/dev/null 2>&1 || { echo "blkparse -d failed"; exit 1; }
	[ "$(stat -c %s "$t-x4.bin")" -eq $((4 * $(stat -c %s "$t.bin"))) ] ||
		{ echo "$t: the dump is not four times the trace"; exit 1; }
	for cmd in "btslice" "btslice -e" "btslice --from=events" "btsync -e" \
		   "btmerge -P" "btsize" "btsize --at=Q" "btlat" "btlat --btt"; do
		$BIN/$cmd "$t.bin" >orig.out 2>/dev/null
		$BIN/$cmd "$t-x4.bin" >x4.out 2>x4.err
		if ! cmp -s orig.out x4.out; then
			echo "$t: $cmd: the 4x dump differs"
			diff orig.out x4.out | head -5
			fail=1
		fi
		grep -q "duplicated records dropped, the first at $t-x4.bin" x4.err ||
			{ echo "$t: $cmd: no warning naming the first copy"; fail=1; }
	done
done
[ $fail = 0 ] && echo "every tool: the 4x dumps give the traces' tables"
exit $fail
