# CSV leaves a missing number empty where text writes "-": q2d and q2c
# of the requests without Q in -e -c (mkreq.pl's flush without Q, the
# empty preflush without D), and the pid of the "(others)" row in -P -c.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl tests/cli/btmerge/mkreq.pl >"$tmp/req.bin" || exit 99
btlat -e -c "$tmp/req.bin" | grep ',F,'
btlat -e "$tmp/req.bin" | grep "$(printf '\tF\t')"
perl -e '
	binmode STDOUT; my %s; my $t = 1e9;
	sub rec { my ($a, $pid, $sec) = @_;
		print pack("V V Q< Q< V V V V V v v", 0x65617407, ++$s{0},
			   $t += ($a == 8 ? 100000 : 1000), $sec, 4096,
			   (1 << 16) | $a, $pid, 8 << 20, 0, 0, 0); }
	for my $p (1 .. 1030) { rec($_, 1000 + $p, $p * 8) for (1, 7, 8) }
' >"$tmp/many.bin" || exit 99
btlat -P -c -H "$tmp/many.bin" | grep others
