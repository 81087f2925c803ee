#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# What a btplot report holds, for the golden cases (the page is large):
# with no argument an outline, the title, each heading, and per section
# its tables (columns, rows), pictures (size, hover cells) and verdict
# line (btdiff's, in full: it is short); with
# SECTION [TRACE] the table of that section (under that trace's <h3> when
# several traces) as tab-separated text with a header line, entities
# decoded: what the tool of that name prints, byte for byte.
use strict;
use warnings;

local $/;
my $html = <STDIN> // '';
my ($want, $trace) = @ARGV;

sub text {
	my $s = shift;
	$s =~ s/<[^>]*>//g;
	my %e = (lt => '<', gt => '>', amp => '&', quot => '"', apos => "'");
	$s =~ s/&(lt|gt|amp|quot|apos);/$e{$1}/g;
	return $s;
}

sub tsv {
	my $t = shift;
	my @out;
	while ($t =~ /<tr>(.*?)<\/tr>/gs) {
		my $row = $1;
		my @c;
		push @c, text($1) while $row =~ /<t[hd][^>]*>(.*?)<\/t[hd]>/gs;
		push @out, join("\t", @c) . "\n";
	}
	return @out;
}

my ($section, $sub) = ('', '');
if (!defined $want) {
	print "title: ", text($1), "\n" if $html =~ /<title>(.*?)<\/title>/s;
	print "h1: ", text($1), "\n" if $html =~ /<h1>(.*?)<\/h1>/s;
}
# Walk the page's blocks in order: headings, tables, pictures, notes,
# verdicts.
while ($html =~ /(<h2 id="([^"]*)">(.*?)<\/h2>|<h3>(.*?)<\/h3>|<table>.*?<\/table>|<svg .*?<\/svg>|<p class="none">(.*?)<\/p>|<p class="verdict">(.*?)<\/p>)/gs) {
	my $b = $1;
	if (defined $2) {
		($section, $sub) = ($2, '');
		print "h2 $2: ", text($3), "\n" unless defined $want;
	} elsif (defined $4) {
		$sub = text($4);
		print "  h3: $sub\n" unless defined $want;
	} elsif (defined $5) {
		print "  none: ", text($5), "\n" unless defined $want;
	} elsif (defined $6) {
		print "  ", text($6), "\n" unless defined $want;
	} elsif ($b =~ /^<table>/) {
		my @rows = tsv($b);
		if (defined $want) {
			print @rows if $section eq $want &&
			    (!defined $trace || $sub eq $trace);
			next;
		}
		my $head = shift @rows // '';
		$head =~ s/\n$//;
		printf "  table: %d rows: %s\n", scalar(@rows), $head;
	} elsif (!defined $want) {
		my ($w, $h) = $b =~ /^<svg width="([0-9.]+)" height="([0-9.]+)"/;
		my $hover = () = $b =~ /<(?:rect|polyline)[^>]*><title>/g;
		printf "  svg: %s x %s, %s hover\n", $w // '?', $h // '?',
		    $hover ? 'with' : 'no';
	}
}
