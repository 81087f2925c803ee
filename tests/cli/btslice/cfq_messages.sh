mkslice -C -r 4 | btslice -e
