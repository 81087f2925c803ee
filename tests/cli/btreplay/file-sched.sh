# A regular file has no scheduler: --sched is ignored with a note.
. tests/cli/btreplay/common.bash
replay 1269808672768 --sched=bfq "$NVME"
