#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# mklat.pl - write a small synthetic blktrace stream (version 7, little
# endian) of one shape the latency tests check against btt:
#   lost     requests whose D and C were lost (a CPU file missing), and
#            17 s later a request at the same start sector: of the other
#            direction, of the same direction and another size, and of
#            the same direction and size
#   requeue  a CFQ-era run: requests requeued (R, then I and D again)
#            once, twice and three times, and data writes with preflush
#            and FUA (FWFS) behind blk-flush's preflush (D and C of FWS
#            0 + 0 between their I and D)
#   merge    merged bios: eleven back merges into one request (more than
#            the tracker keeps one by one), two front merges before the
#            I (the I is timed on the second), merges after the I, and a
#            merged request requeued (its merged bios dispatched twice)
#   noc      reads and writes with Q, G, I and D but no C (a per-CPU file
#            of a CPU that never completed anything)
#   dc       reads and writes with D and C only (captured with -a issue
#            -a complete)
# Each shape also holds ordinary reads and writes around it, so every
# stage has samples.  Owners: reader 100, writer 200; kworker 300
# dispatches, C has pid 0.
# Usage: mklat.pl SHAPE > FILE
use strict;
use warnings;

my $shape = shift // '';
my %seq;
my $base = 1_000_000_000;		# ns
binmode STDOUT;

sub dev { my ($ma, $mi) = @_; return ($ma << 20) | $mi; }
my $SDA = dev(8, 0);

# Categories and actions of the blktrace API.
my ($R, $W, $FLUSH, $SYNC, $NOTIFY, $META, $FUA) =
    (1, 2, 4, 8, 1024, 4096, 32768);
my %A = (Q => 1, M => 2, F => 3, G => 4, R => 6, D => 7, C => 8, I => 12);

