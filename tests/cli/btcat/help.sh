# -h prints the usage to stdout and exits 0.
btcat -h
