# An unknown option and a bad --blkparse version are usage errors (exit 2).
btcat -x sample.bin