sub rec {
	my (%r) = @_;
	my $pdu = $r{pdu} // '';
	my $act = ($r{cat} << 16) | $r{act};
	my $s = $r{note} ? 0 : ++$seq{$SDA};
	print pack('V V Q< Q< V V V V V v v', 0x65617407, $s,
		   $base + $r{us} * 1000, $r{sector} // 0, $r{bytes} // 0,
		   $act, $r{pid} // 0, $SDA, 0, 0, length($pdu)), $pdu;
}

sub note { my ($pid, $comm) = @_;
	rec(note => 1, us => 0, cat => $NOTIFY, act => 0, pid => $pid,
	    pdu => pack('a16', $comm)); }

# ev(us, action, category, sector, sectors, pid)
sub ev {
	my ($us, $a, $cat, $sector, $n, $pid) = @_;
	my $pid2 = $a eq 'C' ? 0 : $a eq 'D' ? 300 : $pid;
	rec(us => $us, act => $A{$a}, cat => $cat, sector => $sector,
	    bytes => $n * 512, pid => $pid2);
}

# One request of one bio: Q, G, I, D, C at the offsets given (us), or
# fewer events when the list is shorter.
sub req {
	my ($us, $cat, $sector, $n, $pid, @at) = @_;
	my @acts = qw(Q G I D C);
	for my $k (0 .. $#at) {
		ev($us + $at[$k], $acts[$k], $cat, $sector, $n, $pid);
	}
}

note(100, 'reader');
note(200, 'writer');
note(300, 'kworker/0:1H');

if ($shape eq 'lost') {
	my $t = 10;
	for my $k (0 .. 9) {
		req($t, $R, 1000 + 64 * $k, 8, 100, 0, 2, 5, 40, 240);
		req($t + 500, $W, 9000 + 64 * $k, 8, 200, 0, 1, 3, 60, 460);
		$t += 1000;
	}
	# A read and a sync read whose D and C never appear.
	req($t, $R, 50000, 80, 100, 0, 2, 4);
	req($t + 100, $R | $SYNC, 60000, 80, 100, 0, 2, 4);
	req($t + 200, $R, 70000, 8, 100, 0, 2, 4);
	$t += 17_000_000;
	# 17 s later a write at the same sector, and a smaller read.
	req($t, $W | $META, 50000, 8, 200, 0, 3, 10, 50, 850);
	req($t + 2000, $R, 60000, 8, 100, 0, 2, 6, 30, 330);
	req($t + 3000, $R, 70000, 8, 100, 0, 2, 6, 30, 330);
	for my $k (0 .. 9) {
		req($t + 5000, $R, 1000 + 64 * $k, 8, 100, 0, 2, 5, 40, 240);
		$t += 1000;
	}
} elsif ($shape eq 'requeue') {
	my $t = 10;
	for my $k (0 .. 11) {
		my $s = 20000 + 64 * $k;
		my $n = $k % 4;		# requeues
		ev($t, 'Q', $W, $s, 8, 200);
		ev($t + 2, 'G', $W, $s, 8, 200);
		ev($t + 5, 'I', $W, $s, 8, 200);
		my $u = $t + 40;
		for my $r (1 .. $n) {
			ev($u, 'D', $W, $s, 8, 200);
			ev($u + 7, 'R', $W, $s, 8, 200);
			ev($u + 9, 'I', $W, $s, 8, 200);
			$u += 100 * $r;
		}
		ev($u, 'D', $W, $s, 8, 200);
		ev($u + 300, 'C', $W, $s, 8, 200);
		req($u + 400, $R, 1000 + 64 * $k, 8, 100, 0, 2, 5, 40, 240);
		$t = $u + 1000;
	}
	for my $k (0 .. 3) {
		my $s = 40000 + 64 * $k;
		my $fwfs = $FLUSH | $W | $FUA | $SYNC;
		ev($t, 'Q', $fwfs, $s, 8, 200);
		ev($t + 2, 'G', $fwfs, $s, 8, 200);
		ev($t + 4, 'I', $fwfs, $s, 8, 200);
		ev($t + 10, 'D', $FLUSH | $W | $SYNC, 0, 0, 200);
		ev($t + 500, 'C', $FLUSH | $W | $SYNC, 0, 0, 200);
		ev($t + 520, 'D', $W | $FUA | $SYNC, $s, 8, 200);
		ev($t + 900, 'C', $W | $FUA | $SYNC, $s, 8, 200);
		$t += 2000;
	}
} elsif ($shape eq 'merge') {
	my $t = 10;
	for my $k (0 .. 2) {
		my $s = 1000 + 512 * $k;
		# eleven back merges, then I, D, C
		ev($t, 'Q', $R, $s, 8, 100);
		ev($t + 1, 'G', $R, $s, 8, 100);
		for my $b (1 .. 11) {
			ev($t + 3 * $b, 'Q', $R, $s + 8 * $b, 8, 100);
			ev($t + 3 * $b + 1 + $b % 3, 'M', $R, $s + 8 * $b, 8,
			   100);
		}
		ev($t + 50, 'I', $R, $s, 96, 100);
		ev($t + 90 + 10 * $k, 'D', $R, $s, 96, 100);
		ev($t + 400, 'C', $R, $s, 96, 100);
		$t += 1000;
		# two front merges before the I
		$s = 9000 + 512 * $k;
		ev($t, 'Q', $W, $s + 16, 8, 200);
		ev($t + 2, 'G', $W, $s + 16, 8, 200);
		ev($t + 4, 'Q', $W, $s + 8, 8, 200);
		ev($t + 5, 'F', $W, $s + 8, 8, 200);
		ev($t + 9, 'Q', $W, $s, 8, 200);
		ev($t + 12, 'F', $W, $s, 8, 200);
		ev($t + 20, 'I', $W, $s, 24, 200);
		ev($t + 70, 'D', $W, $s, 24, 200);
		ev($t + 570, 'C', $W, $s, 24, 200);
		$t += 1000;
		# a back and a front merge after the I
		$s = 20000 + 512 * $k;
		ev($t, 'Q', $W, $s + 8, 8, 200);
		ev($t + 1, 'G', $W, $s + 8, 8, 200);
		ev($t + 3, 'I', $W, $s + 8, 8, 200);
		ev($t + 10, 'Q', $W, $s + 16, 8, 200);
		ev($t + 11, 'M', $W, $s + 16, 8, 200);
		ev($t + 20, 'Q', $W, $s, 8, 200);
		ev($t + 22, 'F', $W, $s, 8, 200);
		ev($t + 80, 'D', $W, $s, 24, 200);
		ev($t + 380, 'C', $W, $s, 24, 200);
		$t += 1000;
		# back merges, then a requeue: the merged bios go twice
		$s = 30000 + 512 * $k;
		ev($t, 'Q', $R, $s, 8, 100);
		ev($t + 1, 'G', $R, $s, 8, 100);
		ev($t + 4, 'Q', $R, $s + 8, 8, 100);
		ev($t + 5, 'M', $R, $s + 8, 8, 100);
		ev($t + 7, 'Q', $R, $s + 16, 8, 100);
		ev($t + 9, 'M', $R, $s + 16, 8, 100);
		ev($t + 12, 'I', $R, $s, 24, 100);
		ev($t + 30, 'D', $R, $s, 24, 100);
		ev($t + 33, 'R', $R, $s, 24, 100);
		ev($t + 35, 'I', $R, $s, 24, 100);
		ev($t + 200, 'D', $R, $s, 24, 100);
		ev($t + 600, 'C', $R, $s, 24, 100);
		$t += 1000;
	}
} elsif ($shape eq 'noc' || $shape eq 'dc') {
	my $t = 10;
	for my $k (0 .. 5) {
		my ($cat, $pid) = $k % 2 ? ($W, 200) : ($R, 100);
		my @at = $shape eq 'noc' ? (0, 2, 5, 40) : ();
		req($t, $cat, 1000 + 64 * $k, 8, $pid, @at);
		if ($shape eq 'dc') {
			ev($t + 40, 'D', $cat, 1000 + 64 * $k, 8, $pid);
			ev($t + 240, 'C', $cat, 1000 + 64 * $k, 8, $pid);
		}
		$t += 1000;
	}
} else {
	die "usage: mklat.pl lost|requeue|merge|noc|dc > FILE\n";
}
