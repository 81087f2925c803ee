btcapture -o /dev/null
