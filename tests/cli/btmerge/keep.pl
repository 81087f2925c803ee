#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# keep.pl - copy a blktrace stream (version 7, little endian, the layout of
# sample-traces/) from stdin to stdout keeping only the events whose action
# letter is given, and every note: what a capture with an action mask
# (`blktrace -a issue -a complete`) records.
# Usage: zcat TRACE.gz | keep.pl D C > FILE
use strict;
use warnings;

my %code = (Q => 1, M => 2, F => 3, G => 4, S => 5, R => 6, D => 7, C => 8,
	    P => 9, U => 10, UT => 11, I => 12, X => 13, B => 14, A => 15);
my %keep = map { ($code{$_} // die "keep.pl: no action '$_'\n") => 1 } @ARGV;
binmode STDIN;
binmode STDOUT;
my $hdr;
while ((my $n = read(STDIN, $hdr, 48)) > 0) {
	die "keep.pl: truncated header\n" if $n < 48;
	my ($magic, $act, $len) = unpack('V x24 V x14 v', $hdr);
	die sprintf("keep.pl: bad magic 0x%08x\n", $magic)
	    if ($magic & 0xffffff00) != 0x65617400;
	my $pdu = '';
	die "keep.pl: truncated payload\n"
	    if $len && read(STDIN, $pdu, $len) != $len;
	my $note = ($act >> 16) & 1024;
	print $hdr, $pdu if $note || $keep{$act & 0xff};
}
