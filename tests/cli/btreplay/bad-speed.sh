# Speed must be a positive number, and --no-stall has none.
btreplay --speed 0 x.bin
echo "exit $?"
btreplay --speed 2 --no-stall x.bin
echo "exit $?"
btreplay --from=C x.bin
echo "exit $?"
btreplay --sched-opt slice_idle x.bin
