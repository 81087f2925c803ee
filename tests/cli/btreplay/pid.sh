# -p: one process only, its completions still matched for its depth.
. tests/cli/btreplay/common.bash
replay 250G -p 3301 --write --no-stall "$(gen)"
