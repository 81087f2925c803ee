#!/bin/bash
# SPDX-License-Identifier: MIT
# The reader's libFuzzer target (fuzz/run.sh) still builds from the
# library files it lists, and replays fuzz/regressions without a crash:
# `make check` does not otherwise build it, and it once stopped building
# unseen when the reader came to need another file.
set -u
command -v clang >/dev/null || { echo "clang not installed (Debian package clang)"; exit 77; }
out=$(FUZZ_SECONDS=0 bash fuzz/run.sh 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
	echo "$out" | tail -20
	echo "fuzz/run.sh FUZZ_SECONDS=0: exit $rc"
	exit 1
fi
[ -x build-fuzz/fuzz_reader ] || { echo "build-fuzz/fuzz_reader not built"; exit 1; }
echo "fuzz target built, regressions replayed"
