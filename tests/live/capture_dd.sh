#!/bin/bash
# SPDX-License-Identifier: MIT
# btcapture records dd on a loop device: blkparse reads the stream with a
# name for every pid, btcat prints the same lines, dd's pid and comm are in
# it, the per-CPU (-D, its directory made when missing) and gzip (-z)
# outputs read back, and every tracefs and sysfs setting is as before.
set -u
. "$(dirname "$0")/capture_common.bash"

L=$(new_loop 64) || skip "cannot set up a loop device"
state "$L" >"$T/before"

# The merged stream, with dd's pid known.
"$BTCAPTURE" -d "$L" -o "$T/dd.bin" -- sh -c \
	'echo $$ >"$1"; exec dd if=/dev/zero of="$2" bs=4k count=256 oflag=direct status=none' \
	sh "$T/pid" "$L" 2>"$T/err" || { cat "$T/err"; fail "btcapture exit $?"; }
grep -q ' 0 lost' "$T/err" || { cat "$T/err"; fail "summary does not say 0 lost"; }
same_state "$L" "$T/before" "after a capture of dd"
check_trace "$T/dd.bin"
pid=$(cat "$T/pid")
n=$(awk -v p="$pid" '$5 == p && $6 == "Q" && $7 ~ /^W/ && $NF == "[dd]"' "$T/parse.txt" | wc -l)
[ "$n" -ge 256 ] || fail "expected >= 256 write Q events of dd (pid $pid), got $n"
grep -q '^  7,' "$T/parse.txt" || fail "no event of a loop device (major 7)"
same_as_btcat "$T/dd.bin"

# Per-CPU files, gzipped, as blktrace -D writes them; a read this time.
# The directory does not exist yet: made as blktrace -D makes it.
"$BTCAPTURE" -q -z -d "$L" -D "$T/dir" -- \
	dd if="$L" of=/dev/null bs=64k count=64 iflag=direct status=none ||
	fail "btcapture -D -z exit $?"
same_state "$L" "$T/before" "after a -D -z capture"
# One that cannot be made: the message names it, nothing is traced.
: >"$T/file"
"$BTCAPTURE" -q -d "$L" -D "$T/file/dir" -w 1 2>"$T/err"
rc=$?
[ $rc = 1 ] || fail "-D under a file: exit $rc, want 1"
[ "$(cat "$T/err")" = "btcapture: $T/file/dir: cannot create the directory: Not a directory" ] ||
	fail "-D under a file: $(cat "$T/err")"
same_state "$L" "$T/before" "after a -D that could not be made"
name=$(basename "$L")
ncpu=$(getconf _NPROCESSORS_CONF)
for ((c = 0; c < ncpu; c++)); do
	[ -f "$T/dir/$name.blktrace.$c.gz" ] || fail "missing $name.blktrace.$c.gz"
	gunzip "$T/dir/$name.blktrace.$c.gz"
done
(cd "$T/dir" && blkparse -i "$name" >"$T/dir.txt" 2>"$T/dir.err") ||
	{ cat "$T/dir.err"; fail "blkparse -i $name failed on the per-CPU files"; }
grep -q '(null)' "$T/dir.txt" && fail "per-CPU files: (null) names"
n=$(awk '$6 == "Q" && $7 ~ /^R/ && $NF == "[dd]"' "$T/dir.txt" | wc -l)
[ "$n" -ge 64 ] || fail "per-CPU files: expected >= 64 read Q of dd, got $n"

# Two devices in one stream: each device's events and PROCESS notes.
L2=$(new_loop 64) || skip "cannot set up a loop device"
state "$L2" >"$T/before2"
"$BTCAPTURE" -q -d "$L" -d "$L2" -o - -- sh -c \
	'dd if=/dev/zero of="$1" bs=4k count=10 oflag=direct status=none
	 dd if=/dev/zero of="$2" bs=4k count=20 oflag=direct status=none' \
	sh "$L" "$L2" >"$T/two.bin" || fail "two devices: exit $?"
check_trace "$T/two.bin"
for d in "$L:10" "$L2:20"; do
	mm=$(stat -c '%t %T' "${d%:*}" | { read -r a b; echo $((16#$a)),$((16#$b)); })
	n=$(awk -v d="$mm" '$1 == d && $6 == "Q" && $NF == "[dd]"' "$T/parse.txt" | wc -l)
	[ "$n" = "${d#*:}" ] || fail "two devices: $n Q of dd on $mm, want ${d#*:}; Q by name there: $(awk -v d="$mm" '$1 == d && $6 == "Q" { print $NF }' "$T/parse.txt" | sort | uniq -c | tr '\n' ' ')"
done
same_as_btcat "$T/two.bin"
same_state "$L" "$T/before" "first device after a two-device capture"
same_state "$L2" "$T/before2" "second device after a two-device capture"

# -a: only the categories asked for (here completions).
"$BTCAPTURE" -q -a complete -d "$L" -o "$T/c.bin" -- \
	dd if="$L" of=/dev/null bs=4k count=20 iflag=direct status=none ||
	fail "-a complete: exit $?"
check_trace "$T/c.bin"
acts=$(blkparse -q -i - <"$T/c.bin" | awk '{print $6}' | sort | uniq -c | tr -s ' ')
[ "$acts" = " 20 C" ] || fail "-a complete recorded: $acts"

# -z on the merged stream: gzip of what blkparse reads.
"$BTCAPTURE" -q -z -d "$L" -o "$T/dd.bin.gz" -w 1 ||
	fail "btcapture -z -w 1 exit $?"
gzip -t "$T/dd.bin.gz" || fail "-z output is not gzip"
gunzip -c "$T/dd.bin.gz" >"$T/w.bin"
check_trace "$T/w.bin"
same_state "$L" "$T/before" "after -w 1"
finish
