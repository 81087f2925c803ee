btsync /dev/null
