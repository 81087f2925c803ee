# A trace cut inside a record: what was read is replayed, the offset of
# the bad record reported, exit 1.
. tests/cli/btreplay/common.bash
head -c 100000 "$NVME" >"$tmp/cut.bin"
replay 1269808672768 "$tmp/cut.bin"
