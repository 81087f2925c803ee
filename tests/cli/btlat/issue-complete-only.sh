# A trace captured with -a issue -a complete (mklat.pl dc: D and C only):
# d2c by default; --btt, which times bios from their Q, has no rows and
# says so; a pid that owns nothing is named; a window past the end too.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl tests/cli/btlat/mklat.pl dc >"$tmp/dc.bin" || exit 99
btlat "$tmp/dc.bin"
btlat --btt "$tmp/dc.bin"
btlat -p 7 "$tmp/dc.bin"
btlat -w 100: "$tmp/dc.bin"
