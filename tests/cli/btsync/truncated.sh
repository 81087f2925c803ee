mkslice -r 3 | head -c 3000 | btsync
