btslice /dev/null
