btsync --journal-pid x /dev/null
