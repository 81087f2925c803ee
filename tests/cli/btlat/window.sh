# -w START:END keeps events from START to before END seconds after the
# first event: here the first 40 ms of the NVMe trace.
btlat -w 0:0.04 sample-traces/nvme-readahead-2020.bin
