# One request of each shape (mkreq.pl): back and front merges, requeue,
# split, empty preflush and blk-flush flush, partition and dm remaps,
# partial completion, cgroup-flagged events, a lost completion, a discard.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl tests/cli/btmerge/mkreq.pl >"$tmp/req.bin" || exit 99
btlat "$tmp/req.bin"
