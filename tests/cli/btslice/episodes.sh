mkslice -r 4 | btslice -e
