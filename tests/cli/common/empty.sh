# An empty trace is no error: a table with zero events.
optcheck /dev/null
