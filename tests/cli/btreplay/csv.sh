# -c: the same report as CSV, without header with -H.
. tests/cli/btreplay/common.bash
replay 250G -c --write --speed 4 "$(gen)"
replay 1269808672768 -c -H "$NVME"
