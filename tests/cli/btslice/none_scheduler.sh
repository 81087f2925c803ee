mkslice -n | btslice
