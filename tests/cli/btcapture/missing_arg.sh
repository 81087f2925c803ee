# A missing argument: getopt's message with the program name only, not its path.
"$BTKIT_BIN/btcapture" -d
