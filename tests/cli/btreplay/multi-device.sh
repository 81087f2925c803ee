# Two traced devices onto one --target: choose with -d or map with --map.
. tests/cli/btreplay/common.bash
replay 1269808672768 "$NVME" "$(gen)"
echo "exit $?"
replay 1269808672768 -d 259,0 "$NVME" "$(gen)"
echo "exit $?"
btreplay --map 8,0=/dev/null x.bin --target /dev/null
