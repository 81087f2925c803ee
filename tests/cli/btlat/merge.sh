# Merged bios (mklat.pl merge): --btt adds q2q (each Q from the one
# before), q2m (each merged bio's Q to its M or F) and m2d (each merged
# bio's M or F to every D of its request, but the front-merged bio the I
# is timed on), as btt's All Devices table: 62, 51 and 54 samples.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl tests/cli/btlat/mklat.pl merge >"$tmp/merge.bin" || exit 99
btlat --btt "$tmp/merge.bin"
