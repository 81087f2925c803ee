#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# repeat.pl - write a blktrace stream (version 7, either byte order) with
# every record N times in a row, the shape of a `blkparse -d` dump of an
# input given N times: the copies of a record are adjacent, notes and
# scheduler messages (sequence 0) included.  -s first numbers the events'
# sequences per device and CPU from 1 where they are 0, as blktrace does,
# so a synthetic trace of sequence-less records gets the real shape.
# Usage: repeat.pl [-s] N < TRACE > DUMP
use strict;
use warnings;

my $number = 0;
if (@ARGV && $ARGV[0] eq '-s') {
	$number = 1;
	shift @ARGV;
}
my $n = shift @ARGV // die "usage: repeat.pl [-s] N < TRACE > DUMP\n";
binmode STDIN;
binmode STDOUT;
my $data = do { local $/; <STDIN> };
my ($pos, %seq) = (0);
while ($pos + 48 <= length $data) {
	my $m = unpack('V', substr($data, $pos, 4));
	my $e = ($m & 0xffffff00) == 0x65617400 ? 'V' : 'N';
	my ($act, $dev, $cpu, $plen) =
		unpack("x28 $e x4 $e $e x2 " . ($e eq 'V' ? 'v' : 'n'),
		       substr($data, $pos, 48));
	my $rec = substr($data, $pos, 48 + $plen);
	if ($number && !(($act >> 16) & 0x400) &&
	    unpack($e, substr($rec, 4, 4)) == 0) {
		substr($rec, 4, 4) = pack($e, ++$seq{"$dev/$cpu"});
	}
	print $rec x $n;
	$pos += 48 + $plen;
}
die "repeat.pl: trailing bytes\n" if $pos != length $data;
