# The example program of btkit(3) builds on the build tree's libbtkit.so
# with -Wall -Werror and runs on a sample trace (its requests and means
# are btlat's q2c rows, truncated to ns): the first literal block of
# EXAMPLES is the program, mdoc escapes undone.
set -e
awk '/^\.Sh EXAMPLES/ { ex = 1 } ex && /^\.Ed/ { exit }
     ex && on { print } ex && /^\.Bd -literal/ { on = 1 }' \
	"$TOP/man/btkit.3" | sed -e 's/\\e/\\/g' -e 's/^\\&//' >q2c.c
# A sanitised library needs its runtime in the program too.
san=; [ "$B" = build-san ] && san=-fsanitize=address,undefined
${CC:-cc} -std=c11 -Wall -Wextra -Werror $san -I"$TOP/include" -o q2c q2c.c \
	-L"$TOP/$B" -lbtkit -Wl,-rpath,"$TOP/$B"
./q2c sample-traces/pgbench-bfq.bin.gz
