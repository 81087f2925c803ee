#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# What a btplot picture holds, for the golden cases (whole SVGs would be
# large and say nothing at a glance): the size, the count of each element,
# how many cells carry hover text, and every text drawn that is not a
# plain number (headings, panel labels, axis titles, units, legends).
# Well-formedness is xmllint's job in the cases themselves.
use strict;
use warnings;

local $/;
my $svg = <STDIN> // '';
my %n;
$n{$1}++ while $svg =~ /<([a-zA-Z]+)[\s>\/]/g;
print "bytes: ", (length($svg) > 0 ? "some" : "none"), "\n";
print "elements:", (map { " $_=$n{$_}" } sort keys %n), "\n";
my $hover = () = $svg =~ /<(?:rect|polyline)[^>]*><title>/g;
print "hover: $hover\n";
my %seen;
while ($svg =~ /<text[^>]*>(?:<title>[^<]*<\/title>\s*)?([^<]*)<\/text>/g) {
	my $t = $1;
	next if $t =~ /^-?[0-9.]+$/;
	# tick labels of latency and offset axes count once
	next if $seen{$t}++ && $t =~ /^[0-9.]+ (?:ns|\x{c2}\x{b5}s|ms|s)$/;
	print "text: $t\n";
}
