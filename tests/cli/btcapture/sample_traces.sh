# The btcapture sample traces: blkparse reads each, every pid has a name.
for f in sample-traces/*.bin.gz; do
	zcat "$f" | blkparse -i - >/tmp/btcapture-sample.$$ 2>&1
	printf '%s %s null=%s\n' "${f##*/}" \
		"$(grep '^Events' /tmp/btcapture-sample.$$)" \
		"$(grep -c '(null)' /tmp/btcapture-sample.$$)"
done
rm -f /tmp/btcapture-sample.$$
