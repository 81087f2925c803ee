mkslice -r 4 | btsync -c
