#!/bin/bash
# SPDX-License-Identifier: MIT
# btcapture records 10 s of fio (two synchronous random readers) on
# a loop device at default settings without losing an event; every fio
# job's pid appears with its name; blkparse and btcat agree.  Prints the
# sustained event rate.
set -u
. "$(dirname "$0")/capture_common.bash"
command -v fio >/dev/null || skip "no fio"

L=$(new_loop 256) || skip "cannot set up a loop device"
state "$L" >"$T/before"
"$BTCAPTURE" -d "$L" -o "$T/fio.bin" -- fio --name=r --filename="$L" \
	--rw=randread --bs=4k --direct=1 --ioengine=psync \
	--numjobs=2 --time_based --runtime=10 --output="$T/fio.out" \
	--output-format=json 2>"$T/err"
rc=$?
cat "$T/err"
[ $rc = 0 ] || fail "btcapture exit $rc (events lost or fio failed)"
grep -q ' 0 lost' "$T/err" || fail "summary does not say 0 lost"
same_state "$L" "$T/before" "after the fio capture"
check_trace "$T/fio.bin"
# fio's job processes: the pids that queued I/O, all named fio.
q=$(awk '$6 == "Q" {print $5, $NF}' "$T/parse.txt" | sort -u)
echo "queuing pids: $q"
[ "$(echo "$q" | grep -c ' \[fio\]$')" -ge 2 ] || fail "expected two fio jobs queuing I/O"
echo "$q" | grep -v ' \[fio\]$' | grep . && fail "I/O queued by something else than fio"
same_as_btcat "$T/fio.bin"
rm -f "$T/fio.bin"

# Under bfq its messages more than double the records: still none lost.
n=$(basename "$(readlink -f "/sys/dev/block/$(stat -c '%t:%T' "$L" |
	{ IFS=: read -r a b; echo $((16#$a)):$((16#$b)); })")")
old=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/block/$n/queue/scheduler)
if grep -qw bfq /sys/block/$n/queue/scheduler; then
	echo bfq >/sys/block/$n/queue/scheduler
	"$BTCAPTURE" -d "$L" -o "$T/bfq.bin" -- fio --name=r --filename="$L" \
		--rw=randread --bs=4k --direct=1 --ioengine=psync --numjobs=2 \
		--time_based --runtime=10 --output=/dev/null 2>"$T/err"
	rc=$?
	echo "$old" >/sys/block/$n/queue/scheduler
	cat "$T/err"
	[ $rc = 0 ] || fail "bfq: btcapture exit $rc (events lost or fio failed)"
	grep -q ' 0 lost' "$T/err" || fail "bfq: summary does not say 0 lost"
	notes=$(sed -n 's/.* events, \([0-9]*\) notes,.*/\1/p' "$T/err")
	[ "${notes:-0}" -gt 1000 ] || fail "bfq: no scheduler messages recorded"
	same_state "$L" "$T/before" "after the bfq capture"
else
	echo "bfq not available: bfq capture not done"
fi
finish
