#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# mkpc.pl - write a small synthetic blktrace stream (version 7, little
# endian) of the shape USB traces with SCSI pass-through have: file-system
# reads of a kworker's requests beside a disk utility's pass-through (PC)
# commands, which current kernels trace without their command bytes
# (`D   N 0 [gnome-disks]`), most with no data and no completion, one
# reading 512 bytes and completed.  For the btsize golden tests and
# tests/oracle/btsize_counts.sh: every D is counted, PC or not, completed
# or not.
# Usage: mkpc.pl > FILE
use strict;
use warnings;

my $seq = 0;
my $base = 1_000_000_000;		# ns
my $SDB = (8 << 20) | 16;
my ($R, $PC, $NOTIFY) = (1, 512, 1024);
my %A = (Q => 1, G => 4, D => 7, C => 8, I => 12);
binmode STDOUT;

sub rec {
	my (%r) = @_;
	my $pdu = $r{pdu} // '';
	my $s = $r{note} ? 0 : ++$seq;
	print pack('V V Q< Q< V V V V V v v', 0x65617407, $s,
		   $base + $r{us} * 1000, $r{sector} // 0, $r{bytes} // 0,
		   ($r{cat} << 16) | $r{act}, $r{pid}, $SDB, 0, 0,
		   length($pdu)), $pdu;
}

sub note { my ($pid, $comm) = @_;
	rec(note => 1, us => 0, cat => $NOTIFY, act => 0, pid => $pid,
	    pdu => pack('a16', $comm)); }

# ev(us, action, category, sector, bytes, pid)
sub ev {
	my ($us, $a, $cat, $sector, $bytes, $pid) = @_;
	rec(us => $us, act => $A{$a}, cat => $cat, sector => $sector,
	    bytes => $bytes, pid => $a eq 'C' ? 0 : $pid);
}

note(100, 'udisksd');
note(400, 'gnome-disks');

# File-system reads of 4 KiB and 64 KiB, each completed.
my $t = 10;
for my $k (0 .. 5) {
	my $b = $k % 3 ? 4096 : 65536;
	ev($t, 'Q', $R, 2048 + 256 * $k, $b, 100);
	ev($t + 1, 'G', $R, 2048 + 256 * $k, $b, 100);
	ev($t + 2, 'I', $R, 2048 + 256 * $k, $b, 100);
	ev($t + 3, 'D', $R, 2048 + 256 * $k, $b, 100);
	ev($t + 50, 'C', $R, 2048 + 256 * $k, $b, 100);
	$t += 100;
}
# Pass-through commands without data (TEST UNIT READY, SMART status):
# inserted and dispatched, never completed in the trace.
for my $k (0 .. 3) {
	ev($t, 'I', $PC, 0, 0, 400);
	ev($t + 1, 'D', $PC, 0, 0, 400);
	$t += 100;
}
# A pass-through read of 512 bytes (SMART data), completed.
ev($t, 'Q', $PC | $R, 0, 512, 400);
ev($t + 1, 'I', $PC | $R, 0, 512, 400);
ev($t + 2, 'D', $PC | $R, 0, 512, 400);
ev($t + 40, 'C', $PC | $R, 0, 512, 400);
