#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# repeat.pl N IN OUT: write a blktrace stream (version 7, little-endian, as
# the sample traces are) holding IN's records N times over, each copy
# shifted in time by IN's span plus 1 us, with sequences renumbered: a
# trace long enough to time a replay of a short one (bench/replay.sh).
use strict;
use warnings;

die "usage: repeat.pl N IN OUT\n" unless @ARGV == 3 && $ARGV[0] =~ /^[1-9][0-9]*$/;
my ($n, $in, $out) = @ARGV;
open(my $fh, '<:raw', $in) or die "repeat.pl: $in: $!\n";
my $data = do { local $/; <$fh> };
close($fh);

my (@recs, $first, $last);
my $off = 0;
while ($off < length($data)) {
	die "repeat.pl: $in: offset $off: truncated record\n" if length($data) - $off < 48;
	my ($magic, $seq, $time, $rest) = unpack('V V Q< a32', substr($data, $off, 48));
	die sprintf("repeat.pl: %s: offset %d: not a little-endian version 7 record (magic %#x)\n",
		    $in, $off, $magic) unless $magic == 0x65617407;
	my $pdu_len = unpack('v', substr($rest, 30, 2));
	die "repeat.pl: $in: offset $off: truncated record\n" if length($data) - $off < 48 + $pdu_len;
	push @recs, [$magic, $time, $rest . substr($data, $off + 48, $pdu_len)];
	$first = $time if !defined $first || $time < $first;
	$last = $time if !defined $last || $time > $last;
	$off += 48 + $pdu_len;
}
die "repeat.pl: $in: no records\n" unless @recs;
my $span = $last - $first + 1000;
open(my $o, '>:raw', $out) or die "repeat.pl: $out: $!\n";
my $seq = 0;
for my $k (0 .. $n - 1) {
	for my $r (@recs) {
		print $o pack('V V Q<', $r->[0], ++$seq, $r->[1] + $k * $span), $r->[2];
	}
}
close($o) or die "repeat.pl: $out: $!\n";
