mkslice -n -r 6 | btslice -t 25
