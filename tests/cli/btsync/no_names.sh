mkslice -N -r 4 | btsync -e
