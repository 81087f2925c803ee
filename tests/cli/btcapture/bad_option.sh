btcapture -x -d /dev/null -o -
