# Nothing to replay: no device is touched, the report has a zero total.
btreplay </dev/null
