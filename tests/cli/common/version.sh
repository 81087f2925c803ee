# -V prints "PROG btkit VERSION" and exits 0, before reading any input.
optcheck -V nosuch
