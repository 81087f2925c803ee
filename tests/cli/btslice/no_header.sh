mkslice -r 4 | btslice -H
