# Text that blkparse (or btcat) printed, and data of compressors other
# than gzip, are named in the error: exit 1, file and offset as usual.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
btcat sample-traces/nvme-readahead-2020.bin | head -20 >"$tmp/trace.txt"
printf '\3757zXZ\0\0\4\346\326\264F\2\0!\1' >"$tmp/trace.bin.xz"
printf '(\265/\375\4XE\0\0\20\0\0\0\0\0\0' >"$tmp/trace.bin.zst"
cd "$tmp" || exit 99
btlat trace.txt; echo "exit $?"
btcat trace.bin.xz; echo "exit $?"
btslice - <trace.bin.zst; echo "exit $?"
