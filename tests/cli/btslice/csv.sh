mkslice -r 4 | btslice -c
