mkslice | btslice
