# -d, -p and -w select events; notes pass every filter but -d; the window
# is in seconds from the first event, either side open.
set -e
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
btgen -n 3000 -c 2 -o "$d" 2>/dev/null
cd "$d"
for a in "-d 8,0" "-d 8:0" "-d 8,1" "-p 2101" "--pid=412" "-w 0.001:0.002" \
	"-w :0.001" "-w 0.01:" "-w :" "-d 8,0 -p 2210 -w 0.005:0.01"; do
	echo "optcheck $a"
	# shellcheck disable=SC2086
	optcheck -H $a bench.bin
done
