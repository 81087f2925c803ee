# As root the device is checked (the CI runs as root); not as root: refused first.
btcapture -d /dev/null -o /dev/null
