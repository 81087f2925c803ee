btdiff --no-such-option
