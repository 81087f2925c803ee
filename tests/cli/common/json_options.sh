# -j and -c choose the table format, the last one given counts; -H does not
# matter to JSON Lines, which has no header line.
set -e
p=sample-traces/pgbench-bfq.bin.gz
optcheck -j "$p"
optcheck --json -H "$p"
optcheck -c -j "$p"
optcheck -j -c "$p"
optcheck -jc "$p"
