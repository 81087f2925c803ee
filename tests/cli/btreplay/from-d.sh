# Requests as dispatched: merged read-ahead is one I/O, each D belongs to
# the pid of its first bio (not to the kworker that dispatched it), flush
# requests to the process whose flush bio caused them.
. tests/cli/btreplay/common.bash
replay 250G --write --from=D "$(gen)"
