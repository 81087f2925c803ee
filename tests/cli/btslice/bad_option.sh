btslice --no-such-option
