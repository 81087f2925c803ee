mkslice -r 4 | btsync -H
