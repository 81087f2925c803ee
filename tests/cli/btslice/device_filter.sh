mkslice -r 2 | btslice -d 8,0
