# -j writes JSON Lines in every tool that writes a table: each line parses
# (json.loads), is one object with the tool's columns as keys in order, and
# holds the same rows as the tab-separated table: a number where the text
# has one (equal value), a string where it has text, null where it has ""
# or "-".  Run on the sample traces in each table mode of each tool
# (btcat against its CSV, the only table it has).
set -eu
check() {
	"$@" -H >tsv 2>/dev/null || true
	"$@" >hdr 2>/dev/null || true
	"$@" -j >json 2>/dev/null || true
	python3 - "$*" <<'PY'
import csv, json, sys
cmd = sys.argv[1]
# btcat's table is CSV only (its text is blkparse's): -c, then -j wins.
delim = "," if " -c " in cmd else "\t"
cols = next(csv.reader(open("hdr", newline=""), delimiter=delim))
rows = list(csv.reader(open("tsv", newline=""), delimiter=delim,
                       quoting=csv.QUOTE_NONE if delim == "\t" else csv.QUOTE_MINIMAL))
lines = open("json", "rb").read().split(b"\n")
bad = []
if lines[-1] != b"":
    bad.append("no newline at the end")
lines = lines[:-1]
if len(lines) != len(rows):
    bad.append("%d lines, %d rows" % (len(lines), len(rows)))
for n, (line, row) in enumerate(zip(lines, rows), 1):
    try:
        obj = json.loads(line)
    except ValueError as e:
        bad.append("line %d: %s" % (n, e)); continue
    if not isinstance(obj, dict) or list(obj) != cols:
        bad.append("line %d: keys %s" % (n, list(obj))); continue
    for k, cell in zip(cols, row):
        v = obj[k]
        if cell in ("", "-"):
            ok = v is None
        else:
            try:
                num = float(cell)
            except ValueError:
                num = None
            if isinstance(v, str):
                ok = v == cell
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                ok = num is not None and float(v) == num
            else:
                ok = False
        if not ok:
            bad.append("line %d: %s: %r for %r" % (n, k, v, cell))
            break
if not rows:
    bad.append("no rows")
print("%s: %s" % (cmd, "; ".join(bad[:3]) if bad else "ok"))
PY
}
p=sample-traces/pgbench-bfq.bin.gz
f=sample-traces/fsync-vs-readers-bfq.bin.gz
check btcat -c -w 0:0.05 "$p"
check btlat "$p"
check btlat -P "$p"
check btlat --btt "$p"
check btlat -e -w 0:0.2 "$p"
check btmerge "$p"
check btmerge -P "$p"
check btsize "$p"
check btsize -P "$p"
check btslice "$f"
check btslice -e "$f"
check btsync "$p"
check btsync -e "$f"
check optcheck "$p"
