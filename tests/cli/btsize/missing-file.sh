# A file that does not exist: message naming it, exit 1, nothing printed.
btsize no-such-trace.bin
