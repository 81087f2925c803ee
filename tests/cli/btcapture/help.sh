btcapture -h
