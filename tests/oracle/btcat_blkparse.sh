#!/bin/bash
# SPDX-License-Identifier: MIT
# btcat against Debian's blkparse 1.2.0: for every trace in sample-traces/
# and $BTKIT_TRACES/*/ when set (and the synthetic trace of tests/cli/btcat), the
# event lines of `blkparse -q -i - < TRACE` must equal `btcat
# --blkparse=1.2 TRACE` byte for byte.  The documented 1.3.0 cases (lines
# of cgroup-flagged records, which 1.2.0 drops) are counted and printed:
# they are the lines the default output adds, and it may add nothing else.
# `btcat -s` must also equal `blkparse -s` (events and statistics).
#
# Trace files: NAME.blktrace.N (per-CPU files), NAME.bin, NAME.dump (one
# stream), any of them with .gz (decompressed to a file for blkparse: fed
# through a pipe, blkparse's batches would depend on read timing).  Each
# per-CPU set is also compared as a whole: `blkparse -q -i NAME` (file
# mode) against `btcat NAME`.  When btgen (bench/) is built, a generated
# trace of 200000 events joins in, as one stream and as a per-CPU set.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# BTKIT_TRACES: optional directory of further traces (one folder per trace
# under it) to check as well, e.g. real traces kept outside the repository.
extra_traces=${BTKIT_TRACES:+$BTKIT_TRACES/*/*}
BTCAT=${BTKIT_BIN:-$TOP/build/bin}/btcat

if ! command -v blkparse >/dev/null; then
	echo "blkparse not installed (Debian package blktrace)"
	exit 77
fi
if [ ! -x "$BTCAT" ]; then
	echo "btcat not built: $BTCAT"
	exit 77
fi

tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl "$TOP/tests/cli/btcat/mktrace.pl" >"$tmp/synthetic.bin" || exit 1
perl "$TOP/tests/cli/btcat/mktrace.pl" -b >"$tmp/synthetic-be.bin" || exit 1
perl "$TOP/tests/cli/btcat/mktrace.pl" -g >"$tmp/synthetic-gap.bin" || exit 1
# A `blkparse -d` dump: events relative to their first, notes raw.
blkparse -q -O -d "$tmp/synthetic.dump" -i - <"$tmp/synthetic.bin" >/dev/null 2>&1
BTGEN=$TOP/${B:-build}/bench/btgen
if [ -x "$BTGEN" ]; then
	mkdir "$tmp/gen" && "$BTGEN" -n 200000 -o "$tmp/gen" -b gen >/dev/null 2>&1 ||
		exit 1
	blkparse -q -O -d "$tmp/gen/gen.dump" -i - <"$tmp/gen/gen.bin" >/dev/null 2>&1
fi

traces=()
shopt -s nullglob
for f in "$TOP"/sample-traces/* $extra_traces "$tmp"/synthetic* \
	"$tmp"/gen/*; do
	case $f in
	*.blktrace.[0-9]* | *.bin | *.bin.gz | *.dump | *.dump.gz) traces+=("$f") ;;
	esac
done
if [ ${#traces[@]} -eq 0 ]; then
	echo "no traces found"
	exit 77
fi

failed=0 total_lines=0 total_v13=0
for f in "${traces[@]}"; do
	name=${f#"$TOP"/}
	name=${name#"${BTKIT_TRACES:-/nonexistent}"/}
	name=${name/#$tmp\/gen\//btgen -n 200000: }
	name=${name/#$tmp\//tests\/cli\/btcat\/mktrace.pl > }
	plain=$f
	case $f in
	*.gz)
		plain=$tmp/plain
		gzip -dc "$f" >"$plain" || { echo "FAIL $name: gzip -d"; failed=1; continue; }
		;;
	esac
	# blkparse ends with a note on stdout when it met driver data; it is
	# not an event line.
	timeout 300 blkparse -q -i - <"$plain" 2>"$tmp/bp.err" |
		sed '/^$/d; /^discarded traces containing low-level device driver/d' \
		>"$tmp/bp.out"
	"$BTCAT" --blkparse=1.2 "$f" >"$tmp/v12.out" 2>"$tmp/v12.err"
	rc12=$?
	"$BTCAT" "$f" >"$tmp/v13.out" 2>/dev/null
	lines=$(wc -l <"$tmp/v12.out")
	if [ $rc12 -ne 0 ]; then
		echo "FAIL $name: btcat --blkparse=1.2 exit $rc12"
		sed 's/^/    /' "$tmp/v12.err" | head -5
		failed=1
		continue
	fi
	if ! cmp -s "$tmp/bp.out" "$tmp/v12.out"; then
		echo "FAIL $name: btcat --blkparse=1.2 differs from blkparse -q"
		diff "$tmp/bp.out" "$tmp/v12.out" | head -20 | sed 's/^/    /'
		failed=1
		continue
	fi
	# 1.3.0 cases: lines only in the default output; none may go missing.
	# Times apart: by default the origin stays put where blkparse moves
	# it every batch (an origin at time 0, as in `blkparse -d` dumps).
	awk '{ $4 = ""; print }' "$tmp/v12.out" >"$tmp/v12.nt"
	awk '{ $4 = ""; print }' "$tmp/v13.out" >"$tmp/v13.nt"
	diff "$tmp/v12.nt" "$tmp/v13.nt" >"$tmp/d"
	added=$(grep -c '^>' "$tmp/d")
	removed=$(grep -c '^<' "$tmp/d")
	if [ "$removed" -ne 0 ]; then
		echo "FAIL $name: the 1.3.0 output lost $removed lines of 1.2.0's"
		head -10 "$tmp/d" | sed 's/^/    /'
		failed=1
		continue
	fi
	retimed=$(($(diff "$tmp/v12.out" "$tmp/v13.out" | grep -c '^>') - added))
	# -s: the events, then blkparse -s's per-process and per-device
	# statistics (its trailing driver-data note and blank line dropped).
	timeout 300 blkparse -s -i - <"$plain" 2>/dev/null | awk '
		{ l[NR] = $0 }
		END { n = NR; if (l[n] ~ /^discarded traces containing/) n -= 2
		      for (i = 1; i <= n; i++) print l[i] }' >"$tmp/bps.out"
	"$BTCAT" -s --blkparse=1.2 "$f" >"$tmp/v12s.out" 2>/dev/null
	if ! cmp -s "$tmp/bps.out" "$tmp/v12s.out"; then
		echo "FAIL $name: btcat -s --blkparse=1.2 differs from blkparse -s"
		diff "$tmp/bps.out" "$tmp/v12s.out" | head -20 | sed 's/^/    /'
		failed=1
		continue
	fi
	bad=$(grep -c '^Bad \(fs\|pc\) action' "$tmp/bp.err")
	echo "ok $name: $lines lines (and -s statistics) identical to blkparse 1.2.0;" \
		"$added lines skipped as 1.3.0 cases (cgroup-flagged);" \
		"$retimed lines with the origin kept (time-0 origin);" \
		"blkparse complained $bad times"
	total_lines=$((total_lines + lines))
	total_v13=$((total_v13 + added))
done

# Per-CPU sets as a whole: blkparse's file mode.  blkparse drops records
# whose cpu field disagrees with the file name ("cpu N trace info has
# error cpu M"); btcat trusts the records (btkit-format(5)): such sets are
# skipped, and said so.
sets=0
declare -A seen
for f in "${traces[@]}"; do
	case $f in *.blktrace.[0-9]*) ;; *) continue ;; esac
	dir=$(dirname "$f") base=$(basename "$f")
	base=${base%.blktrace.*}
	[ -n "${seen[$dir/$base]:-}" ] && continue
	seen[$dir/$base]=1
	name=$dir/$base
	name=${name#"$TOP"/}
	name=${name#"${BTKIT_TRACES:-/nonexistent}"/}
	name=${name/#$tmp\/gen\//btgen -n 200000: }
	(cd "$dir" && timeout 300 blkparse -q -i "$base") 2>"$tmp/bp.err" |
		sed '/^$/d; /^discarded traces containing low-level device driver/d
		     /^Input file .* added$/d' >"$tmp/bp.out"
	if grep -q 'trace info has error cpu' "$tmp/bp.err"; then
		echo "skip set $name: blkparse drops records whose cpu disagrees with the file name"
		continue
	fi
	(cd "$dir" && "$BTCAT" --blkparse=1.2 "$base") >"$tmp/v12.out" 2>"$tmp/v12.err"
	rc12=$?
	if [ $rc12 -ne 0 ] || ! cmp -s "$tmp/bp.out" "$tmp/v12.out"; then
		echo "FAIL set $name: btcat --blkparse=1.2 (exit $rc12) differs from blkparse -q -i $base"
		diff "$tmp/bp.out" "$tmp/v12.out" | head -20 | sed 's/^/    /'
		failed=1
		continue
	fi
	(cd "$dir" && timeout 300 blkparse -s -i "$base") 2>/dev/null | awk '
		/^Input file .* added$/ { next }
		{ l[++n] = $0 }
		END { if (l[n] ~ /^discarded traces containing/) n -= 2
		      for (i = 1; i <= n; i++) print l[i] }' >"$tmp/bps.out"
	(cd "$dir" && "$BTCAT" -s --blkparse=1.2 "$base") >"$tmp/v12s.out" 2>/dev/null
	if ! cmp -s "$tmp/bps.out" "$tmp/v12s.out"; then
		echo "FAIL set $name: btcat -s differs from blkparse -s -i $base"
		diff "$tmp/bps.out" "$tmp/v12s.out" | head -20 | sed 's/^/    /'
		failed=1
		continue
	fi
	lines=$(wc -l <"$tmp/v12.out")
	echo "ok set $name: $lines lines (and -s statistics) identical to blkparse 1.2.0 (file mode)"
	sets=$((sets + 1))
	total_lines=$((total_lines + lines))
done
echo "${#traces[@]} traces and $sets per-CPU sets: $total_lines identical lines, $total_v13 1.3.0 lines skipped"
exit $failed
