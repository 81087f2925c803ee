# Requests whose D and C were lost (mklat.pl lost): 17 s later a write,
# a smaller read and a read of the same size at their sectors take only
# their own times (btt agrees: tests/oracle/btt_latency.sh); the three
# old ones are given up.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl tests/cli/btlat/mklat.pl lost >"$tmp/lost.bin" || exit 99
btlat --btt "$tmp/lost.bin"
btlat "$tmp/lost.bin"
