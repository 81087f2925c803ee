# -h prints the usage on stdout and exits 0.
btplot -h
