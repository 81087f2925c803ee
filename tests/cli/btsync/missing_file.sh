btsync does-not-exist.bin
