# Nine processes of the generator: readers, cp's read-ahead, postgres
# writes with fdatasync (replayed as flushes), jbd2 PREFLUSH|FUA commits,
# a kworker whose split bios are replayed once (not once per piece).
. tests/cli/btreplay/common.bash
replay 250G --write "$(gen)"
