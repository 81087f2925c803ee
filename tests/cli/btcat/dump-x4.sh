# A `blkparse -d`-style dump holding every record four times in a row
# (repeat.pl), scheduler messages (sequence 0) included, and the per-CPU
# set of the same trace (percpu.pl) give every tool the tables of the
# trace itself; only the warning about the copies, naming the first one,
# is added.  Two shapes: mkslice's CFQ trace with blktrace's sequences,
# where messages share times with events, and the bfq sample trace.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
H=tests/cli/btcat
mkslice -C -r 8 | perl $H/repeat.pl -s 1 >"$tmp/cfq.bin" || exit 99
zcat sample-traces/fsync-vs-readers-bfq.bin.gz >"$tmp/bfq.bin" || exit 99
for t in cfq bfq; do
	perl $H/repeat.pl 4 <"$tmp/$t.bin" >"$tmp/$t-x4.bin" || exit 99
	(cd "$tmp" && perl "$OLDPWD/$H/percpu.pl" "$t-set" <"$t.bin") || exit 99
done
cd "$tmp" || exit 99
same() {	# same LABEL CMD...: stdout of CMD on the trace, dump and set
	local t=$1; shift
	"$@" "$t.bin" >orig.out 2>/dev/null
	"$@" "$t-x4.bin" >x4.out 2>x4.err
	if cmp -s orig.out x4.out; then r=same; else r=differs; fi
	if [ "$1" != btcat ]; then
		"$@" "$t-set" >set.out 2>set.err
		cmp -s orig.out set.out && r="$r, set same" || r="$r, set differs"
		cat set.err
	fi
	echo "$t: $*: $(wc -l <orig.out) lines, dump $r"
	[ "$r" = same ] || [ "$r" = "same, set same" ] || diff orig.out x4.out | head -5
}
for t in cfq bfq; do
	for cmd in "btcat" "btcat -s" "btcat -c" "btslice" "btslice -e" \
		   "btslice --from=events" "btsync" "btsync -e" "btmerge" \
		   "btmerge -P" "btsize" "btsize --at=Q" "btlat" "btlat --btt"; do
		same $t $cmd
	done
	cat x4.err
done
