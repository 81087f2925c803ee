#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# mkreq.pl - write a small synthetic blktrace stream (version 7, little
# endian) with one of each request shape the tracker rebuilds, at fixed
# times, for the btmerge/btsize/btlat golden tests:
#   1 four reads back-merged      2 a front merge     3 a requeue
#   4 a split read                5 fdatasync: empty preflush, blk-flush
#   6 a partition remap (A, Q)    flush without Q (D FN, C FN)
#   7 a dm remap (Q dm, A, Q)     8 a partial completion
#   9 cgroup-flagged events       10 a request never completed
#   11 a discard                  12 two writes merged in the scheduler
# Owners: reader 100, writer 200; kworker 300 dispatches, C has pid 0.
# Usage: mkreq.pl > FILE
use strict;
use warnings;

my %seq;
my $base = 1_000_000_000;		# ns
binmode STDOUT;

sub dev { my ($ma, $mi) = @_; return ($ma << 20) | $mi; }
my ($SDA, $SDA1, $DM) = (dev(8, 0), dev(8, 1), dev(253, 0));

# Categories and actions of the blktrace API.
my ($R, $W, $FLUSH, $SYNC, $NOTIFY, $DISCARD, $FUA) =
    (1, 2, 4, 8, 1024, 8192, 32768);
my %A = (Q => 1, M => 2, F => 3, G => 4, R => 6, D => 7, C => 8, I => 12,
	 X => 13, A => 15);

sub rec {
	my (%r) = @_;
	my $pdu = $r{pdu} // '';
	my $act = ($r{cat} << 16) | $r{act};
	if (defined $r{cgroup}) {
		$act |= 0x100;
		$pdu = pack('Q<', $r{cgroup}) . $pdu;
	}
	my $dev = $r{dev} // $SDA;
	my $s = $r{note} ? 0 : ++$seq{$dev};
	print pack('V V Q< Q< V V V V V v v', 0x65617407, $s,
		   $base + $r{us} * 1000, $r{sector} // 0, $r{bytes} // 0,
		   $act, $r{pid} // 0, $dev, 0, $r{error} // 0,
		   length($pdu)), $pdu;
}

sub note { my ($pid, $comm) = @_;
	rec(note => 1, us => 0, cat => $NOTIFY, act => 0, pid => $pid,
	    pdu => pack('a16', $comm)); }

# ev(us, action, category, sector, sectors, pid, extra...)
sub ev {
	my ($us, $a, $cat, $sector, $n, $pid, %o) = @_;
	my $pid2 = $a eq 'C' ? 0 : $a eq 'D' ? 300 : $pid;
	rec(us => $us, act => $A{$a}, cat => $cat, sector => $sector,
	    bytes => $n * 512, pid => $pid2, %o);
}

note(100, 'reader');
note(200, 'writer');
note(300, 'kworker/0:1H');

# 1: four 4 KiB reads back-merged into one 16 KiB request
ev(10, 'Q', $R, 1000, 8, 100);
ev(11, 'G', $R, 1000, 8, 100);
for my $k (1 .. 3) {
	ev(11 + 2 * $k, 'Q', $R, 1000 + 8 * $k, 8, 100);
	ev(12 + 2 * $k, 'M', $R, 1000 + 8 * $k, 8, 100);
}
ev(20, 'I', $R, 1000, 32, 100);
ev(21, 'D', $R, 1000, 32, 100);
ev(121, 'C', $R, 1000, 32, 100);

# 2: a write front-merged: the request's start moves down
ev(200, 'Q', $W, 5008, 8, 200);
ev(201, 'G', $W, 5008, 8, 200);
ev(202, 'Q', $W, 5000, 8, 200);
ev(203, 'F', $W, 5000, 8, 200);
ev(204, 'I', $W, 5000, 16, 200);
ev(205, 'D', $W, 5000, 16, 200);
ev(405, 'C', $W, 5000, 16, 200);

# 3: a write requeued once
ev(500, 'Q', $W | $SYNC, 6000, 8, 200);
ev(501, 'G', $W | $SYNC, 6000, 8, 200);
ev(502, 'I', $W | $SYNC, 6000, 8, 200);
ev(503, 'D', $W | $SYNC, 6000, 8, 200);
ev(504, 'R', $W | $SYNC, 6000, 8, 200);
ev(600, 'I', $W | $SYNC, 6000, 8, 200);
ev(601, 'D', $W | $SYNC, 6000, 8, 200);
ev(701, 'C', $W | $SYNC, 6000, 8, 200);

