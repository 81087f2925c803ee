# The pictures sample-traces/README.md shows are what `make pictures`
# (tests/pictures.sh) writes now: after a change to the pictures, run
# `make pictures` and commit them.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
bash tests/pictures.sh "$tmp" >/dev/null || echo "exit $?"
for f in "$tmp"/*.svg; do
	k=$(basename "$f")
	if cmp -s "$f" "sample-traces/pictures/$k"; then
		echo "$k: as committed"
	else
		echo "$k: differs from sample-traces/pictures/$k (make pictures)"
	fi
done
ls sample-traces/pictures
