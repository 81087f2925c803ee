btsync --no-such-option
