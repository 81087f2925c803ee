btslice --from=guess /dev/null
