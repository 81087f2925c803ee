# -V in the format every btkit tool prints.
btcapture -V | sed "s/ [0-9][0-9.]*$/ VERSION/"
