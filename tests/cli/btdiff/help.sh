btdiff -h
