btslice -t -3 /dev/null
