#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# mkcommit.pl - write a small synthetic blktrace stream (version 7, little
# endian) of an ext4 trace whose only durability operation is jbd2's own
# commit, three times: journal blocks written as sync writes (WS), then the
# commit block with PREFLUSH and FUA (FWFS), which blk-flush runs as a
# flush request (D FN), the write, and its completion 81 ms after the
# first journal block.  No other process flushes.
# Usage: mkcommit.pl > FILE
use strict;
use warnings;

my $seq = 0;
my $base = 1_000_000_000;		# ns
my $DEV = (8 << 20) | 1;
my ($W, $FLUSH, $SYNC, $NOTIFY, $FUA) = (2, 4, 8, 1024, 32768);
my %A = (Q => 1, G => 4, D => 7, C => 8, I => 12);
binmode STDOUT;

sub rec {
	my (%r) = @_;
	my $pdu = $r{pdu} // '';
	my $s = $r{note} ? 0 : ++$seq;
	print pack('V V Q< Q< V V V V V v v', 0x65617407, $s,
		   $base + $r{us} * 1000, $r{sector} // 0, $r{bytes} // 0,
		   ($r{cat} << 16) | $r{act}, $r{pid}, $DEV, 0, 0,
		   length($pdu)), $pdu;
}

# ev(us, action, category, sector, bytes, pid)
sub ev {
	my ($us, $a, $cat, $sector, $bytes, $pid) = @_;
	rec(us => $us, act => $A{$a}, cat => $cat, sector => $sector,
	    bytes => $bytes, pid => $a eq 'C' ? 0 : $pid);
}

rec(note => 1, us => 0, cat => $NOTIFY, act => 0, pid => 300,
    pdu => pack('a16', 'jbd2/sda1-8'));
for my $k (0 .. 2) {
	my $t = 1000 + 5_000_000 * $k;	# a commit every 5 s
	my $j = 100_000 + 64 * $k;	# journal blocks, then the commit block
	for my $b (0 .. 2) {
		ev($t + 3 * $b, 'Q', $W | $SYNC, $j + 8 * $b, 4096, 300);
		ev($t + 3 * $b + 1, 'G', $W | $SYNC, $j + 8 * $b, 4096, 300);
		ev($t + 3 * $b + 2, 'I', $W | $SYNC, $j + 8 * $b, 4096, 300);
	}
	ev($t + 10 + $_, 'D', $W | $SYNC, $j + 8 * $_, 4096, 300) for 0 .. 2;
	ev($t + 20_000 + $_, 'C', $W | $SYNC, $j + 8 * $_, 4096, 300) for 0 .. 2;
	my $c = $j + 24;
	ev($t + 20_100, 'Q', $FLUSH | $FUA | $W | $SYNC, $c, 4096, 300);
	ev($t + 20_101, 'G', $FLUSH | $FUA | $W | $SYNC, $c, 4096, 300);
	ev($t + 20_102, 'D', $FLUSH, 0, 0, 300);
	ev($t + 60_000, 'C', $FLUSH, 0, 0, 300);
	ev($t + 60_010, 'D', $FUA | $W | $SYNC, $c, 4096, 300);
	ev($t + 81_000, 'C', $FUA | $W | $SYNC, $c, 4096, 300);
}
