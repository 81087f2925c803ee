# mkreq.pl's cgroup-flagged reads (cgroup 0x42) make a group of their own.
perl tests/cli/btmerge/mkreq.pl > req.bin
btdiff --by=cgroup -m ios,bytes,q2c_p50_us a=req.bin b=req.bin