# 4: a 16-sector read split at 7008 into two requests
ev(800, 'Q', $R, 7000, 16, 100);
ev(801, 'X', $R, 7000, 16, 100, pdu => pack('Q>', 7008));
ev(802, 'G', $R, 7000, 8, 100);
ev(803, 'G', $R, 7008, 8, 100);
ev(804, 'I', $R, 7000, 8, 100);
ev(805, 'I', $R, 7008, 8, 100);
ev(806, 'D', $R, 7000, 8, 100);
ev(807, 'D', $R, 7008, 8, 100);
ev(900, 'C', $R, 7000, 8, 100);
ev(910, 'C', $R, 7008, 8, 100);

# 5: fdatasync's empty preflush; blk-flush issues a flush without Q
ev(1000, 'Q', $W | $FLUSH | $SYNC, 0, 0, 200);
ev(1001, 'G', $W | $FLUSH | $SYNC, 0, 0, 200);
ev(1002, 'D', $FLUSH, 0, 0, 200);
ev(1500, 'C', $FLUSH, 0, 0, 200);
ev(1501, 'C', $W | $FLUSH | $SYNC, 0, 0, 200);

# 6: a read of partition 8,1 remapped to the disk, issued directly
ev(1600, 'A', $R, 2148, 8, 100, pdu => pack('N N Q>', $SDA1, $SDA, 100));
ev(1601, 'Q', $R, 2148, 8, 100);
ev(1602, 'G', $R, 2148, 8, 100);
ev(1603, 'D', $R, 2148, 8, 100);
ev(1703, 'C', $R, 2148, 8, 100);

# 7: a write to dm 253,0 remapped to 8,0 and queued there by a kworker
ev(1800, 'Q', $W, 300, 8, 200, dev => $DM);
ev(1801, 'A', $W, 9000, 8, 200, pdu => pack('N N Q>', $DM, $SDA, 300));
ev(1802, 'Q', $W, 9000, 8, 300);
ev(1803, 'G', $W, 9000, 8, 300);
ev(1804, 'I', $W, 9000, 8, 300);
ev(1805, 'D', $W, 9000, 8, 300);
ev(2005, 'C', $W, 9000, 8, 300);
ev(2006, 'C', $W, 300, 8, 200, dev => $DM);

# 8: a 16 KiB read completed in two pieces
ev(2100, 'Q', $R, 10000, 32, 100);
ev(2101, 'G', $R, 10000, 32, 100);
ev(2102, 'I', $R, 10000, 32, 100);
ev(2103, 'D', $R, 10000, 32, 100);
ev(2200, 'C', $R, 10000, 8, 100);
ev(2300, 'C', $R, 10008, 24, 100);

# 9: cgroup-flagged events (btt and blkparse 1.2.0 skip them)
my $t = 2400;
for my $a (qw(Q G I D)) {
	ev($t++, $a, $W | $SYNC, 11000, 8, 200, cgroup => 0x42);
}
ev(2500, 'C', $W | $SYNC, 11000, 8, 200, cgroup => 0x42);

# 10: a write dispatched and never completed
ev(2600, 'Q', $W, 12000, 8, 200);
ev(2601, 'G', $W, 12000, 8, 200);
ev(2602, 'I', $W, 12000, 8, 200);
ev(2603, 'D', $W, 12000, 8, 200);

# 11: a 1 MiB discard
ev(2700, 'Q', $W | $DISCARD, 20000, 2048, 200);
ev(2701, 'G', $W | $DISCARD, 20000, 2048, 200);
ev(2702, 'I', $W | $DISCARD, 20000, 2048, 200);
ev(2703, 'D', $W | $DISCARD, 20000, 2048, 200);
ev(3703, 'C', $W | $DISCARD, 20000, 2048, 200);

# 12: two writes by two owners, merged in the scheduler after insertion
ev(3800, 'Q', $W, 30000, 8, 200);
ev(3801, 'G', $W, 30000, 8, 200);
ev(3802, 'I', $W, 30000, 8, 200);
ev(3810, 'Q', $W, 30008, 8, 100);
ev(3811, 'M', $W, 30008, 8, 100);
ev(3820, 'D', $W, 30000, 16, 200);
ev(3920, 'C', $W, 30000, 16, 200);
