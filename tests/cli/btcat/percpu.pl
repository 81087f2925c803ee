#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# percpu.pl - cut a blktrace stream (version 7, either byte order) into
# the per-CPU files blktrace writes: each record, notes included, goes to
# NAME.blktrace.CPU of the cpu field inside it.
# Usage: percpu.pl NAME < TRACE
use strict;
use warnings;

my $name = shift @ARGV // die "usage: percpu.pl NAME < TRACE\n";
binmode STDIN;
my $data = do { local $/; <STDIN> };
my ($pos, %out) = (0);
while ($pos + 48 <= length $data) {
	my $m = unpack('V', substr($data, $pos, 4));
	my $e = ($m & 0xffffff00) == 0x65617400 ? 'V' : 'N';
	my ($cpu, $plen) = unpack("x40 $e x2 " . ($e eq 'V' ? 'v' : 'n'),
				  substr($data, $pos, 48));
	unless ($out{$cpu}) {
		open($out{$cpu}, '>:raw', "$name.blktrace.$cpu") or die "$!\n";
	}
	print { $out{$cpu} } substr($data, $pos, 48 + $plen);
	$pos += 48 + $plen;
}
die "percpu.pl: trailing bytes\n" if $pos != length $data;
close $_ for values %out;
