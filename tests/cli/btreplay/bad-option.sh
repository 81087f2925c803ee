btreplay --bogus x.bin
echo "exit $?"
btreplay -x x.bin
echo "exit $?"
btreplay x.bin --target
