# -V prints "btplot btkit VERSION" and exits 0, before reading any input.
btplot -V nosuch
