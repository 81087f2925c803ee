# -P: rows per owner process (pid of each request's first bio, names from
# PROCESS notes); -p PID keeps one owner although D and C run elsewhere.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
perl tests/cli/btmerge/mkreq.pl >"$tmp/req.bin" || exit 99
btsize -P "$tmp/req.bin" && btsize -p 100 "$tmp/req.bin"
