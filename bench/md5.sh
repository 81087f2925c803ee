#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/md5.sh DIR...: the md5 of every tool's output on the bench traces
# (DIR/bench.bin, btgen's disk model, and DIR/merge.bin, the merge-heavy
# one; either may be absent), one line "md5  tool args  trace" each.  Run
# before and after a change to the engines: `diff` of the two listings
# shows any output that moved.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=$TOP/${B:-build}/bin
export LC_ALL=C

run() {
	local trace=$1
	shift
	printf '%s  %s  %s\n' "$("$@" "$trace" 2>&1 | md5sum | cut -d' ' -f1)" \
		"${*#"$BIN"/}" "$(basename "$trace")"
}

for dir in "$@"; do
	for trace in "$dir"/bench.bin "$dir"/merge.bin; do
		[ -f "$trace" ] || continue
		run "$trace" "$BIN"/btcat
		run "$trace" "$BIN"/btcat -c
		run "${trace%.bin}" "$BIN"/btcat
		run "$trace" "$BIN"/btlat
		run "$trace" "$BIN"/btlat --btt
		run "$trace" "$BIN"/btlat -j
		run "$trace" "$BIN"/btlat -P
		run "$trace" "$BIN"/btlat -e
		run "$trace" "$BIN"/btmerge
		run "$trace" "$BIN"/btsize
		run "$trace" "$BIN"/btslice
		run "$trace" "$BIN"/btsync
		for k in heatmap offset iops depth waits; do
			[ -x "$BIN"/btplot ] && run "$trace" "$BIN"/btplot -k "$k"
		done
	done
done
