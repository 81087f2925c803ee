# The Makefile as a user drives it (make -n, nothing is built): `all` is
# the library and the tools, without the cmocka tests, helpers or bench
# (so building needs no libcmocka-dev); the user's CPPFLAGS reach every
# compile and LDLIBS every link; install puts the four library pieces in
# place under PREFIX, LIBDIR and DESTDIR.  The flags of an outer make
# (make check WERROR=1 -j2) are left out.
set -eu
m() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -n -B -C "$TOP" --no-print-directory B=build-make-n V=1 "$@"; }
m all >all.txt
echo "all: $(grep -c -- '-lcmocka' all.txt || true) links with -lcmocka," \
	"$(grep -c 'tests/\|bench/' all.txt || true) commands for tests or bench"
m all CPPFLAGS=-DUSER_CPP LDLIBS=-lUSER_LIB >flags.txt
cc=$(grep -c -- ' -c -o ' flags.txt); cpp=$(grep -- ' -c -o ' flags.txt | grep -c -- -DUSER_CPP || true)
ld=$(grep -c -- '-o build-make-n/\(bin/\|libbtkit.so\.\)' flags.txt)
lib=$(grep -- '-o build-make-n/\(bin/\|libbtkit.so\.\)' flags.txt | grep -c -- -lUSER_LIB || true)
echo "CPPFLAGS on $( [ "$cpp" -eq "$cc" ] && echo every || echo "$cpp of $cc") compile"
echo "LDLIBS on $( [ "$lib" -eq "$ld" ] && echo every || echo "$lib of $ld") link"
m install DESTDIR=/x PREFIX=/usr LIBDIR=/usr/lib64 |
	grep -E '^(install -m|ln|\s*>).*(btkit\.h|libbtkit|btkit\.pc)' |
	sed 's/^\s*//'
