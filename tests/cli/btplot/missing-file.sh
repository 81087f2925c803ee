# A file that does not exist: message naming it, exit 1, nothing written.
btplot -k iops no-such-trace.bin
