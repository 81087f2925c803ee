# libbtkit.so exports exactly the functions include/btkit.h declares, both
# ways: a dynamic symbol the header does not declare (an internal helper
# leaking out) and a declared function the library does not export are
# listed.  The header is read by the compiler (gcc -aux-info lists every
# extern declaration with its file), not by the awk script that writes the
# version script, so a fault in that script shows here too.
set -e
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
gcc -std=c11 -D_GNU_SOURCE -fsyntax-only -aux-info "$d/aux" -x c \
	"$TOP/include/btkit.h"
sed -n 's|^/\* [^ ]*include/btkit\.h:[0-9]*:N[CF] \*/ extern .*[ *]\(bt_[A-Za-z0-9_]*\) (.*|\1|p' \
	"$d/aux" | sort >"$d/declared"
nm -D --defined-only "$TOP/$B/libbtkit.so" |
	awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort >"$d/exported"
comm -13 "$d/declared" "$d/exported" | sed 's/^/exported, not declared: /'
comm -23 "$d/declared" "$d/exported" | sed 's/^/declared, not exported: /'
if [ -s "$d/declared" ] && cmp -s "$d/declared" "$d/exported"; then
	echo "exports match the header"
fi
