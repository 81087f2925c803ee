# A file that does not exist: message naming it, exit 1, nothing printed.
btcat no-such-trace.bin
