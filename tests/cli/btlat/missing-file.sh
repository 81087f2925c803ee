# A file that does not exist: message naming it, exit 1, nothing printed.
btlat no-such-trace.bin
