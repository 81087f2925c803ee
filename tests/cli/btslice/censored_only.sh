# A window that ends while two owners wait: their rows have no completed
# wait, only a censored one, and leave the mean, percentiles, maximum and
# idle share empty instead of printing 0.000.
mkslice -n -r 2 | btslice -w 0:0.002
