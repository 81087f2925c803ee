# A per-CPU basename also finds NAME.blktrace.N.gz, as btcapture -D DIR -z
# writes them: the gzipped set reads as the plain one.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
H=$PWD/tests/cli/btcat
zcat sample-traces/fsync-vs-readers-none.bin.gz >"$tmp/t.bin" || exit 99
mkdir "$tmp/plain" "$tmp/gz" || exit 99
(cd "$tmp/plain" && perl "$H/percpu.pl" run <../t.bin) || exit 99
(cd "$tmp/gz" && perl "$H/percpu.pl" run <../t.bin && gzip run.blktrace.*) || exit 99
cd "$tmp" || exit 99
ls gz
btcat plain/run | md5sum
btcat gz/run | md5sum
btsync -H gz/run
