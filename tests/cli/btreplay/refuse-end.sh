# A target smaller than the trace's extent is refused, even with --force.
. tests/cli/btreplay/common.bash
replay 1M --force "$NVME"
