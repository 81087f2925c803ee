# -d, -p and -w select lines; times stay relative to the first event.
t=sample-traces/nvme-readahead-2020.bin
btcat -w 0.1:0.2 "$t" | head -n 3
btcat -w 0.1:0.2 "$t" | wc -l
btcat -p 21279 -d 259,0 "$t" | wc -l
btcat -p 1 "$t" | wc -l
btcat -d 259,3 "$t" | wc -l
