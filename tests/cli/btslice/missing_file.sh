btslice does-not-exist.bin
