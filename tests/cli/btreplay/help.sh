btreplay -h
