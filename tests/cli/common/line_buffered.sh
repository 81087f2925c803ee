# --line-buffered: rows reach a pipe as they are made, whole, not when a
# buffer fills or the tool ends.  A slow feeder writes the first half of a
# trace, waits (up to 5 s) for output to come out of the pipe, lets the
# tool run on for 0.3 s, then writes the rest.  The verdict is on what
# came before the rest was written: "whole rows" (ends at a line end),
# "cut mid-row" (a block of stdio's buffer), or "nothing".
#
# The -e tools read mkslice -r 3, so small that the rows of its first half
# fit in a stdio buffer: without the option they would all wait for the
# end.  It starts with a PROCESS note for an absent pid whose name is NUL
# past its first byte: the reader's layout detection reads the 16 bits at
# offset 50 of the first record and, when they are large (mkslice's own
# first record), waits for that many bytes before the first event.
# btcat orders a stream as blkparse does, in batches of 512 records (all
# of mkslice's carry sequence 0, which holds them to the end), so it reads
# a real trace; without the option its blocks end mid-line.
set -u
perl -e 'print pack("VVQ<Q<VVVVVvv", 0x65617407, 0, 0, 0, 0, 0x04000000,
	4000000, 0, 0, 0, 16), pack("a16", "x")' >small.bin
mkslice -r 3 >>small.bin
zcat sample-traces/fsync-vs-readers-bfq.bin.gz >real.bin
feed() {
	local half=$(($(stat -c %s "$1") / 2))
	head -c "$half" "$1"
	for _ in $(seq 50); do
		[ -e got ] && break
		sleep 0.1
	done
	sleep 0.3
	touch cut
	tail -c +"$((half + 1))" "$1"
}
consume() {
	perl -e 'my $early = "";
		while (sysread(STDIN, my $b, 65536)) {
			if (-e "cut") { next }
			$early .= $b;
			open(my $f, ">", "got"); close($f);
		}
		print $early eq "" ? "nothing" :
		    $early =~ /\n\z/ ? "whole rows" : "cut mid-row", "\n";'
}
run() {
	local trace=$1
	shift
	rm -f got cut
	echo "$* ($trace): $(feed "$trace" | "$@" - 2>/dev/null | consume)"
}
run small.bin btsync -e -H --line-buffered
run small.bin btslice -e -H --line-buffered
run small.bin btlat -e -H --line-buffered
run small.bin btlat -e -c -H --line-buffered
run small.bin btsync -e -j --line-buffered
run real.bin btcat --line-buffered
# Without it, into a pipe, as before the option existed: blocks.
run small.bin btsync -e -H
run real.bin btcat
# On a terminal (script(1) gives the tool one) rows come whole by default.
tty_run() {
	local trace=$1
	shift
	rm -f got cut feed.fifo
	mkfifo feed.fifo
	feed "$trace" >feed.fifo &
	echo "$* ($trace) on a terminal: $(script -qfec "$* - <feed.fifo" /dev/null | consume)"
	wait
}
tty_run small.bin btsync -e -H
tty_run real.bin btcat
