# An unknown option: message, hint, exit 2, nothing on stdout.
btsize --bogus
