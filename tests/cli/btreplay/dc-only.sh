# A trace with only D and C events (as `btcapture -a issue -a complete`
# records): the default --from=Q has no bio to replay, so btreplay says
# which events are missing and that --from=D works, and exits 1 (nothing
# replayed is no measurement); --from=D replays the 963 requests.
. tests/cli/btreplay/common.bash
# Keep notes and D/C records of the NVMe trace (v7: 48-byte header).
perl -e 'binmode STDIN; binmode STDOUT; local $/;
	my $b = <STDIN>; my $o = 0;
	while ($o + 48 <= length $b) {
		my ($act, $plen) = (unpack("V", substr($b, $o + 28, 4)),
				    unpack("v", substr($b, $o + 46, 2)));
		my $r = substr($b, $o, 48 + $plen); $o += 48 + $plen;
		my $a = $act & 0xffff;
		print $r if $a == 7 || $a == 8 || (($act >> 16) & 0x400 && $a <= 2);
	}' <"$NVME" >"$tmp/dc.bin"
replay 1269808672768 "$tmp/dc.bin"
echo "exit $?"
replay 1269808672768 --from=D "$tmp/dc.bin"
echo "exit $?"
