# Every command in the EXAMPLES of every tool page and btkit(7) runs on
# sample-traces/ from a scratch directory: the .Dl lines and .Bd -literal
# blocks, mdoc escapes undone, "$ " and "# " prompts dropped, indented
# lines joined to the command above.  Printed are the commands that fail
# (exit status, or a named file that does not exist) and those skipped
# with the reason: "# " commands and btcapture/btreplay need root and a
# device, later commands that read what a skipped or failed one writes
# cannot run, blkparse/btt may be missing.  A sample-traces/ name in a
# skipped command must still exist.  Commands that run and succeed are
# counted, not listed.  Any failure fails the case (exit 1).  The
# per-CPU example of btcat(1) reads "sda": the scratch directory holds
# sda.blktrace.0, the NVMe sample, which is one CPU's file of a set.
set -u
ln -s sample-traces/nvme-readahead-2020.bin sda.blktrace.0 || exit 99
python3 - "$TOP"/man/*.1 "$TOP"/man/btkit.7 <<'PY'
import os, re, shlex, shutil, subprocess, sys

def examples(path):
    """The EXAMPLES commands of a page, in order, grouped by block."""
    cmds, inex, block = [], False, None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith(".Sh "):
            inex = line == ".Sh EXAMPLES"
            continue
        if not inex:
            continue
        if line.startswith(".Bd -literal"):
            block = []
            continue
        if line.startswith(".Ed") and block is not None:
            cmds += join(block)
            block = None
            continue
        if block is not None:
            block.append(line)
        elif line.startswith(".Dl "):
            cmds += join([line[4:]])
    return cmds

def unescape(s):
    return s.replace("\\e", "\\").replace("\\&", "").replace("\\-", "-")

def join(lines):
    out = []
    for raw in lines:
        line = unescape(raw)
        if out and (line[:1].isspace() or out[-1].endswith("\\")):
            out[-1] = out[-1].rstrip("\\").rstrip() + " " + line.strip()
        else:
            out.append(line)
    return [l for l in out if l.strip()]

def words(cmd):
    try:
        return shlex.split(cmd)
    except ValueError:
        return cmd.split()

def written(cmd):
    """Files a command writes: -o/-D/--capture values, blkparse -d, > FILE."""
    ws, out = words(cmd), set()
    prog = ws[0] if ws else ""
    for i, w in enumerate(ws):
        nxt = ws[i + 1] if i + 1 < len(ws) else None
        if w in ("-o", "-D", "--capture", ">") and nxt:
            out.add(nxt)
        elif w.startswith("--capture="):
            out.add(w.split("=", 1)[1])
        elif w == "-d" and prog == "blkparse" and nxt:
            out.add(nxt)
    return out

ran = 0
failed = 0
unavailable = {}
for page in sys.argv[1:]:
    name = "man/" + os.path.basename(page)
    for cmd in examples(page):
        root = cmd.startswith("# ")
        if cmd[:2] in ("$ ", "# "):
            cmd = cmd[2:]
        ws = words(cmd)
        progs = {ws[0]} | {ws[i + 1] for i, w in enumerate(ws[:-1]) if w == "|"}
        missing = [w for w in re.findall(r"sample-traces/[A-Za-z0-9._/-]+", cmd)
                   if not os.path.exists(w)]
        needs = [w for w in ws if w in unavailable]
        reason = None
        if missing:
            print("%s: FAIL (no such file %s): %s" % (name, ", ".join(missing), cmd))
            failed += 1
        elif needs:
            reason = "reads %s, which %s" % (needs[0], unavailable[needs[0]])
        elif root or progs & {"btcapture", "btreplay"}:
            reason = "needs root and a device"
        elif [p for p in progs if p in ("blkparse", "btt") and not shutil.which(p)]:
            reason = "blkparse/btt not installed"
        if missing or reason:
            if reason:
                print("%s: skip (%s): %s" % (name, reason, cmd))
            for f in written(cmd):
                unavailable[f] = "a skipped command writes"
            continue
        p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=60)
        # 141: a reader like head closed the pipe early, as meant.
        if p.returncode not in (0, 141):
            err = p.stderr.decode(errors="replace").strip().splitlines()
            print("%s: FAIL (exit %d: %s): %s" % (name, p.returncode,
                  err[0] if err else "no message", cmd))
            failed += 1
            for f in written(cmd):
                unavailable[f] = "a failed command writes"
        else:
            ran += 1
print("%d other commands ran and succeeded" % ran)
sys.exit(1 if failed else 0)
PY
