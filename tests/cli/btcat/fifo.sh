# Every input is read once, so FIFOs work: a per-CPU set of FIFOs prints
# as the files do (blkparse's file mode, each input read ahead; a writer
# done before a second open would leave that open waiting forever), and
# a stream through a FIFO analyses as the file does.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
H=$PWD/tests/cli/btcat
zcat sample-traces/pgbench-bfq.bin.gz >"$tmp/t.bin" || exit 99
perl $H/mktrace.pl >"$tmp/small.bin" || exit 99
cd "$tmp" && perl "$H/percpu.pl" run <t.bin && perl "$H/percpu.pl" small <small.bin ||
	exit 99
mkdir p && mkfifo p/run.blktrace.0 p/run.blktrace.1 p/t.bin || exit 99
for f in small.blktrace.*; do mkfifo "p/$f" || exit 99; done
btcat -s run | md5sum
{ cat run.blktrace.0 >p/run.blktrace.0 & cat run.blktrace.1 >p/run.blktrace.1 & }
btcat -s p/run | md5sum
btcat small 2>/dev/null | md5sum
for f in small.blktrace.*; do cat "$f" >"p/$f" & done
btcat p/small 2>/dev/null | md5sum
btsync -H t.bin | md5sum
{ cat t.bin >p/t.bin & }
btsync -H p/t.bin | md5sum
