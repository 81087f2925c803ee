mkslice -r 4 | btsync -e
