# An empty trace is bad input: no device is touched, exit 1.
btreplay </dev/null
