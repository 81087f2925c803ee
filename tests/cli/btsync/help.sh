btsync -h
