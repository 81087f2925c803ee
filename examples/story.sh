#!/bin/bash
# SPDX-License-Identifier: MIT
# The question of btkit(7) in one command: is fdatasync slower under CFQ's
# time slices than under no scheduler at all, and what else changes?
# Replays the fsync-vs-readers sample (four random readers and one writer
# calling fdatasync, recorded under none) once under cfq (on blk-mq
# kernels BFQ with CFQ's tunables, labelled cfq(bfq)) and once under none
# on a scratch loop device, captures both runs, and prints btdiff's table
# of the two with the verdict.  Needs root (scratch loop device, tracing).
# Usage: story.sh [TRACE [BTREPLAY-OPTION...]], e.g. story.sh "" --repeat 3
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BTKIT_BIN:-$TOP/build/bin}
TRACE=${1:-$TOP/sample-traces/fsync-vs-readers-none.bin.gz}
[ -x "$BIN/btreplay" ] || { echo "story: $BIN/btreplay not built (make)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "story: run as root (loop device, tracing)" >&2; exit 1; }
exec "$BIN/btreplay" --sched=cfq,none "${@:2}" "$TRACE"
