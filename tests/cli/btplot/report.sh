# --report: one HTML page with a title naming the traces, devices and
# spans, the five pictures inline (hover text in each) and per trace the
# five tools' tables; nothing that a browser would fetch (no URL, no src,
# no href but in-page anchors), no script.  Two traces, then one.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
btplot --report -o "$tmp/r.html" bfq=sample-traces/pgbench-bfq.bin.gz \
	none=sample-traces/pgbench-none.bin.gz
echo "exit $?"
perl tests/cli/btplot/htmltab.pl <"$tmp/r.html"
echo "external: $(grep -c -i -E 'https?:|src=|href="[^#]|<script|<link|@import|url\([^#]' "$tmp/r.html")"
btplot --report sample-traces/nvme-readahead-2020.bin >"$tmp/n.html"
echo "exit $?"
perl tests/cli/btplot/htmltab.pl <"$tmp/n.html"
