#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# mktrace.pl - write a small synthetic blktrace stream (version 7, little
# endian) with every line shape blkparse prints and the ordering cases
# btcat must reproduce: PROCESS notes that follow their pid's first events
# in the same batch of 512, a pid named twice (the first name wins), equal
# timestamps on two CPUs, PC requests, messages (plain, with a NUL, empty,
# cgroup-flagged), cgroup-flagged I/O, abort and driver-data records.
# Per-CPU sequences stay contiguous, as blkparse's pipe mode expects.
# -g leaves a gap in a CPU's sequence numbers: blkparse reading a stream
# then holds everything back to the end and names it with every note.
# -z writes a zoned device's trace instead (version 8 only): zone
# management commands, zone appends completing where the device put them
# (with the kernel's extra record for each), zone write plugging.
# Usage: mktrace.pl [-b] [-8] [-g] [-z] > FILE   (-b big-endian, -8 version 8)
use strict;
use warnings;

my ($big, $v8, $gap, $zoned) = (0, 0, 0, 0);
for (@ARGV) {
	$big = 1 if $_ eq '-b';
	$v8 = 1 if $_ eq '-8';
	$gap = 1 if $_ eq '-g';
	($zoned, $v8) = (1, 1) if $_ eq '-z';
}
my %seq;
my $t = 5_000_000_123_456;
binmode STDOUT;

sub dev { my ($ma, $mi) = @_; return ($ma << 20) | $mi; }

