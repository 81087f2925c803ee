btcapture -b 0 -d /dev/null -o -
