# Two recordings of the same loop device given together: their per-CPU
# sequences repeat, but no record is a copy of another, so nothing is
# dropped.  Both carry TIMESTAMP notes: merged by absolute time, with one
# warning that they are separate recordings.  btsize's counts are the
# sums of the two runs' own.
bfq=sample-traces/fsync-vs-readers-bfq.bin.gz
none=sample-traces/fsync-vs-readers-none.bin.gz
btsync $bfq $none 2>&1
btsize -H $bfq
btsize -H $none
btsize $bfq $none 2>&1
btcat $bfq $none 2>/dev/null | wc -l
btcat $bfq 2>/dev/null | wc -l
btcat $none 2>/dev/null | wc -l
