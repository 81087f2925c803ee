# A zoned device's version-8 trace (mktrace.pl -z): zone management
# commands (rwbs ZR, ZO, ZF, ZC, ZRA), two zone appends to one zone that
# complete where the device put them, each C followed by the kernel's
# record of the bio's new sector, and a write held in its zone's write
# plug (ZP, ZU), as blkparse's v8 series prints them; then the same as CSV.
# Big-endian, the same lines.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl tests/cli/btcat/mktrace.pl -z >"$tmp/z.bin" || exit 99
perl tests/cli/btcat/mktrace.pl -z -b >"$tmp/zb.bin" || exit 99
cd "$tmp" || exit 99
btcat z.bin
btcat -c z.bin
btcat z.bin | cmp - <(btcat zb.bin) && echo "big-endian: same lines"
# blkparse -s counts ZU as an IO unplug (CPU 0, pid 2201, the device).
btcat -s z.bin | grep -E '^[a-z]+ \(|^CPU|^Total|IO unplugs'
