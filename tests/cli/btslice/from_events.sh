mkslice | btslice --from=events
