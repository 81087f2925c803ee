# A trace with only D and C events (as `btcapture -a issue -a complete`
# records): the default --from=Q has no bio to replay, so btreplay says
# which events are missing and that --from=D works, and exits 1 (nothing
# replayed is no measurement); --from=D replays the 963 requests.
. tests/cli/btreplay/common.bash
# Keep notes and D/C records of the NVMe trace, numbered again as such a
# capture numbers them.
perl tests/cli/btmerge/keep.pl D C <"$NVME" >"$tmp/dc.bin" || exit 99
replay 1269808672768 "$tmp/dc.bin"
echo "exit $?"
replay 1269808672768 --from=D "$tmp/dc.bin"
echo "exit $?"
