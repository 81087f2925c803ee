btcapture -d /dev/null
