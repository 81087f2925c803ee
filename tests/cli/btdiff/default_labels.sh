# Default labels: no directories, no .gz/.bin/.blktrace.N; a per-CPU
# basename is labelled by its name; a word that names an existing file
# is a path even with '=' in it.
mkdir d
cp sample-traces/pgbench-bfq.bin.gz d/bfq.bin.gz
zcat sample-traces/pgbench-none.bin.gz > none.blktrace.0
cp sample-traces/fsync-vs-readers-none.bin.gz 'x=1.bin.gz'
btdiff -m ios d/bfq.bin.gz none.blktrace.0 none 'x=1.bin.gz' 2>&1 || echo "exit $?"
btdiff -m ios d/bfq.bin.gz none 'x=1.bin.gz'
