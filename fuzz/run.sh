#!/bin/bash
# SPDX-License-Identifier: MIT
# `make fuzz`: build the reader's libFuzzer target with clang into
# build-fuzz/ and run it for FUZZ_SECONDS (default 60).  New inputs go to
# build-fuzz/corpus; fuzz/corpus holds the committed seeds (hand-made
# records of every layout) and the first 64 KiB of each trace of
# sample-traces/ (unpacked), and of $BTKIT_TRACES when set, are added.  fuzz/regressions are replayed
# first.  A crash leaves its input in build-fuzz/ (crash-*): fix the bug,
# then move the input to fuzz/regressions/ so the unit tests replay it.
# FUZZ_SECONDS=0 builds the target and replays the regressions only
# (tests/oracle/fuzz_build.sh, so that the build cannot rot unseen).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=$TOP/build-fuzz
SECS=${FUZZ_SECONDS:-60}
CC=${FUZZ_CC:-clang}
mkdir -p "$OUT/corpus" "$OUT/seeds"

"$CC" -g -O1 -std=c11 -D_GNU_SOURCE -I"$TOP/include" \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	"$TOP/fuzz/fuzz_reader.c" "$TOP/lib/reader.c" "$TOP/lib/input.c" \
	"$TOP/lib/reader_dup.c" "$TOP/lib/reader_rec.c" "$TOP/lib/event.c" "$TOP/lib/comm.c" \
	"$TOP/lib/map.c" "$TOP/lib/array.c" \
	-lz -o "$OUT/fuzz_reader"

find "$TOP/sample-traces" ${BTKIT_TRACES:+"$BTKIT_TRACES"} -type f \
	\( -name '*.bin' -o -name '*.bin.gz' -o -name '*.blktrace.*' -o -name '*.dump*' \) |
while read -r f; do
	case $f in
	*.gz) gzip -dc "$f" | head -c 65536 ;;
	*) head -c 65536 "$f" ;;
	esac >"$OUT/seeds/$(echo "$f" | md5sum | cut -c1-16)"
done

regs=()
for f in "$TOP"/fuzz/regressions/*; do
	case $f in *.md) ;; *) [ -f "$f" ] && regs+=("$f") ;; esac
done
if [ ${#regs[@]} -gt 0 ]; then
	"$OUT/fuzz_reader" "${regs[@]}"
fi

[ "$SECS" = 0 ] && exit 0
exec "$OUT/fuzz_reader" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=1024 \
	-max_len=262144 -print_final_stats=1 -artifact_prefix="$OUT/" \
	"$OUT/corpus" "$TOP/fuzz/corpus" "$OUT/seeds"
