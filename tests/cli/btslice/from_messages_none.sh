mkslice -n | btslice --from=messages
