mkslice -N -r 4 | btsync --journal-pid 300 -e
