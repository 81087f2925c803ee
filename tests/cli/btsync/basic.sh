mkslice | btsync
