# -P with more owners than rows kept (1024): the rest share one row, pid
# "-", comm "(others)", so memory stays bounded.  1100 processes, each one
# 4 KiB read with a 100 us device time.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl -e '
	binmode STDOUT; my %s; my $t = 1e9;
	sub rec { my ($a, $pid, $sec, $c) = @_;
		print pack("V V Q< Q< V V V V V v v", 0x65617407, ++$s{0},
			   $t += ($a == 8 ? 100000 : 1000), $sec, 4096,
			   (1 << 16) | $a, $pid, 8 << 20, 0, 0, 0); }
	for my $p (1 .. 1100) { rec($_, 1000 + $p, $p * 8) for (1, 4, 7, 8) }
' >"$tmp/many.bin" || exit 99
btlat -P -H "$tmp/many.bin" | awk '$5 == "d2c"' | sed -n '1p;1024,$p'
