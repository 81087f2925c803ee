#!/bin/bash
# SPDX-License-Identifier: MIT
# Every btplot kind on every sample trace (and each bfq/none pair side by
# side) is well-formed XML by xmllint and renders with rsvg-convert
# (librsvg2-bin) to a 1200-pixel-wide PNG that is not blank: several times
# the size of a blank render, and for the pairs, decoded with python3's
# zlib (no imaging library needed), more than a handful of distinct
# colours and some dark (axis, text) pixels.  Skips with exit 77 and the
# reason when a renderer is missing.
set -u
. "$(dirname "$0")/common.bash"
for t in xmllint rsvg-convert python3; do
	if ! command -v "$t" >/dev/null; then
		echo "$t not installed (Debian packages libxml2-utils, librsvg2-bin, python3)"
		exit 77
	fi
done
[ -x "$BIN/btplot" ] || { echo "btplot not built: $BIN/btplot"; exit 77; }
oracle_traces
fail=0 n=0

# pngcheck FILE: "WIDTH COLOURS DARK" (tests/oracle/pngstat.py).
pngcheck() {
	python3 "$TOP/tests/oracle/pngstat.py" "$1"
}

# check NAME SVG [decode]: well-formed, renders, PNG much larger than the
# render of a blank picture of the same size; with decode, also more than
# a handful of colours and some dark (axis, text) pixels (slow in Python,
# so only for the pairs).
check() {
	local name=$1 svg=$2 res size blank dims
	n=$((n + 1))
	if ! xmllint --noout "$svg" 2>"$tmp/xml.err"; then
		echo "FAIL $name: not well-formed"; head -3 "$tmp/xml.err"; fail=1; return
	fi
	if ! rsvg-convert -w 1200 "$svg" -o "$tmp/p.png" 2>"$tmp/rsvg.err"; then
		echo "FAIL $name: rsvg-convert"; head -3 "$tmp/rsvg.err"; fail=1; return
	fi
	dims=$(grep -o -m1 'width="[0-9.]*" height="[0-9.]*"' "$svg")
	printf '<svg xmlns="http://www.w3.org/2000/svg" %s><rect width="100%%" height="100%%" fill="#fff"/></svg>\n' \
		"$dims" >"$tmp/blank.svg"
	rsvg-convert -w 1200 "$tmp/blank.svg" -o "$tmp/blank.png" || { fail=1; return; }
	size=$(stat -c %s "$tmp/p.png") blank=$(stat -c %s "$tmp/blank.png")
	if [ "$size" -lt $((blank * 3)) ]; then
		echo "FAIL $name: blank? PNG $size bytes, a blank one $blank"; fail=1; return
	fi
	[ $# -gt 2 ] || return
	if ! res=$(pngcheck "$tmp/p.png"); then
		echo "FAIL $name: PNG unreadable"; fail=1; return
	fi
	read -r w colours dark <<<"$res"
	if [ "$w" != 1200 ] || [ "$colours" -lt 8 ] || [ "$dark" -lt 100 ]; then
		echo "FAIL $name: blank? width $w, $colours colours, $dark dark pixels"
		fail=1
	fi
}

for f in "${traces[@]}"; do
	for k in heatmap offset iops depth waits; do
		if ! "$BIN/btplot" -k "$k" -o "$tmp/x.svg" "$f" 2>"$tmp/err"; then
			echo "FAIL ${f#"$TOP"/} $k: exit $?"; head -3 "$tmp/err"; fail=1
			continue
		fi
		check "${f#"$TOP"/} $k" "$tmp/x.svg"
	done
done
for f in "${traces[@]}"; do
	case $f in *-bfq.*) ;; *) continue ;; esac
	other=${f/-bfq./-none.}
	[ -f "$other" ] || continue
	for k in heatmap offset iops depth waits; do
		"$BIN/btplot" -k "$k" -o "$tmp/x.svg" "$f" "$other" 2>"$tmp/err" ||
			{ echo "FAIL pair $k: exit $?"; fail=1; continue; }
		check "$(basename "$f") + none $k" "$tmp/x.svg" decode
	done
done
[ "$n" -gt 0 ] || { echo "FAIL: no trace checked"; exit 1; }
[ $fail = 0 ] && echo "ok: $n pictures well-formed and rendered"
exit $fail
