# A file that cannot be opened: "prog: FILE: reason", exit 1, no output.
optcheck nosuch.blktrace
