#!/bin/bash
# SPDX-License-Identifier: MIT
# The test runner behind `make check`: cmocka unit tests (each case counted),
# golden CLI tests, oracle tests against blkparse/btt, live tests (root).
# Ends with "N passed, N failed, N skipped"; exit 1 on any failure.
# UPDATE=1 rewrites CLI goldens (those cases are counted as updated, not
# passed).  ONLY=regex limits to matching test names.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-build}
export TOP B
export BTKIT_BIN="$TOP/$B/bin"
export PATH="$BTKIT_BIN:$TOP/$B/tests:$TOP/$B/bench:$PATH"
export LC_ALL=C
pass=0 fail=0 skip=0 updated=0
failed=()
only=${ONLY:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok()   { pass=$((pass + 1)); }
bad()  { fail=$((fail + 1)); failed+=("$1"); echo "FAIL: $1"; }
skp()  { skip=$((skip + 1)); echo "SKIP: $1: $2"; }

# Unit tests: every cmocka case counts.
for t in "$TOP/$B"/tests/test_*; do
	[ -x "$t" ] || continue
	name=unit/$(basename "$t")
	[[ $name =~ $only ]] || continue
	out=$tmp/unit.out
	CMOCKA_MESSAGE_OUTPUT=stdout "$t" >"$out" 2>&1
	rc=$?
	p=$(grep -c '^\[       OK \]' "$out")
	f=$(grep -c '^\[  FAILED  \] [a-z_]' "$out")
	pass=$((pass + p))
	if [ "$f" -gt 0 ] || [ $rc -ne 0 ] || [ "$p" -eq 0 ]; then
		[ "$f" -eq 0 ] && f=1
		fail=$((fail + f)); failed+=("$name")
		echo "FAIL: $name (exit $rc)"; sed 's/^/    /' "$out" | tail -40
	fi
done

# Golden CLI tests: tests/cli/TOOL/CASE.sh.  Each case runs in a scratch
# directory of its own, removed afterwards, that holds only the links
# sample-traces and tests to the repository's (so the relative names that
# messages print are the same everywhere); $TOP names the repository.
for sh in "$TOP"/tests/cli/*/*.sh; do
	[ -f "$sh" ] || continue
	base=${sh%.sh}
	name=cli/$(basename "$(dirname "$sh")")/$(basename "$base")
	[[ $name =~ $only ]] || continue
	work=$tmp/case
	rm -rf "$work" && mkdir "$work" &&
		ln -s "$TOP/sample-traces" "$TOP/tests" "$work/" || exit 1
	(cd "$work" && timeout 120 bash "$sh" >"$tmp/out" 2>"$tmp/err" </dev/null)
	rc=$?
	rm -rf "$work"
	if [ "${UPDATE:-}" = 1 ]; then
		cp "$tmp/out" "$base.out"
		if [ -s "$tmp/err" ]; then cp "$tmp/err" "$base.err"; else rm -f "$base.err"; fi
		if [ $rc -ne 0 ]; then echo $rc >"$base.exit"; else rm -f "$base.exit"; fi
		updated=$((updated + 1)); continue
	fi
	want_rc=0; [ -f "$base.exit" ] && want_rc=$(cat "$base.exit")
	[ -f "$base.err" ] && want_err=$base.err || want_err=/dev/null
	if [ $rc -ne "$want_rc" ]; then
		bad "$name"; echo "    exit $rc, want $want_rc"; sed 's/^/    /' "$tmp/err" | head -5
	elif ! cmp -s "$tmp/out" "$base.out"; then
		bad "$name"; diff -u "$base.out" "$tmp/out" | head -20 | sed 's/^/    /'
	elif ! cmp -s "$tmp/err" "$want_err"; then
		bad "$name"; diff -u "$want_err" "$tmp/err" | head -20 | sed 's/^/    /'
	else
		ok
	fi
done

# Oracle and live tests: scripts; exit 0 pass, 77 skip (reason on stdout).
for sh in "$TOP"/tests/oracle/*.sh "$TOP"/tests/live/*.sh; do
	[ -f "$sh" ] || continue
	name=$(basename "$(dirname "$sh")")/$(basename "$sh" .sh)
	[[ $name =~ $only ]] || continue
	(cd "$TOP" && timeout 600 bash "$sh" >"$tmp/out" 2>&1 </dev/null)
	rc=$?
	case $rc in
	0) ok ;;
	77) skp "$name" "$(tail -1 "$tmp/out")" ;;
	*) bad "$name"; echo "    exit $rc"; tail -30 "$tmp/out" | sed 's/^/    /' ;;
	esac
done

if [ "${#failed[@]}" -gt 0 ]; then
	echo "failed: ${failed[*]}"
fi
[ "$updated" -gt 0 ] && echo "$updated golden cases updated (review the diff)"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
