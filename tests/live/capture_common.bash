# SPDX-License-Identifier: MIT
# Sourced by tests/live/capture_*.sh: skip unless root with loop devices and
# the tracefs blk tracer; a loop device on a temporary file (always
# detached); the tracefs lock other btkit tests share; snapshots of every
# tracefs and sysfs setting btcapture may touch.

skip() { echo "$1"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

[ "$(id -u)" = 0 ] || skip "not root: live capture tests need root"
command -v losetup >/dev/null || skip "no losetup (util-linux)"
[ -e /dev/loop-control ] || modprobe loop 2>/dev/null
[ -e /dev/loop-control ] || skip "no loop device support"
grep -qw tracefs /proc/filesystems || skip "kernel without tracefs"
command -v blkparse >/dev/null || skip "no blkparse (Debian package blktrace)"
BTKIT_BIN=${BTKIT_BIN:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/bin}
BTCAPTURE=$BTKIT_BIN/btcapture
[ -x "$BTCAPTURE" ] || fail "$BTCAPTURE not built"

T=$(mktemp -d)
# new_loop runs in $(...): the devices are listed in a file, not a variable.
cleanup() {
	local l
	[ -f "$T/loops" ] && while read -r l; do losetup -d "$l"; done <"$T/loops"
	rm -rf "$T"
	[ -n "${MOUNTED_TRACEFS:-}" ] && umount /sys/kernel/tracing 2>/dev/null
	true
}
trap cleanup EXIT

# Other btkit tests trace too: one at a time.
exec 9>/tmp/btkit-tracefs.lock
flock -w 900 9 || fail "tracefs lock busy for 15 minutes"

TRACEFS=/sys/kernel/tracing
if ! [ -e $TRACEFS/trace_pipe ]; then
	mount -t tracefs nodev $TRACEFS || skip "cannot mount tracefs"
	MOUNTED_TRACEFS=1
fi
grep -qw blk $TRACEFS/available_tracers ||
	skip "kernel without the blk tracer (CONFIG_BLK_DEV_IO_TRACE)"
[ "$(cat $TRACEFS/current_tracer)" = nop ] ||
	skip "tracer $(cat $TRACEFS/current_tracer) in use by someone else"

# new_loop SIZE_MB: a loop device (direct I/O) on a file in $T.
new_loop() {
	local f l
	f=$(mktemp -p "$T" img.XXXX)
	truncate -s "${1}M" "$f"
	l=$(losetup -f --show --direct-io=on "$f") || return 1
	echo "$l" >>"$T/loops"
	echo "$l"
}

# buf_pages VALUE TOP: the per-CPU ring buffer, in the kernel's 4080-byte
# pages, that buffer_size_kb VALUE stands for when the top-level
# buffer_size_kb reads TOP.  A freshly booted kernel keeps the buffer
# unexpanded: TOP reads "7 (expanded: 1408)" and each per_cpu file only
# "7".  The first use of tracing (any tracer or event, btcapture's too)
# expands every CPU to the 1408 KB, and the kernel has no way back to the
# unexpanded state; writing 7 would leave a 7 KB buffer for the next user,
# who would otherwise get 1408.  So an unexpanded buffer counts as the size
# its first use gives it, which is what btcapture writes back; a size
# written back reads 1410 KB for the same 354 pages.
buf_pages() {
	local v=$1 kb
	case $2 in *expanded:*) v=$2 ;; esac
	case $v in *expanded:*) kb=${v##*expanded: }; kb=${kb%)} ;; *) kb=$v ;; esac
	echo $(((kb * 1024 + 4079) / 4080))
}
# The boot state cannot be made again without a reboot: check the counting
# on the strings a fresh kernel shows.
[ "$(buf_pages 7 '7 (expanded: 1408)')" = 354 ] &&
	[ "$(buf_pages '7 (expanded: 1408)' '7 (expanded: 1408)')" = 354 ] &&
	[ "$(buf_pages 1410 1410)" = 354 ] && [ "$(buf_pages 7 7)" = 2 ] ||
	fail "buf_pages: boot-time buffer_size_kb miscounted"
case $(cat $TRACEFS/buffer_size_kb) in
*expanded:*) echo "note: tracefs ring buffer unexpanded (boot state): compared as its expanded size" ;;
esac

# state DEV: every setting btcapture may change (the ring buffer as
# buf_pages counts it).
state() {
	local f top n
	echo "current_tracer=$(cat $TRACEFS/current_tracer)"
	echo "trace_clock=$(cat $TRACEFS/trace_clock)"
	echo "tracing_on=$(cat $TRACEFS/tracing_on)"
	echo "set_event=$(cat $TRACEFS/set_event)"
	for f in $TRACEFS/options/*; do echo "${f##*/}=$(cat "$f")"; done
	top=$(cat $TRACEFS/buffer_size_kb)
	for f in $TRACEFS/per_cpu/cpu*/buffer_size_kb $TRACEFS/buffer_size_kb; do
		echo "$f pages=$(buf_pages "$(cat "$f")" "$top")"
	done
	n=$(basename "$(readlink -f "/sys/dev/block/$(stat -c '%t:%T' "$1" |
		{ IFS=: read -r a b; echo $((16#$a)):$((16#$b)); })")")
	for f in /sys/block/$n/trace/*; do echo "$n ${f##*/}=$(cat "$f")"; done
	echo "$n scheduler=$(cat /sys/block/$n/queue/scheduler)"
	mountpoint -q /sys/kernel/debug && echo "debugfs mounted"
	[ -e /sys/kernel/debug/block/$n/trace0 ] && echo "relay files exist"
	true
}

# same_state DEV BEFORE: the state now equals BEFORE (a file).
same_state() {
	state "$1" >"$T/after"
	diff -u "$2" "$T/after" || fail "tracefs/sysfs state changed: $3"
}

# check_trace FILE: blkparse reads it cleanly, every pid has a name.
check_trace() {
	local out=$T/parse.txt
	blkparse -i - <"$1" >"$out" 2>"$T/parse.err" || fail "blkparse failed on $1"
	[ -s "$T/parse.err" ] && { cat "$T/parse.err"; fail "blkparse complained on $1"; }
	grep -q '(null)' "$out" && fail "$1: events without a PROCESS note: $(grep -m3 '(null)' "$out")"
	grep -q 'Bad fs action' "$out" && fail "$1: blkparse: Bad fs action"
	true
}

# same_as_btcat FILE: btcat's lines are blkparse's; loud when btcat is missing.
BTCAT_MISSING=
same_as_btcat() {
	if ! [ -x "$BTKIT_BIN/btcat" ]; then
		echo "WARNING: $BTKIT_BIN/btcat missing: btcat comparison NOT done"
		BTCAT_MISSING=1
		return
	fi
	blkparse -q -i - <"$1" >"$T/bp.txt" || fail "blkparse -q failed"
	"$BTKIT_BIN/btcat" "$1" >"$T/bc.txt" || fail "btcat failed on $1"
	cmp -s "$T/bp.txt" "$T/bc.txt" ||
		{ diff "$T/bp.txt" "$T/bc.txt" | head; fail "btcat differs from blkparse on $1"; }
}

# finish: the tests passed; a skipped btcat comparison makes it a skip.
finish() {
	[ -n "$BTCAT_MISSING" ] && skip "all else passed, but btcat comparison skipped: btcat not built"
	echo "ok"
	exit 0
}
