# SPDX-License-Identifier: MIT
# Sourced by tests/live/replay_*.sh: skip unless root with loop devices;
# loop devices only on files in a temporary directory (always detached,
# mounts undone); the tracefs lock other btkit tests share; a trace to
# replay (sample-traces/ when there is one, else fio recorded by btcapture
# on a 64 MiB loop device).

skip() { echo "$1"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

[ "$(id -u)" = 0 ] || skip "not root: live replay tests need root"
command -v losetup >/dev/null || skip "no losetup (util-linux)"
[ -e /dev/loop-control ] || modprobe loop 2>/dev/null
[ -e /dev/loop-control ] || skip "no loop device support"
BTREPLAY=$BTKIT_BIN/btreplay
BTCAPTURE=$BTKIT_BIN/btcapture
BTCAT=$BTKIT_BIN/btcat
for b in "$BTREPLAY" "$BTCAPTURE" "$BTCAT"; do
	[ -x "$b" ] || fail "$b not built"
done

T=$(mktemp -d)
LOOPS=()
MOUNTS=()
KIDS=()
cleanup() {
	local k m l
	for k in "${KIDS[@]}"; do kill "$k" 2>/dev/null; wait "$k" 2>/dev/null; done
	for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null; done
	for l in "${LOOPS[@]}"; do
		case $l in
		/dev/mapper/*) dmsetup remove "${l#/dev/mapper/}" 2>/dev/null ;;
		*) losetup -d "$l" 2>/dev/null ;;
		esac
	done
	rm -rf "$T"
	true
}
trap cleanup EXIT

# Other btkit tests trace too: one at a time, for the whole test.
exec 9>/tmp/btkit-tracefs.lock
flock -w 900 9 || fail "tracefs lock busy for 15 minutes"

# new_loop VAR SIZE_MB: a loop device on a sparse file in $T, its path in
# VAR.  Not through $(...): the list the trap detaches would stay in the
# subshell.
new_loop() {
	local f l
	f=$(mktemp -p "$T" img.XXXX)
	truncate -s "${2}M" "$f"
	l=$(losetup -f --show "$f") || skip "losetup failed"
	LOOPS+=("$l")
	printf -v "$1" '%s' "$l"
}

# kname DEV: kernel name (loop3) of a block device node.
kname() {
	basename "$(readlink -f "/sys/dev/block/$(stat -Lc '%t:%T' "$1" |
		{ IFS=: read -r a b; echo $((16#$a)):$((16#$b)); })")"
}

# sched DISK: the bracketed scheduler of /sys/block/DISK.
sched() { sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/$1/queue/scheduler"; }

# qstats FILE: per-op Q counts and the Q size histogram (op, bytes rounded
# up to a power of two) of a trace, and its preflush/FUA Q counts.
qstats() {
	"$BTCAT" "$1" | awk '
		$6 == "Q" {
			rwbs = $7; bytes = ($9 == "+" ? $10 * 512 : 0)
			op = rwbs; sub(/^F/, "", op); op = substr(op, 1, 1)
			b = 1; while (b < bytes) b *= 2
			if (bytes == 0) b = 0
			h[op " " b]++
			if (rwbs ~ /^F/) pre++
			if (rwbs ~ /^F?[WDRN]F/) fua++
		}
		END {
			for (k in h) print "size", k, h[k]
			print "preflush", pre + 0
			print "fua", fua + 0
		}' | sort
}

# qpids FILE: distinct pids with Q events that carry data or a flush.
qpids() {
	"$BTCAT" "$1" | awk '$6 == "Q" && ($10 > 0 || $7 ~ /^F/) { print $5 }' |
		sort -u | wc -l
}

# get_trace: path of the trace to replay in $TRACE.
get_trace() {
	local s L
	for s in "$TOP"/sample-traces/*fsync*.bin "$TOP"/sample-traces/*fsync*.bin.gz; do
		[ -f "$s" ] && { TRACE=$s; return; }
	done
	command -v fio >/dev/null || skip "no sample trace and no fio to record one"
	grep -qw tracefs /proc/filesystems || skip "no sample trace, no tracefs to record one"
	new_loop L 64
	cat >"$T/job.fio" <<-EOF
	[global]
	filename=$L
	direct=1
	time_based
	runtime=2
	[reader]
	ioengine=psync
	rw=randread
	bs=4k
	rate_iops=300
	[writer]
	ioengine=psync
	rw=randwrite
	bs=8k
	fdatasync=4
	offset=32M
	size=32M
	rate_iops=100
	[aio]
	ioengine=io_uring
	rw=randread
	iodepth=4
	bs=16k
	size=32M
	rate_iops=300
	EOF
	"$BTCAPTURE" -q -d "$L" -o "$T/fio.bin" -- fio --output=/dev/null "$T/job.fio" ||
		skip "btcapture could not record fio (exit $?)"
	TRACE=$T/fio.bin
}

# trace_mb: MiB a device needs for $TRACE (its highest byte, rounded up).
trace_mb() {
	"$BTCAT" "$TRACE" | awk '$6 == "Q" && $9 == "+" { e = ($8 + $10) * 512; if (e > m) m = e }
		END { printf "%d\n", int(m / 1048576) + 1 }'
}

# wait_sched DISK NAME SECS: poll until DISK runs NAME; 1 on timeout.
wait_sched() {
	local i
	for ((i = 0; i < $3 * 100; i++)); do
		[ "$(sched "$1")" = "$2" ] && return 0
		sleep 0.01
	done
	return 1
}

# sched_loop VAR: a loop device sized for the trace, into VAR, with bfq and
# mq-deadline offered (skip without), left on mq-deadline with read_expire
# 321 ms so a test sees what btreplay puts back; sets n (its kernel name)
# and re (read_expire as the kernel keeps it, in jiffies).  On exit the
# device gets back the scheduler and queue depth it had: it outlives its
# detach (a fresh one has none and 128).
sched_loop() {
	new_loop "$1" "$(trace_mb)"
	n=$(kname "${!1}")
	# bfq is a module on Debian kernels: btreplay's switch would load it too.
	grep -qw bfq "/sys/block/$n/queue/scheduler" || modprobe bfq 2>/dev/null
	grep -qw bfq "/sys/block/$n/queue/scheduler" || skip "no bfq scheduler for $n"
	grep -qw mq-deadline "/sys/block/$n/queue/scheduler" || skip "no mq-deadline for $n"
	orig_sched=$(sched "$n")
	orig_nr=$(cat "/sys/block/$n/queue/nr_requests")
	trap restore_loop EXIT
	echo mq-deadline >"/sys/block/$n/queue/scheduler"
	echo 321 >"/sys/block/$n/queue/iosched/read_expire"
	re=$(cat "/sys/block/$n/queue/iosched/read_expire")	# 324 at HZ=250
}
restore_loop() {
	echo "$orig_sched" >"/sys/block/$n/queue/scheduler"
	echo "$orig_nr" >"/sys/block/$n/queue/nr_requests"
	cleanup
}
