# A CFQ-era run (mklat.pl requeue): requests requeued up to three times
# and FWFS writes behind blk-flush's preflush.  --btt times g2i once per
# I and i2d once per D, as btt does (46 each here, one per I and per D);
# by default each request is one sample.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl tests/cli/btlat/mklat.pl requeue >"$tmp/rq.bin" || exit 99
btlat --btt "$tmp/rq.bin"
btlat "$tmp/rq.bin"
