mkslice -r 10 | btslice -w 0.05:0.1
