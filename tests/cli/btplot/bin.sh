# --bin sets the column width of iops and depth: 100 ms columns over the
# NVMe sample's 0.35 s are 4 columns, so 4 hover columns per panel.
btplot -k iops --bin 0.1 sample-traces/nvme-readahead-2020.bin >out.svg
grep -o 'column [^;]*' out.svg
grep -c 'class="hv"' out.svg
btplot -k depth --bin 0.05 sample-traces/nvme-readahead-2020.bin | grep -c 'class="hv"'
rm -f out.svg
