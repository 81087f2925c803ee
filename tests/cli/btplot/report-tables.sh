# The report's tables are the tools' own, byte for byte: on every sample
# trace (one report each, and the bfq/none pairs in one report, a table
# per trace), each table read back as tab-separated text equals what
# btsync, btslice, btlat, btmerge and btsize print by default (a table
# without rows is a note in the report, a header alone from the tool).
# With two traces, btdiff's table equals what btdiff prints of them and
# the verdict under it btdiff's verdict line; one trace has no btdiff.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
same() {	# same REPORT SECTION TRACE-LABEL FILE
	perl tests/cli/btplot/htmltab.pl "$2" ${3:+"$3"} <"$1" >"$tmp/a"
	"$2" "$4" >"$tmp/b" 2>/dev/null
	if [ ! -s "$tmp/a" ] && [ "$(wc -l <"$tmp/b")" = 1 ] &&
		grep -q "<h2 id=\"$2\"" "$1"; then
		echo "$2 ${3:-$4}: no rows in either"
	elif cmp -s "$tmp/a" "$tmp/b"; then
		echo "$2 ${3:-$4}: same ($(wc -l <"$tmp/a") lines)"
	else
		echo "$2 ${3:-$4}: DIFFERS"; diff "$tmp/b" "$tmp/a" | head -5
	fi
}
diffed() {	# diffed REPORT WHAT BTDIFF-ARGS...: its table and verdict
	r=$1 what=$2
	shift 2
	perl tests/cli/btplot/htmltab.pl btdiff <"$r" >"$tmp/a"
	perl tests/cli/btplot/htmltab.pl <"$r" | sed -n 's/^  verdict: /btdiff: verdict: /p' >"$tmp/va"
	btdiff "$@" >"$tmp/b" 2>"$tmp/vb"
	if [ -s "$tmp/b" ] && cmp -s "$tmp/a" "$tmp/b"; then
		echo "btdiff $what: same ($(wc -l <"$tmp/a") lines)"
	else
		echo "btdiff $what: DIFFERS"; diff "$tmp/b" "$tmp/a" | head -5
	fi
	if [ -s "$tmp/vb" ] && cmp -s "$tmp/va" "$tmp/vb"; then
		echo "btdiff $what: same verdict"
	else
		echo "btdiff $what: verdict DIFFERS"; diff "$tmp/vb" "$tmp/va"
	fi
}
for f in sample-traces/*.bin sample-traces/*.bin.gz; do
	btplot --report -o "$tmp/r.html" "$f" || echo "exit $?"
	for t in btsync btslice btlat btmerge btsize; do
		same "$tmp/r.html" "$t" "" "$f"
	done
	echo "btdiff $f: $(grep -c 'btdiff\|class="verdict"' "$tmp/r.html") mentions"
done
for w in fsync-vs-readers pgbench; do
	btplot --report -o "$tmp/r.html" "sample-traces/$w-bfq.bin.gz" \
		"sample-traces/$w-none.bin.gz" || echo "exit $?"
	for t in btsync btslice btlat btmerge btsize; do
		for s in bfq none; do
			same "$tmp/r.html" "$t" "$w-$s" "sample-traces/$w-$s.bin.gz"
		done
	done
	diffed "$tmp/r.html" "$w" "sample-traces/$w-bfq.bin.gz" \
		"sample-traces/$w-none.bin.gz"
done
# With -w and -d, the tables are the tools' with the same filters (the bfq
# trace's scheduler messages outside the window left out as btslice does).
btplot --report -w 1:3 -d 7,26 -o "$tmp/w.html" sample-traces/pgbench-bfq.bin.gz ||
	echo "exit $?"
for t in btsync btslice btlat btmerge btsize; do
	perl tests/cli/btplot/htmltab.pl "$t" <"$tmp/w.html" >"$tmp/a"
	"$t" -w 1:3 -d 7,26 sample-traces/pgbench-bfq.bin.gz >"$tmp/b" 2>/dev/null
	cmp -s "$tmp/a" "$tmp/b" && echo "$t -w 1:3 -d 7,26: same ($(wc -l <"$tmp/a") lines)" ||
		echo "$t -w 1:3 -d 7,26: DIFFERS"
done
# btdiff's table with -w and -d is btdiff's with the same filters.
btplot --report -w 1:3 -d 7,26 -o "$tmp/w.html" sample-traces/pgbench-bfq.bin.gz \
	sample-traces/pgbench-none.bin.gz || echo "exit $?"
diffed "$tmp/w.html" "pgbench -w 1:3 -d 7,26" -w 1:3 -d 7,26 \
	sample-traces/pgbench-bfq.bin.gz sample-traces/pgbench-none.bin.gz
