# The example programs (examples/*.c, built on libbtkit.so of the build
# tree) agree with the tools on every sample trace: fsync_count with the
# first three columns of btsync, slowest with the ten largest q2c_us of
# btlat -e (ties in time order).  A difference is shown as a diff.
set -u
ex=$TOP/$B/examples
for t in sample-traces/*.bin*; do
	"$ex/fsync_count" "$t" >fsync.got
	btsync -H "$t" | cut -f1-3 >fsync.want
	if cmp -s fsync.got fsync.want && [ -s fsync.want ]; then
		echo "fsync_count $t: as btsync"
	elif cmp -s fsync.got fsync.want; then
		echo "fsync_count $t: no episodes, as btsync"
	else
		echo "fsync_count $t: differs from btsync"; diff fsync.want fsync.got
	fi
	"$ex/slowest" "$t" >slow.got
	btlat -e "$t" | awk -F'\t' 'NR == 1 || $9 != "-"' | {
		IFS= read -r h; echo "$h"
		sort -t$'\t' -k9,9gr -k1,1g | head -10
	} | cut -f2-6,9 >slow.want
	if cmp -s slow.got slow.want && [ "$(wc -l <slow.want)" -eq 11 ]; then
		echo "slowest $t: as btlat -e"
	else
		echo "slowest $t: differs from btlat -e"; diff slow.want slow.got
	fi
done
