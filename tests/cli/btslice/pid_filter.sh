mkslice -r 4 | btslice -p 100
