// SPDX-License-Identifier: MIT
/*
 * fuzz_reader.c - libFuzzer target for the reader and the event decoders.
 * Each input is read four ways: twice as memory (two inputs with the
 * same bytes, which exercises the merge, the grouping into recordings and
 * duplicate detection), the same input by input (blkparse's file mode),
 * and once through a file descriptor (the buffered read path and the gzip
 * hand-over after the first read()).  Every event goes through every
 * decoder, and every warning is worded.  Crashes, hangs and sanitizer
 * reports are the findings.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "btkit.h"
#include "../lib/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void drain(struct bt_reader *r)
{
	struct bt_event ev;
	struct bt_remap rm;
	struct bt_reader_stats st;
	uint64_t u, off;
	uint32_t s, ns;
	const char *text, *file, *msg;
	char comm[17], rwbs[8];
	size_t len;
	int rc;

	while ((rc = bt_reader_next(r, &ev)) > 0) {
		(void)bt_event_letters(&ev);
		(void)bt_event_rwbs(&ev, rwbs);
		(void)bt_event_remap(&ev, &rm);
		(void)bt_event_split(&ev, &u);
		(void)bt_event_unplug(&ev, &u);
		(void)bt_event_process(&ev, comm, sizeof(comm));
		(void)bt_event_timestamp(&ev, &s, &ns);
		if (bt_event_message(&ev, &text, &len) == 0 && len)
			(void)memchr(text, 'x', len);
		(void)bt_reader_comm(r, ev.pid);
		if (ev.pdu_len && ev.pdu[ev.pdu_len - 1] == 0xff)
			u++;
	}
	msg = bt_reader_error(r, &file, &off);
	if (rc < 0 && (!msg || !file))
		abort();	/* every failure must say where */
	if (rc != 0 && rc != -ENODATA && rc != -EBADMSG &&
	    rc != -EPROTONOSUPPORT)
		abort();
	/* The error is sticky. */
	if (bt_reader_next(r, &ev) != rc)
		abort();
	bt_reader_get_stats(r, &st);
	for (size_t i = 0; bt_reader_warning(r, i, comm, sizeof(comm)); i++)
		;
}

/* Input by input, alternating, until both end or fail. */
static void drain_inputs(struct bt_reader *r)
{
	struct bt_event ev;
	char buf[256];
	int more[2] = { 1, 1 };

	while (more[0] || more[1])
		for (size_t i = 0; i < 2; i++)
			if (more[i])
				more[i] = bt_reader_next_input(r, i, &ev) > 0;
	(void)bt_reader_all_empty(r);
	for (size_t i = 0; bt_reader_warning(r, i, buf, sizeof(buf)); i++)
		;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bt_reader *r;
	int fd;

	if (bt_reader_new(&r))
		return 0;
	bt_reader_add_mem(r, data, size, "a");
	bt_reader_add_mem(r, data, size, "b");
	drain(r);
	bt_reader_free(r);

	if (bt_reader_new(&r))
		return 0;
	bt_reader_add_mem(r, data, size, "a");
	bt_reader_add_mem(r, data, size, "b");
	drain_inputs(r);
	bt_reader_free(r);

	fd = memfd_create("fuzz", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size &&
	    lseek(fd, 0, SEEK_SET) == 0 && bt_reader_new(&r) == 0) {
		bt_reader_add_fd(r, fd, "fd");
		drain(r);
		bt_reader_free(r);
	}
	close(fd);
	return 0;
}
