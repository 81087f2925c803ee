# --sched=A,B[,...] and --repeat: malformed lists, a name twice, "all"
# with others, tunables with a list, --repeat without a list or out of
# range; nothing is read or replayed.
for args in "--sched=none,,bfq" "--sched=none," "--sched=,none" \
	"--sched=none,bfq,none" "--sched=all,none" \
	"--sched=none,bfq --sched-opt slice_idle=0" "--repeat 3" \
	"--sched=bfq --repeat 2" "--sched=none,bfq --repeat 0" \
	"--sched=none,bfq --repeat 101" "--sched=none,bfq --repeat 2x" \
	"--sched=a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q"; do
	# shellcheck disable=SC2086
	btreplay $args x.bin
	echo "exit $?"
done
