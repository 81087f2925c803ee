# --map: each traced device onto its own target (here two sparse files);
# a traced device without a map is a usage error.  (The two traces have
# different time origins: --no-stall.)
. tests/cli/btreplay/common.bash
g=$(gen)
truncate -s 1269808672768 "$tmp/nvme"
truncate -s 250G "$tmp/sda"
btreplay --map 259,0="$tmp/nvme" --map 8:0="$tmp/sda" --write --no-stall "$NVME" "$g" \
	2>"$tmp/err" | cut -f1-4,10
echo "exit ${PIPESTATUS[0]}"
sed -e "s|$tmp|TMP|g" -e "s/in [0-9.]* s ([0-9]* IOPS)/in T s (N IOPS)/" "$tmp/err" >&2
btreplay --map 259,0="$tmp/nvme" --write "$NVME" "$g" | cut -f1-4,10
echo "exit ${PIPESTATUS[0]}"
