# Every form of a bad option names the right word: a bad letter inside a
# cluster after a good long option, an argument to an option that takes
# none, an unknown long option, a missing argument.  Exit 2 each time.
for a in "--csv -xH" "-Hx" "--csv=1" "--bogus" "-P -e -d"; do
	echo "btlat $a"
	# shellcheck disable=SC2086
	btlat $a 2>&1
	echo "exit $?"
done
