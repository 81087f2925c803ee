# -c: one CSV row per event with a header; -H drops the header.
t=sample-traces/nvme-readahead-2020.bin
btcat -c "$t" | head -n 8
btcat -c -H "$t" | tail -n 2
