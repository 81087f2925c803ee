btreplay --device /dev/null no/such/trace.bin
