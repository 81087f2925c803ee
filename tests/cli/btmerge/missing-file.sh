# A file that does not exist: message naming it, exit 1, nothing printed.
btmerge no-such-trace.bin
