mkslice -r 10 | btsync -w 0.05:0.1
