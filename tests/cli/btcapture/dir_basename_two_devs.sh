btcapture -d /dev/null -d /dev/zero -D /tmp -o x
