# SPDX-License-Identifier: MIT
# Sourced by the oracle tests: where things are, the tools a test needs
# (skip with exit 77 and the reason when one is missing), a scratch
# directory removed at exit, and the list of traces every oracle runs on:
# sample-traces/, $BTKIT_TRACES/*/ when set, plus what the caller adds.
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# BTKIT_TRACES: optional directory of further traces (one folder per trace
# under it) to check as well, e.g. real traces kept outside the repository.
extra_traces=${BTKIT_TRACES:+$BTKIT_TRACES/*/*}
BIN=${BTKIT_BIN:-$TOP/build/bin}

# oracle_need TOOL...: Debian's tools by PATH, btkit's in $BIN.
oracle_need() {
	local t
	for t in "$@"; do
		case $t in
		btcat | btslice | btsync | btmerge | btsize | btlat | btcapture | btreplay)
			if [ ! -x "$BIN/$t" ]; then
				echo "$t not built: $BIN/$t"
				exit 77
			fi ;;
		*)
			if ! command -v "$t" >/dev/null; then
				echo "$t not installed (Debian package blktrace)"
				exit 77
			fi ;;
		esac
	done
}

tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT

# oracle_traces [EXTRA...]: fill the array traces with every trace file of
# sample-traces/ and $BTKIT_TRACES/*/ when set, then each EXTRA that exists.
oracle_traces() {
	local f
	traces=()
	shopt -s nullglob
	for f in "$TOP"/sample-traces/* $extra_traces "$@"; do
		[ -e "$f" ] || continue
		case $f in
		*.blktrace.[0-9]* | *.bin | *.bin.gz | *.dump | *.dump.gz) traces+=("$f") ;;
		esac
	done
}

# oracle_open FILE: set name (FILE as messages show it) and plain (FILE,
# unpacked first when gzipped).  Prints the failure and returns 1 when
# gunzip fails.
oracle_open() {
	name=${1#"$TOP"/}
	name=${name#"${BTKIT_TRACES:-/nonexistent}"/}
	name=${name/#$tmp\//synthetic }
	plain=$1
	case $1 in
	*.gz)
		plain=$tmp/plain
		gzip -dc "$1" >"$plain" || { echo "FAIL $name: gzip"; return 1; } ;;
	esac
}

# oracle_btt: blkparse's dump of $plain, then btt on it in the scratch
# directory $tmp/btt (btt writes files into the current one): btt's
# report in $tmp/btt/out.avg, blkparse's lines in $tmp/bp.out, and
# bad_fs = the cgroup-flagged records blkparse 1.2.0 rejected.
oracle_btt() {
	rm -rf "$tmp/btt" && mkdir "$tmp/btt"
	timeout 300 blkparse -q -i - -d "$tmp/btt/dump.bin" <"$plain" \
		>"$tmp/bp.out" 2>&1
	bad_fs=$(grep -c 'Bad fs action' "$tmp/bp.out")
	(cd "$tmp/btt" && timeout 300 btt -i dump.bin -o out >/dev/null 2>&1)
}
