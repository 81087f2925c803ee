btreplay --target /dev/null no/such/trace.bin
