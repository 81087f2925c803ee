mkslice -r 4 | btsync -p 100
