# SPDX-License-Identifier: MIT
# Sourced by the oracle tests: where things are, the tools a test needs
# (skip with exit 77 and the reason when one is missing), a scratch
# directory removed at exit, and the list of traces every oracle runs on:
# sample-traces/, $SHARED/traces/*/, plus what the caller adds.
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
SHARED=${SHARED:-$TOP/../shared}
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
# sample-traces/ and $SHARED/traces/*/, then each EXTRA that exists.
oracle_traces() {
	local f
	traces=()
	shopt -s nullglob
	for f in "$TOP"/sample-traces/* "$SHARED"/traces/*/* "$@"; do
		[ -e "$f" ] || continue
		case $f in
		*.blktrace.[0-9]* | *.bin | *.bin.gz | *.dump | *.dump.gz) traces+=("$f") ;;
		esac
	done
}
