// SPDX-License-Identifier: MIT
/*
 * btread.c - the reader alone, for `make bench`: every record of the
 * given traces through bt_reader_next() and nothing else, so the bench
 * can show what decoding costs beside `cat` and what each tool adds.
 * Prints the events delivered; exit 1 on a reader error.
 */
#include <inttypes.h>
#include <stdio.h>
#include "btkit.h"

int main(int argc, char **argv)
{
	struct bt_reader *r;
	struct bt_event ev;
	const char *what, *file = NULL;
	uint64_t n = 0, off = 0;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: btread TRACE...\n");
		return 2;
	}
	if (bt_reader_new(&r) < 0)
		return 1;
	for (int i = 1; i < argc; i++)
		if (bt_reader_add(r, argv[i]) < 0) {
			fprintf(stderr, "btread: %s: cannot open\n", argv[i]);
			return 1;
		}
	while ((rc = bt_reader_next(r, &ev)) > 0)
		n++;
	if (rc < 0) {
		what = bt_reader_error(r, &file, &off);
		fprintf(stderr, "btread: %s: offset %" PRIu64 ": %s\n",
			file ? file : "-", off, what ? what : "error");
	}
	printf("%" PRIu64 " events\n", n);
	bt_reader_free(r);
	return rc < 0;
}
