btcapture --via=magic -d /dev/null -o -
