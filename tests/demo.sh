#!/bin/bash
# SPDX-License-Identifier: MIT
# `make demo`: a tour of the tools on the traces bundled in sample-traces/,
# so a fresh clone shows what btkit answers.  btcat first, then every
# analysis tool that is built, each with a one-line caption, and last
# btplot's HTML reports of them (their paths are printed).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-build}
BIN=$TOP/$B/bin
export LC_ALL=C
cd "$TOP" || exit 1

# The bundled traces (DEMO_TRACES: another directory, for trying the demo).
dir=${DEMO_TRACES:-sample-traces}
traces=()
for f in "$dir"/*; do
	case $f in
	*.md|*.txt|*README*|*LICENSE*|*.sh) continue ;;
	esac
	[ -f "$f" ] && traces+=("$f")
done
if [ ${#traces[@]} -eq 0 ]; then
	echo "demo: no trace in $dir/" >&2
	exit 1
fi
# Prefer a trace with scheduler messages (bfq) and several processes for
# the slice and fdatasync tools; any trace does for the rest.
main=${traces[0]}
for f in "${traces[@]}"; do
	case $f in *bfq*) main=$f; break ;; esac
done

# Tab-separated reports line up through column(1) when it is installed.
show() {
	if command -v column >/dev/null; then
		column -t -s "$(printf '\t')"
	else
		cat
	fi
}

if [ -t 1 ]; then bold=$(printf '\033[1m') plain=$(printf '\033[0m'); else bold= plain=; fi
step() {
	printf '\n%s== %s%s\n$ %s\n' "$bold" "$1" "$plain" "$2"
}

run() {
	local caption=$1 tool=$2
	shift 2
	if [ ! -x "$BIN/$tool" ]; then
		printf '\n== %s: not built yet, skipped\n' "$tool"
		return
	fi
	step "$caption" "$tool $*"
	if [ "$tool $1" = "btcat -c" ]; then
		"$BIN/$tool" "$@" 2>&1 | head -n 8
	else
		"$BIN/$tool" "$@" 2>&1 | head -n 25 | show
	fi
}

echo "btkit demo on ${traces[*]}"

step "btcat: the events, exactly as blkparse -q prints them" \
	"btcat $main | head"
"$BIN/btcat" "$main" 2>&1 | head -n 12

run "btcat -c: one CSV row per event, for spreadsheets" btcat -c "$main"
run "btmerge: merge ratios per device and op (btt-compatible #Q/#D)" \
	btmerge "$main"
run "btsize -g: what request sizes the device really saw" \
	btsize -g "$main"
run "btlat: Q2C, Q2D, D2C latency percentiles per device and op" \
	btlat "$main"
run "btslice: how long each process waited for its scheduler slice" \
	btslice "$main"
run "btsync: fdatasync/fsync episodes per process, data and flush phase" \
	btsync "$main"

# The other traces: fdatasync latency where a process synced (compare the
# schedulers), latency otherwise.
for f in "${traces[@]}"; do
	[ "$f" = "$main" ] && continue
	case $f in
	*fsync*|*pgbench*) run "btsync on $f" btsync "$f" ;;
	*) run "btlat on $f" btlat "$f" ;;
	esac
done

# Every picture and table on one offline page: one page per workload, its
# bfq and none recordings side by side on shared axes (unrelated traces on
# one scale would squash each other), a trace of its own alone.
if [ -x "$BIN/btplot" ]; then
	mkdir -p "$B/demo"
	done_stems=" "
	for f in "${traces[@]}"; do
		name=$(basename "$f")
		name=${name%%.*}
		stem=${name%-bfq}
		stem=${stem%-none}
		case $done_stems in *" $stem "*) continue ;; esac
		done_stems="$done_stems$stem "
		group=()
		for g in "${traces[@]}"; do
			n=$(basename "$g")
			n=${n%%.*}
			case $n in "$stem" | "$stem-bfq" | "$stem-none") group+=("$g") ;; esac
		done
		report=$B/demo/report-$stem.html
		step "btplot --report: every picture kind and table of $stem on one HTML page" \
			"btplot --report -o $report ${group[*]}"
		"$BIN/btplot" --report -o "$report" "${group[@]}" &&
			echo "report written: $TOP/$report (open it in a browser; it needs no network)"
	done
else
	printf '\n== btplot: not built yet, skipped\n'
fi
echo
echo "More: man -l man/btkit.7; each tool has -h and a man page."
