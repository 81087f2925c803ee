#!/bin/bash
# SPDX-License-Identifier: MIT
# Every man page is mandoc -Tlint clean, and every tool has one that lists
# it in btkit(7).
set -u
command -v mandoc >/dev/null || { echo "mandoc is not installed (make deps)"; exit 77; }
rc=0
out=$(mandoc -Tlint -Wwarning man/*.[0-9] 2>&1)
if [ -n "$out" ]; then echo "$out"; rc=1; fi
for t in $(sed -n 's/^TOOLS := //p' Makefile); do
	[ -f "man/$t.1" ] || { echo "man/$t.1 missing"; rc=1; }
	grep -q "^\.Xr $t 1" man/btkit.7 || { echo "btkit.7 does not name $t"; rc=1; }
done
exit $rc
