# A trace cut inside a record (on stdin): the events before the cut are
# printed, then the offset of the bad record, exit 1.
head -c 100000 sample-traces/nvme-readahead-2020.bin |
	btcat | tail -n 3
exit "${PIPESTATUS[1]}"
