mkslice -n | btsync