sub rec {
	my (%r) = @_;
	my $pdu = $r{pdu} // '';
	my $act = ($r{cat} << 16) | $r{act};
	my $e = $big ? '>' : '<';
	if (defined $r{cgroup}) {
		$act |= 0x100;
		$pdu = pack("Q$e", $r{cgroup}) . $pdu;
	}
	my $cpu = $r{cpu} // 0;
	my $dev = $r{dev} // dev(8, 16);
	my $s = $r{seq} // ($r{note} ? 0 : ++$seq{"$dev/$cpu"});
	my @f = ($s, $r{time} // $t, $r{sector} // 0, $r{bytes} // 0);
	if ($v8) {
		print pack("L$e L$e Q$e Q$e L$e L$e Q$e L$e L$e S$e S$e x12",
			   0x65617408, @f, $r{pid} // 0, $act, $dev, $cpu,
			   $r{error} // 0, length($pdu)), $pdu;
	} else {
		print pack("L$e L$e Q$e Q$e L$e L$e L$e L$e L$e S$e S$e",
			   0x65617407, @f, $act, $r{pid} // 0, $dev, $cpu,
			   $r{error} // 0, length($pdu)), $pdu;
	}
}

# Categories and actions of the blktrace API.
my ($R, $W, $FLUSH, $SYNC, $QUEUE, $COMPLETE, $PC, $NOTIFY, $AHEAD, $META,
    $DISCARD, $FUA) = (1, 2, 4, 8, 16, 128, 512, 1024, 2048, 4096, 8192,
    32768);

sub note_process {
	my ($pid, $comm) = @_;
	rec(note => 1, cat => $NOTIFY, act => 0, pid => $pid,
	    pdu => pack('a16', $comm));
}

sub message {
	my ($text, %o) = @_;
	rec(note => 1, cat => $NOTIFY, act => 2, pid => $o{pid} // 4242,
	    cpu => $o{cpu} // 1, pdu => $text, cgroup => $o{cgroup});
}

if ($zoned) {
	zoned();
	exit 0;
}

note_process(100, 'fio');
message('cfq100 add_to_rr');
my @cats = ($R, $W, $W | $SYNC, $R | $AHEAD | $META,
	    $FLUSH | $W | $FUA | $SYNC, $DISCARD | $W, $FLUSH);
my $n = 0;
for my $cat (@cats, @cats) {
	for my $act (1 .. 18) {
		for my $bytes (0, 4096 * $act) {
			for my $pc (0, 1) {
				$t += 1000 + $act;
				my $pdu = '';
				if ($pc) {
					$pdu = pack('C*', 0x28, 0, 0x12, 0, 0, 0xff,
						    (0) x 10) if $act % 2;
				} elsif ($act == 10 || $act == 11 || $act == 13) {
					$pdu = pack('Q>', 77 + $act);
				} elsif ($act == 15) {
					$pdu = pack('N N Q>', dev(8, 17), dev(8, 16),
						    2048 + $act);
				}
				rec(act => $act, cat => $cat | ($pc ? $PC : 0) |
				    ($act == 1 ? $QUEUE : 0) |
				    ($act == 8 ? $COMPLETE : 0),
				    sector => 123_456_789 * $act, bytes => $bytes,
				    pid => 99 + $act % 4, cpu => $act % 3,
				    error => ($act == 8 && $bytes ? 65531 : 0),
				    pdu => $pdu);
				$n++;
				# pid 101 is named only after its first events,
				# in the same batch; pid 100 is named twice.
				note_process(101, 'abcdefghijklmnopq') if $n == 20;
				note_process(100, 'renamed') if $n == 30;
				# pid 102 is named in the second batch only.
				note_process(102, 'late') if $n == 600;
				$seq{dev(8, 16) . '/0'} += 3 if $gap && $n == 300;
			}
		}
	}
}
$t += 500; message("msg\0after a NUL");
$t += 500; message('');
$t += 500; message('bfq100S add to busy', cgroup => 1, pid => 100);
$t += 500; message('bfq cg', cgroup => 0x12345 * 2**32 + 0xabc);
$t += 500;
rec(act => 1, cat => $R | $QUEUE, pid => 100, sector => 8, bytes => 4096,
    cgroup => 77);
# Equal timestamps on two CPUs and on one: blkparse's tie order.
$t += 500;
for my $cpu (1, 0, 1, 0) {
	rec(act => 7, cat => $W, pid => 100, cpu => $cpu, sector => 64,
	    bytes => 512);
}
rec(act => 7, cat => $W, pid => 4_000_000_000, dev => dev(4095, 1048575),
    cpu => 3, seq => 3_000_000_000, sector => ~0, bytes => 512);

# Zoned: categories of version 8 (bits 32-37 of the action word), the zone
# write plug actions 18 (ZP) and 19 (ZU), FS (256) and ISSUE (64).
sub zoned {
	my ($FS, $ISSUE, $ZAPP, $ZRESET, $ZRESETALL, $ZFINISH, $ZOPEN,
	    $ZCLOSE) = (256, 64, 1 << 16, 1 << 17, 1 << 18, 1 << 19, 1 << 20,
	    1 << 21);
	my $zone = 524288;	# 256 MiB zones
	my %at = (Q => [1, $QUEUE], G => [4, $QUEUE], D => [7, $ISSUE | $FS],
		  C => [8, $COMPLETE | $FS]);
	my $ev = sub {
		my ($what, $cat, $sector, $bytes, $pid, $cpu) = @_;
		$t += 1000;
		rec(act => $at{$what}[0], cat => $cat | $at{$what}[1],
		    sector => $sector, bytes => $bytes,
		    pid => $what eq 'C' ? 0 : $pid, cpu => $cpu // 0);
	};
	my $cmd = sub {
		my ($cat, $sector, $pid) = @_;
		$ev->($_, $cat | $SYNC, $sector, 0, $pid) for qw(Q G D C);
	};
	note_process(2201, 'fio');
	note_process(2202, 'blkzone');
	$cmd->($W | $ZRESET, $zone, 2202);
	$cmd->($ZOPEN, 2 * $zone, 2202);
	# Two appends to one zone, both dispatched at its start; the device
	# writes the 8 KiB one first.  After each C the kernel's record of the
	# bio's new sector: action C without the COMPLETE category.
	my $za = $W | $SYNC | $ZAPP;
	$ev->('Q', $za, $zone, 4096, 2201, 1);
	$ev->('G', $za, $zone, 4096, 2201, 1);
	$ev->('Q', $za, $zone, 8192, 2201, 1);
	$ev->('G', $za, $zone, 8192, 2201, 1);
	$ev->('D', $za, $zone, 4096, 2201, 1);
	$ev->('D', $za, $zone, 8192, 2201, 1);
	$ev->('C', $za, $zone, 8192, 0, 1);
	$t += 1000;
	rec(act => 8, cat => $za | $FS, sector => $zone, bytes => 8192,
	    cpu => 1);
	$ev->('C', $za, $zone + 16, 4096, 0, 1);
	$t += 1000;
	rec(act => 8, cat => $za | $FS, sector => $zone + 16, bytes => 4096,
	    cpu => 1);
	# A write waits in its zone's write plug (ZP) until the write ahead of
	# it completes, then leaves it (ZU): no payload, sector and bytes of
	# the bio, opf 0 (a read in rwbs).
	my $w = $W | $SYNC;
	$ev->('Q', $w, 3 * $zone, 4096, 2201);
	$ev->('G', $w, 3 * $zone, 4096, 2201);
	$ev->('D', $w, 3 * $zone, 4096, 2201);
	$ev->('Q', $w, 3 * $zone + 8, 4096, 2201);
	$t += 1000;
	rec(act => 18, cat => $R | $QUEUE, sector => 3 * $zone + 8,
	    bytes => 4096, pid => 2201);
	$ev->('C', $w, 3 * $zone, 4096, 0);
	$t += 1000;
	rec(act => 19, cat => $R | $QUEUE, sector => 3 * $zone + 8,
	    bytes => 4096, pid => 2201);
	$ev->('G', $w, 3 * $zone + 8, 4096, 2201);
	$ev->('D', $w, 3 * $zone + 8, 4096, 2201);
	$ev->('C', $w, 3 * $zone + 8, 4096, 0);
	$cmd->($ZFINISH, 3 * $zone, 2202);
	$cmd->($W | $ZCLOSE, 2 * $zone, 2202);
	$cmd->($W | $ZRESETALL, 0, 2202);
}
