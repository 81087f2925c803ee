#!/bin/bash
# SPDX-License-Identifier: MIT
# Record the sample traces with btcapture on loop devices backed by files in
# a temporary directory (never a real disk).  Root only.
#   sample-traces/record.sh [fio|pgbench|all]    (default all)
# Writes fsync-vs-readers-{bfq,none}.bin.gz and pgbench-{bfq,none}.bin.gz
# next to this script.  Needs fio, and for pgbench Debian's postgresql.
# Serialised with the other btkit tracers by /tmp/btkit-tracefs.lock.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(dirname "$HERE")
BTCAPTURE=${BTCAPTURE:-$TOP/build/bin/btcapture}
what=${1:-all}
[ "$(id -u)" = 0 ] || { echo "record.sh: needs root" >&2; exit 1; }
[ -x "$BTCAPTURE" ] || { echo "record.sh: build btcapture first (make)" >&2; exit 1; }

T=$(mktemp -d)
LOOP=
PGBIN=
CG=/sys/fs/cgroup/memory/btkit-pgbench
cleanup() {
	set +e
	if [ -n "$PGBIN" ] && [ -f "$T/mnt/pgdata/postmaster.pid" ]; then
		runuser -u postgres -- "$PGBIN/pg_ctl" -D "$T/mnt/pgdata" -m fast stop >/dev/null
	fi
	mountpoint -q "$T/mnt" && umount "$T/mnt"
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	[ -d "$CG" ] && rmdir "$CG"
	rm -rf "$T"
}
trap cleanup EXIT
exec 9>/tmp/btkit-tracefs.lock
flock 9

sched() { echo "$2" >"/sys/block/$(basename "$1")/queue/scheduler"; }

# a) four O_DIRECT random readers and one writer calling fdatasync after
# every 4 KiB write, on a raw loop device; readers rate-limited so that a
# 5-second trace stays small.
record_fio() {
	local s
	truncate -s 1G "$T/fio.img"
	LOOP=$(losetup -f --show --direct-io=on "$T/fio.img")
	# something to read: fill the first 512 MiB
	dd if=/dev/urandom of="$LOOP" bs=1M count=512 oflag=direct status=none
	for s in bfq none; do
		sched "$LOOP" $s
		"$BTCAPTURE" -z -d "$LOOP" -o "$HERE/fsync-vs-readers-$s.bin.gz" -- \
			fio --output=/dev/null --filename="$LOOP" --time_based --runtime=5 \
			--name=reader --rw=randread --bs=4k --direct=1 --ioengine=psync \
			--size=512m --numjobs=4 --rate_iops=150 \
			--name=writer --rw=write --bs=4k --ioengine=psync --fdatasync=1 \
			--offset=512m --size=256m --numjobs=1 --rate_iops=100
	done
	sched "$LOOP" none
	losetup -d "$LOOP"
	LOOP=
}

# b) pgbench, 8 clients, on PostgreSQL whose data directory is ext4 on a
# loop device; the server runs in a memory cgroup of 160 MiB (page cache
# included) with shared_buffers 16 MB, so reads reach the device.
record_pgbench() {
	local s
	PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
	[ -x "$PGBIN/pg_ctl" ] || { echo "record.sh: apt-get install postgresql" >&2; exit 1; }
	truncate -s 2G "$T/pg.img"
	LOOP=$(losetup -f --show --direct-io=on "$T/pg.img")
	mkfs.ext4 -q "$LOOP"
	mkdir -p "$T/mnt" "$T/sock"
	mount "$LOOP" "$T/mnt"
	mkdir "$T/mnt/pgdata"
	chown postgres: "$T/mnt/pgdata" "$T/sock"
	chmod 755 "$T"
	runuser -u postgres -- "$PGBIN/initdb" -D "$T/mnt/pgdata" >/dev/null 2>&1
	mkdir -p "$CG"
	echo $((160 << 20)) >"$CG/memory.limit_in_bytes"
	pgc() { runuser -u postgres -- "$PGBIN/$@"; }
	(echo $BASHPID >"$CG/cgroup.procs"
	 pgc pg_ctl -D "$T/mnt/pgdata" -l "$T/sock/pg.log" -w start \
		-o "-k $T/sock -p 5499 -c listen_addresses= -c shared_buffers=16MB")
	runuser -u postgres -- "$PGBIN/pgbench" -h "$T/sock" -p 5499 -i -s 50 -q postgres 2>/dev/null
	for s in bfq none; do
		sched "$LOOP" $s
		sync
		echo 3 >/proc/sys/vm/drop_caches
		(echo $BASHPID >"$CG/cgroup.procs"
		 exec "$BTCAPTURE" -z -d "$LOOP" -o "$HERE/pgbench-$s.bin.gz" -- \
			runuser -u postgres -- "$PGBIN/pgbench" -h "$T/sock" -p 5499 \
			-c 8 -j 2 -T 5 postgres) | grep -E '^(tps|number of transactions actually)' || true
	done
	pgc pg_ctl -D "$T/mnt/pgdata" -m fast stop >/dev/null
	PGBIN=
	umount "$T/mnt"
	losetup -d "$LOOP"
	LOOP=
}

case $what in
fio) record_fio ;;
pgbench) record_pgbench ;;
all) record_fio; record_pgbench ;;
*) echo "usage: record.sh [fio|pgbench|all]" >&2; exit 2 ;;
esac
ls -l "$HERE"/*.bin.gz
