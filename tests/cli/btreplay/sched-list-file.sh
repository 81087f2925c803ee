# A regular file has no scheduler: comparing schedulers on one is a usage
# error, after the trace was read and the target checked.
. tests/cli/btreplay/common.bash
replay 1269808672768 --sched=none,bfq "$NVME"
echo "exit $?"
replay 1269808672768 --sched=all --repeat 2 "$NVME"
echo "exit $?"
