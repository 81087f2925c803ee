# -h prints the usage with the common options to stdout and exits 0.
optcheck -h
