#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/fio_iolog.awk, which turns a trace into one fio iolog per traced
# pid for `make bench`'s "fio per process" comparison: on the sample
# traces, each pid's log must hold exactly the bytes btreplay replays for
# that pid (its table's bytes column), and fio must replay the logs onto a
# file without an error, issuing every read, write and trim of them.
set -u
. "$(dirname "$0")/common.bash"
oracle_need btcat btreplay fio
AWK=$TOP/bench/fio_iolog.awk
fail=0

for t in "$TOP"/sample-traces/*.bin "$TOP"/sample-traces/*.bin.gz; do
	[ -e "$t" ] || continue
	name=$(basename "$t")
	rm -rf "$tmp/logs" "$tmp/dev"
	mkdir "$tmp/logs"
	"$BIN/btcat" "$t" >"$tmp/trace.txt" || { echo "FAIL $name: btcat"; fail=1; continue; }
	size=$(awk '$6 == "Q" && $9 == "+" { e = ($8 + $10) * 512; if (e > m) m = e }
		END { printf "%.0f\n", m + 1048576 }' "$tmp/trace.txt")
	truncate -s "$size" "$tmp/dev"
	pids=$(awk -v dir="$tmp/logs" -v dev="$tmp/dev" -f "$AWK" "$tmp/trace.txt")
	# btreplay's bytes per pid, onto the same sparse file.
	if ! "$BIN/btreplay" -H --device "$tmp/dev" --write --no-stall "$t" >"$tmp/bt" 2>"$tmp/bt.err"; then
		echo "FAIL $name: btreplay: $(cat "$tmp/bt.err")"
		fail=1
		continue
	fi
	awk '$1 != "total" { print $1, $4 }' "$tmp/bt" | sort >"$tmp/want"
	for pid in $pids; do
		awk -v p="$pid" '$2 ~ /^(read|write|trim)$/ { b += $4 }
			END { printf "%s %.0f\n", p, b }' "$tmp/logs/$pid.log"
	done | sort >"$tmp/got"
	if ! cmp -s "$tmp/want" "$tmp/got"; then
		echo "FAIL $name: bytes per pid differ (btreplay vs fio logs):"
		diff "$tmp/want" "$tmp/got" | head -10
		fail=1
		continue
	fi
	args=()
	for pid in $pids; do
		args+=(--name="p$pid" --read_iolog="$tmp/logs/$pid.log")
	done
	if ! fio --ioengine=psync --replay_no_stall=1 --group_reporting \
		--output-format=json "${args[@]}" >"$tmp/fio.out" 2>"$tmp/fio.err"; then
		echo "FAIL $name: fio: $(head -3 "$tmp/fio.err")"
		fail=1
		continue
	fi
	want=$(cat "$tmp"/logs/*.log | awk '$2 ~ /^(read|write|trim)$/' | wc -l)
	# The one (grouped) job: its error, and io_bytes of read, write, trim.
	got=$(awk -F: '/"error" :/ { gsub(/[ ,]/, "", $2); e = $2 }
		/"io_bytes" :/ { gsub(/[ ,]/, "", $2); b += $2 }
		END { printf "%s %.0f\n", e, b }' "$tmp/fio.out")
	bytes=$(awk '{ s += $2 } END { printf "%.0f\n", s }' "$tmp/want")
	if [ "$got" != "0 $bytes" ]; then
		echo "FAIL $name: fio replayed (error, bytes) $got, want 0 $bytes"
		fail=1
		continue
	fi
	echo "ok $name: $(echo "$pids" | wc -w) pids, $want I/Os, $bytes bytes in both"
done
exit $fail
