btslice -h
