mkslice -N -r 4 | btsync --any-flush -e
