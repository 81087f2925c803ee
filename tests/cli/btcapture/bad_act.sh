btcapture -a reads -d /dev/null -o -
