btcapture -w -1 -d /dev/null -o -
