# SPDX-License-Identifier: MIT
# btcat text on stdin -> one fio iolog (version 2) per traced pid,
# DIR/PID.log, naming DEV: the trace's Q events as btreplay loads them
# (a preflush is a datasync before the I/O, an empty flush a datasync,
# a discard a trim; FUA is not expressible and becomes a plain write).
# The remainder of a split bio, queued again by the kernel (same device,
# pid and sector), is not new I/O and is left out, as btreplay does.  Sectors are taken as traced, as
# fio --read_iolog does with the binary trace.  Prints the pids, in order
# of first I/O.
#   awk -v dir=DIR -v dev=DEV -f fio_iolog.awk
$6 == "X" && $9 == "/" {
	split_at[$1 " " $5 " " $10] = 1
	next
}
$6 == "Q" {
	if (($1 " " $5 " " $8) in split_at) {
		delete split_at[$1 " " $5 " " $8]
		next
	}
	pid = $5
	f = dir "/" pid ".log"
	if (!(pid in seen)) {
		seen[pid] = ++npids
		order[npids] = pid
		print "fio version 2 iolog\n" dev " add\n" dev " open" > f
	}
	rwbs = $7
	if (rwbs ~ /^F/) {
		print dev " datasync 0 0" > f
		rwbs = substr(rwbs, 2)
	}
	if ($9 != "+" || $10 == 0)
		next
	if (rwbs ~ /D/)
		op = "trim"
	else if (rwbs ~ /W/)
		op = "write"
	else if (rwbs ~ /R/)
		op = "read"
	else
		next
	printf "%s %s %.0f %.0f\n", dev, op, $8 * 512, $10 * 512 > f
}
END {
	for (i = 1; i <= npids; i++) {
		f = dir "/" order[i] ".log"
		print dev " close" > f
		close(f)
		printf "%s%s", (i > 1 ? " " : ""), order[i]
	}
	print ""
}
