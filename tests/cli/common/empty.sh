# An empty trace is bad input: "empty trace" at offset 0, exit 1.
optcheck /dev/null
