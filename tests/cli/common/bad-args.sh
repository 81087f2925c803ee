# Bad arguments to the common options are usage errors (exit 2) that name
# the program and the argument.
for a in "-d 8" "-d 8,x" "-d 4096,0" "-d 8,1048576" "-p x" "-p 4294967296" \
	"-w 1" "-w 5:1" "-w 2:2" "-w 1.2345678901:" "-w .:" "-w -1:" \
	"-w -1e1:" "-w 1e400:" "-w inf:" "-w nan:" "-w 1e:" "-w 2e0:2"; do
	echo "optcheck $a"
	# shellcheck disable=SC2086
	optcheck $a /dev/null
	echo "exit $?"
done
