# SCSI pass-through from a disk utility (mkpc.pl): PC commands without data
# and without completion (`D   N 0 [gnome-disks]`) are D events the device
# saw: all 11 D are counted, the PC ones in the N row and, with -P, under
# the utility's own pid.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl tests/cli/btsize/mkpc.pl >"$tmp/pc.bin" || exit 99
btsize "$tmp/pc.bin"
btsize -P -H "$tmp/pc.bin"
