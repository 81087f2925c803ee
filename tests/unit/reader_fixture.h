/* SPDX-License-Identifier: MIT */
/*
 * reader_fixture.h - what the reader's input tests (test_reader_input.c,
 * test_reader_bad.c) share: a scratch directory per run, files and
 * descriptors holding given bytes, gzip of a buffer, traces of many or
 * three records, and the check that a fault comes with its code, offset
 * and message after the events before it.
 */
#ifndef BTKIT_READER_FIXTURE_H
#define BTKIT_READER_FIXTURE_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>
#include "btkit.h"
#include "trace_build.h"

static char tmpdir[64];

static inline int setup_dir(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/btkit-test-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static inline int teardown_dir(void **state)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	char p[512];

	(void)state;
	if (d) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s", tmpdir, de->d_name);
			unlink(p);
		}
		closedir(d);
	}
	return rmdir(tmpdir);
}

static inline void write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* A descriptor reading back buf (the buffered path, not the in-place one). */
static inline int mem_fd(const void *buf, size_t len)
{
	int fd = memfd_create("trace", 0);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

/*
 * n records of every kind with pdu lengths that vary (so records straddle
 * buffer boundaries at every alignment); the pdu carries a pattern tied
 * to the sequence so a test can check it arrived intact.
 */
static unsigned char pattern[65536];

static inline void build_many(struct tb *t, unsigned flags, int n, int big)
{
	struct bt_event e;
	int i;

	for (i = 0; i < (int)sizeof(pattern); i++)
		pattern[i] = (unsigned char)(i * 7 + 3);
	tb_init(t, flags, 0);
	for (i = 0; i < n; i++) {
		e = tb_ev(1000 + (uint64_t)i * 10, (uint32_t)i + 1,
			  BT_A_QUEUE + (uint32_t)(i % 15), BT_TC_READ, 4096);
		e.pdu_len = (uint16_t)(big ? (i * 7919) % 65536 : (i * 13) % 97);
		e.pdu = pattern + (i % 256);
		tb_add(t, &e);
	}
}

static inline void check_many(struct bt_reader *r, int n, int big)
{
	struct bt_event e;
	int i;

	for (i = 0; i < n; i++) {
		assert_int_equal(bt_reader_next(r, &e), 1);
		assert_int_equal(e.sequence, i + 1);
		assert_int_equal(e.time, 1000 + (uint64_t)i * 10);
		assert_int_equal(e.pdu_len, big ? (i * 7919) % 65536 : (i * 13) % 97);
		if (e.pdu_len)
			assert_memory_equal(e.pdu, pattern + (i % 256), e.pdu_len);
	}
	assert_int_equal(bt_reader_next(r, &e), 0);
	assert_null(bt_reader_error(r, NULL, NULL));
}

/* gzip of buf in nmembers members split at uneven points. */
static inline unsigned char *gzip_buf(const unsigned char *buf, size_t len,
			       int nmembers, size_t *outlen)
{
	size_t cap = len + len / 2 + 1024 * (size_t)nmembers, done = 0;
	unsigned char *out = malloc(cap);
	int m;

	assert_non_null(out);
	*outlen = 0;
	for (m = 0; m < nmembers; m++) {
		size_t piece = m == nmembers - 1 ? len - done : len / nmembers + 5;
		z_stream z;

		if (piece > len - done)
			piece = len - done;
		memset(&z, 0, sizeof(z));
		assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS,
					      8, Z_DEFAULT_STRATEGY), Z_OK);
		z.next_in = (unsigned char *)buf + done;
		z.avail_in = (uInt)piece;
		z.next_out = out + *outlen;
		z.avail_out = (uInt)(cap - *outlen);
		assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
		*outlen = cap - z.avail_out;
		deflateEnd(&z);
		done += piece;
	}
	return out;
}

/*
 * Read buf (from memory, or through a descriptor when via_fd) and expect
 * nev events, then err at offset with a message starting with msg.
 */
static inline void expect_fault(const void *buf, size_t len, int via_fd, int nev,
			 int err, uint64_t offset, const char *msg)
{
	struct bt_reader *r;
	struct bt_event e;
	const char *file, *m;
	uint64_t off;
	int n = 0, rc, fd = -1;

	assert_int_equal(bt_reader_new(&r), 0);
	if (via_fd) {
		fd = mem_fd(buf, len);
		assert_int_equal(bt_reader_add_fd(r, fd, "bad.bin"), 0);
	} else {
		assert_int_equal(bt_reader_add_mem(r, buf, len, "bad.bin"), 0);
	}
	while ((rc = bt_reader_next(r, &e)) == 1)
		n++;
	assert_int_equal(n, nev);
	assert_int_equal(rc, err);
	m = bt_reader_error(r, &file, &off);
	if (err) {
		assert_non_null(m);
		print_message("  -> %s: offset %llu: %s\n", file,
			      (unsigned long long)off, m);
		assert_string_equal(file, "bad.bin");
		assert_int_equal(off, offset);
		assert_memory_equal(m, msg, strlen(msg));
		/* sticky: asking again gives the same answer, never events */
		assert_int_equal(bt_reader_next(r, &e), err);
	} else {
		assert_null(m);
	}
	bt_reader_free(r);
	if (fd >= 0)
		close(fd);
}

/* Three ordinary records: 48 + 56 + 48 bytes in v7. */
static inline void build_three(struct tb *t, unsigned flags)
{
	static const unsigned char one[8] = { 0, 0, 0, 0, 0, 0, 0, 1 };
	struct bt_event e;

	tb_init(t, flags, 0);
	e = tb_ev(10, 1, BT_A_QUEUE, BT_TC_READ, 4096);
	tb_add(t, &e);
	e = tb_ev(20, 2, BT_A_UNPLUG_IO, 0, 0);
	e.pdu = one;
	e.pdu_len = 8;
	tb_add(t, &e);
	e = tb_ev(30, 3, BT_A_ISSUE, BT_TC_READ, 4096);
	tb_add(t, &e);
}

/* A child writes the trace into a pipe in odd-sized pieces. */
static inline pid_t pipe_writer(const unsigned char *buf, size_t len, int *rfd)
{
	int p[2];
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		size_t done = 0, step = 1;

		close(p[0]);
		while (done < len) {
			size_t n = step < len - done ? step : len - done;
			ssize_t w = write(p[1], buf + done, n);

			if (w <= 0)
				_exit(1);
			done += (size_t)w;
			step = (step * 37 + 11) % 5003 + 1;
		}
		_exit(0);
	}
	close(p[1]);
	*rfd = p[0];
	return pid;
}

#endif /* BTKIT_READER_FIXTURE_H */
