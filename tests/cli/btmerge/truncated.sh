# A trace cut inside a record (on stdin): results up to the cut, the
# offset of the bad record on stderr, exit 1.
head -c 100000 sample-traces/nvme-readahead-2020.bin | btmerge
exit "${PIPESTATUS[1]}"
