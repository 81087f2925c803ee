// SPDX-License-Identifier: MIT
/*
 * test_reader_input.c - where the reader's bytes come from and what it
 * does with bad ones: files, per-CPU sets with gaps and misnamed files,
 * stdin through a pipe that delivers odd-sized chunks, records larger
 * than one read, gzip (concatenated members, truncated, corrupt), and
 * every bad-input case (empty, missing, truncated, bad magic, unsupported
 * version, pdu_len past the end, garbage) with its error code, offset and
 * message, the events before the fault delivered first.  The fuzzer's
 * corpus and regressions are replayed here too.
 */
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

/* ------------------------------------------------------------ helpers */

static char tmpdir[64];

static int setup_dir(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/btkit-test-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_dir(void **state)
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

static void write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* A descriptor reading back buf (the buffered path, not the in-place one). */
static int mem_fd(const void *buf, size_t len)
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

static void build_many(struct tb *t, unsigned flags, int n, int big)
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

static void check_many(struct bt_reader *r, int n, int big)
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
static unsigned char *gzip_buf(const unsigned char *buf, size_t len,
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
static void expect_fault(const void *buf, size_t len, int via_fd, int nev,
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
static void build_three(struct tb *t, unsigned flags)
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

/* ------------------------------------------------------ files, stdin */

static void test_reader_file_missing_and_empty(void **state)
{
	struct bt_reader *r;
	struct bt_event e;
	struct tb t;
	char path[512];

	(void)state;
	assert_int_equal(bt_reader_new(&r), 0);
	snprintf(path, sizeof(path), "%s/nothing-here", tmpdir);
	assert_int_equal(bt_reader_add(r, path), -ENOENT);
	assert_int_equal(bt_reader_add(r, tmpdir), -EISDIR);
	assert_int_equal(bt_reader_add(r, ""), -EINVAL);
	assert_int_equal(bt_reader_add(r, "/nonexistent-dir/x"), -ENOENT);
	assert_int_equal(bt_reader_inputs(r), 0);

	/* An empty file beside a trace ends at once (an idle CPU's file). */
	snprintf(path, sizeof(path), "%s/empty.bin", tmpdir);
	write_file(path, "", 0);
	assert_int_equal(bt_reader_add(r, path), 0);
	build_three(&t, 0);
	snprintf(path, sizeof(path), "%s/three.bin", tmpdir);
	write_file(path, t.buf, t.len);
	assert_int_equal(bt_reader_add(r, path), 0);
	assert_int_equal(bt_reader_inputs(r), 2);
	assert_string_equal(bt_reader_input_name(r, 1), path);
	assert_int_equal(bt_reader_next(r, &e), 1);
	assert_int_equal(e.input, 1);
	assert_int_equal(bt_reader_next(r, &e), 1);
	assert_int_equal(bt_reader_next(r, &e), 1);
	assert_int_equal(bt_reader_next(r, &e), 0);
	assert_null(bt_reader_error(r, NULL, NULL));
	bt_reader_free(r);
	tb_free(&t);
}

/*
 * Zero bytes in all is "empty trace" at offset 0, whether a file, a pipe
 * or gzip that inflates to nothing.  In a per-CPU set an empty file is a
 * CPU that did nothing; only a set with no bytes at all is an error, on
 * its first file.
 */
static void test_reader_empty_trace(void **state)
{
	struct bt_reader *r;
	struct bt_event e;
	struct tb t;
	unsigned char *gz;
	size_t gzlen;
	const char *file;
	uint64_t off = 99;
	char path[512], want[512];
	int via, i, n = 0;

	(void)state;
	gz = gzip_buf((const unsigned char *)"", 0, 1, &gzlen);
	assert_true(gzlen > 0);
	for (via = 0; via < 2; via++) {
		expect_fault("", 0, via, 0, -ENODATA, 0, "empty trace");
		expect_fault(gz, gzlen, via, 0, -ENODATA, 0, "empty trace");
	}
	free(gz);

	/* idle.blktrace.1 is empty, .0 and .2 hold three records each. */
	for (i = 0; i < 3; i++) {
		int j;

		tb_init(&t, 0, 0);
		for (j = 0; i != 1 && j < 3; j++) {
			e = tb_ev((uint64_t)(10 * j + i), (uint32_t)j + 1,
				  BT_A_QUEUE, BT_TC_READ, 4096);
			e.cpu = (uint32_t)i;
			tb_add(&t, &e);
		}
		snprintf(path, sizeof(path), "%s/idle.blktrace.%d", tmpdir, i);
		write_file(path, t.len ? t.buf : (unsigned char *)"", t.len);
		tb_free(&t);
	}
	assert_int_equal(bt_reader_new(&r), 0);
	snprintf(path, sizeof(path), "%s/idle", tmpdir);
	assert_int_equal(bt_reader_add(r, path), 0);
	assert_int_equal(bt_reader_inputs(r), 3);
	while (bt_reader_next(r, &e) == 1) {
		assert_int_not_equal(e.input, 1);
		n++;
	}
	assert_int_equal(n, 6);
	assert_null(bt_reader_error(r, NULL, NULL));
	bt_reader_free(r);

	/* Every CPU idle: nothing was traced. */
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/quiet.blktrace.%d", tmpdir, i);
		write_file(path, "", 0);
	}
	assert_int_equal(bt_reader_new(&r), 0);
	snprintf(path, sizeof(path), "%s/quiet", tmpdir);
	assert_int_equal(bt_reader_add(r, path), 0);
	assert_int_equal(bt_reader_inputs(r), 2);
	assert_int_equal(bt_reader_next(r, &e), -ENODATA);
	assert_string_equal(bt_reader_error(r, &file, &off), "empty trace");
	snprintf(want, sizeof(want), "%s/quiet.blktrace.0", tmpdir);
	assert_string_equal(file, want);
	assert_int_equal(off, 0);
	bt_reader_free(r);
}

/*
 * NAME.blktrace.N for N = 0, 2, 10 (1 missing: scan, do not count up),
 * and files that only look alike.  The file named .2 holds cpu 5
 * records: the records are trusted, not the name.
 */
static void test_reader_per_cpu_set(void **state)
{
	static const char *const decoys[] = {
		"run.blktrace.x", "run.blktrace.1.bak", "runx.blktrace.1",
		"run.blktrace.", "run.blktrace.-1", "xrun.blktrace.3",
	};
	static const int cpus[] = { 0, 2, 10 };
	struct bt_reader *r;
	struct bt_event e;
	struct tb t;
	char path[512];
	uint64_t last = 0;
	int i, j, n = 0, seen5 = 0;

	(void)state;
	for (i = 0; i < 3; i++) {
		tb_init(&t, i == 1 ? BT_ENC_SWAP : 0, 0);
		for (j = 0; j < 4; j++) {
			e = tb_ev((uint64_t)(j * 3 + i), (uint32_t)j + 1,
				  BT_A_QUEUE, BT_TC_WRITE, 4096);
			e.cpu = i == 1 ? 5 : (uint32_t)cpus[i];
			tb_add(&t, &e);
		}
		snprintf(path, sizeof(path), "%s/run.blktrace.%d", tmpdir, cpus[i]);
		write_file(path, t.buf, t.len);
		tb_free(&t);
	}
	/* Decoys hold garbage: reading one would fail. */
	for (i = 0; i < (int)(sizeof(decoys) / sizeof(decoys[0])); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, decoys[i]);
		write_file(path, "garbage!garbage!garbage!garbage!", 32);
	}
	assert_int_equal(bt_reader_new(&r), 0);
	snprintf(path, sizeof(path), "%s/run", tmpdir);
	assert_int_equal(bt_reader_add(r, path), 0);
	assert_int_equal(bt_reader_inputs(r), 3);
	for (i = 0; i < 3; i++) {
		char want[512];

		snprintf(want, sizeof(want), "%s/run.blktrace.%d", tmpdir, cpus[i]);
		assert_string_equal(bt_reader_input_name(r, (size_t)i), want);
	}
	while (bt_reader_next(r, &e) == 1) {
		assert_true(e.time >= last);
		last = e.time;
		if (e.input == 1) {
			assert_int_equal(e.cpu, 5);
			seen5++;
		} else {
			assert_int_equal(e.cpu, cpus[e.input]);
		}
		n++;
	}
	assert_int_equal(n, 12);
	assert_int_equal(seen5, 4);
	assert_null(bt_reader_error(r, NULL, NULL));
	bt_reader_free(r);

	/* A basename with no files at all. */
	assert_int_equal(bt_reader_new(&r), 0);
	snprintf(path, sizeof(path), "%s/other", tmpdir);
	assert_int_equal(bt_reader_add(r, path), -ENOENT);
	bt_reader_free(r);
}

/*
 * btcapture -D DIR -z writes NAME.blktrace.N.gz: the basename finds those
 * too, the plain file winning when a CPU has both; other suffixes are no
 * members.
 */
static void test_reader_per_cpu_set_gzip_members(void **state)
{
	struct bt_reader *r;
	struct bt_event e;
	struct tb t;
	char path[512], want[512];
	unsigned char *gz;
	size_t gzlen;
	int i, n = 0;

	(void)state;
	for (i = 0; i < 2; i++) {
		tb_init(&t, 0, 0);
		for (int j = 0; j < 3; j++) {
			e = tb_ev((uint64_t)(j * 2 + i), (uint32_t)j + 1,
				  BT_A_QUEUE, BT_TC_WRITE, 4096);
			e.cpu = (uint32_t)i;
			tb_add(&t, &e);
		}
		gz = gzip_buf(t.buf, t.len, 1, &gzlen);
		snprintf(path, sizeof(path), "%s/z.blktrace.%d.gz", tmpdir, i);
		write_file(path, gz, gzlen);
		if (i == 1) {	/* the plain one wins */
			snprintf(path, sizeof(path), "%s/z.blktrace.1", tmpdir);
			write_file(path, t.buf, t.len);
			snprintf(path, sizeof(path), "%s/z.blktrace.1.gz", tmpdir);
			write_file(path, "garbage!garbage!garbage!garbage!", 32);
		}
		free(gz);
		tb_free(&t);
	}
	snprintf(path, sizeof(path), "%s/z.blktrace.2.gzip", tmpdir);
	write_file(path, "garbage!garbage!garbage!garbage!", 32);
	assert_int_equal(bt_reader_new(&r), 0);
	snprintf(path, sizeof(path), "%s/z", tmpdir);
	assert_int_equal(bt_reader_add(r, path), 0);
	assert_int_equal(bt_reader_inputs(r), 2);
	snprintf(want, sizeof(want), "%s/z.blktrace.0.gz", tmpdir);
	assert_string_equal(bt_reader_input_name(r, 0), want);
	snprintf(want, sizeof(want), "%s/z.blktrace.1", tmpdir);
	assert_string_equal(bt_reader_input_name(r, 1), want);
	while (bt_reader_next(r, &e) == 1) {
		assert_int_equal(e.cpu, e.input);
		n++;
	}
	assert_int_equal(n, 6);
	assert_null(bt_reader_error(r, NULL, NULL));
	bt_reader_free(r);
}

/* A child writes the trace into a pipe in odd-sized pieces. */
static pid_t pipe_writer(const unsigned char *buf, size_t len, int *rfd)
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

static void test_reader_stdin_pipe(void **state)
{
	struct bt_reader *r;
	struct tb t;
	int rfd, saved, status;
	pid_t pid;

	(void)state;
	build_many(&t, BT_ENC_SWAP, 20000, 0);
	pid = pipe_writer(t.buf, t.len, &rfd);
	saved = dup(STDIN_FILENO);
	assert_true(saved >= 0);
	assert_int_equal(dup2(rfd, STDIN_FILENO), STDIN_FILENO);
	close(rfd);
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add(r, "-"), 0);
	assert_string_equal(bt_reader_input_name(r, 0), "-");
	check_many(r, 20000, 0);
	bt_reader_free(r);
	/* stdin was not closed by the reader */
	assert_true(fcntl(STDIN_FILENO, F_GETFD) >= 0);
	assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	close(saved);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);
	tb_free(&t);
}

/* Records up to 64 KiB + header, straddling every buffer refill. */
static void test_reader_large_records(void **state)
{
	struct bt_reader *r;
	struct tb t;
	int fd, rfd, status;
	pid_t pid;

	(void)state;
	build_many(&t, BT_ENC_V8, 60, 1);
	assert_true(t.len > 3u * 256 * 1024);
	/* in place */
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, "mem"), 0);
	check_many(r, 60, 1);
	bt_reader_free(r);
	/* a file */
	fd = mem_fd(t.buf, t.len);
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_fd(r, fd, "fd"), 0);
	check_many(r, 60, 1);
	bt_reader_free(r);
	close(fd);
	/* many inputs get smaller buffers, still holding 64 KiB records */
	{
		int fds[40], i;
		struct bt_reader_stats st;

		assert_int_equal(bt_reader_new(&r), 0);
		for (i = 0; i < 40; i++) {
			fds[i] = mem_fd(t.buf, t.len);
			assert_int_equal(bt_reader_add_fd(r, fds[i], "fd"), 0);
		}
		check_many(r, 60, 1);
		bt_reader_get_stats(r, &st);
		assert_int_equal(st.duplicates, 39 * 60);
		assert_int_equal(st.bytes, 40 * (uint64_t)t.len);
		bt_reader_free(r);
		for (i = 0; i < 40; i++)
			close(fds[i]);
	}
	/* a pipe with short reads */
	pid = pipe_writer(t.buf, t.len, &rfd);
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_fd(r, rfd, "pipe"), 0);
	check_many(r, 60, 1);
	bt_reader_free(r);
	close(rfd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	tb_free(&t);
}

/* ---------------------------------------------------------------- gzip */

static void test_reader_gzip_members(void **state)
{
	struct bt_reader *r;
	struct tb t, big;
	unsigned char *gz;
	size_t gzlen;
	char path[512];
	int fd, members;

	(void)state;
	build_many(&t, 0, 3000, 0);
	for (members = 1; members <= 3; members++) {
		gz = gzip_buf(t.buf, t.len, members, &gzlen);
		assert_int_equal(gz[0], 0x1f);
		/* memory */
		assert_int_equal(bt_reader_new(&r), 0);
		assert_int_equal(bt_reader_add_mem(r, gz, gzlen, "t.gz"), 0);
		check_many(r, 3000, 0);
		bt_reader_free(r);
		/* a file by path */
		snprintf(path, sizeof(path), "%s/t%d.bin.gz", tmpdir, members);
		write_file(path, gz, gzlen);
		assert_int_equal(bt_reader_new(&r), 0);
		assert_int_equal(bt_reader_add(r, path), 0);
		check_many(r, 3000, 0);
		bt_reader_free(r);
		free(gz);
	}
	/* Large records inflate across many buffers, through a descriptor. */
	build_many(&big, BT_ENC_WIDE | BT_ENC_SWAP, 40, 1);
	gz = gzip_buf(big.buf, big.len, 2, &gzlen);
	fd = mem_fd(gz, gzlen);
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_fd(r, fd, "big.gz"), 0);
	check_many(r, 40, 1);
	bt_reader_free(r);
	close(fd);
	free(gz);
	tb_free(&big);
	tb_free(&t);
}

static void test_reader_gzip_truncated_and_corrupt(void **state)
{
	struct tb t;
	unsigned char *gz;
	size_t gzlen;
	int via;

	(void)state;
	build_three(&t, 0);
	gz = gzip_buf(t.buf, t.len, 1, &gzlen);
	for (via = 0; via <= 1; via++) {
		/* The whole stream minus its 8-byte trailer: every record is
		 * there, but the stream did not end. */
		expect_fault(gz, gzlen - 8, via, 3, -ENODATA, t.len,
			     "truncated gzip data");
		/* Only the gzip header: nothing inflates. */
		expect_fault(gz, 10, via, 0, -ENODATA, 0, "truncated gzip data");
		/* Just the magic. */
		expect_fault(gz, 2, via, 0, -ENODATA, 0, "truncated gzip data");
	}
	free(gz);
	tb_free(&t);

	/*
	 * A bad checksum in the trailer: every record inflated and delivered,
	 * then -EBADMSG at the end of the uncompressed data.
	 */
	build_many(&t, 0, 4000, 0);
	gz = gzip_buf(t.buf, t.len, 1, &gzlen);
	gz[gzlen - 8] ^= 0x55;
	for (via = 0; via <= 1; via++)
		expect_fault(gz, gzlen, via, 4000, -EBADMSG, t.len,
			     "gzip: incorrect data check");
	/*
	 * A corrupt deflate block in the middle: zlib may inflate some junk
	 * before it notices, but the reader stops with an error, never
	 * crashes, and delivered the records before the damage.
	 */
	memset(gz + gzlen / 2, 0xff, 64);
	for (via = 0; via <= 1; via++) {
		struct bt_reader *r;
		struct bt_event e;
		int n = 0, rc, fd = via ? mem_fd(gz, gzlen) : -1;

		assert_int_equal(bt_reader_new(&r), 0);
		if (via)
			assert_int_equal(bt_reader_add_fd(r, fd, "c.gz"), 0);
		else
			assert_int_equal(bt_reader_add_mem(r, gz, gzlen, "c.gz"), 0);
		while ((rc = bt_reader_next(r, &e)) == 1 &&
		       e.sequence == (uint32_t)n + 1)
			n++;
		while (rc == 1)
			rc = bt_reader_next(r, &e);
		assert_true(rc == -EBADMSG || rc == -ENODATA ||
			    rc == -EPROTONOSUPPORT);
		assert_non_null(bt_reader_error(r, NULL, NULL));
		assert_true(n > 100 && n < 4000);
		bt_reader_free(r);
		if (fd >= 0)
			close(fd);
	}
	free(gz);

	/* Garbage after the last member: ten 48-byte records, then junk. */
	tb_free(&t);
	tb_init(&t, 0, 0);
	for (via = 0; via < 10; via++) {
		struct bt_event e = tb_ev((uint64_t)via, (uint32_t)via + 1,
					  BT_A_QUEUE, BT_TC_READ, 512);

		tb_add(&t, &e);
	}
	gz = gzip_buf(t.buf, t.len, 1, &gzlen);
	gz = realloc(gz, gzlen + 16);
	memcpy(gz + gzlen, "not gzip at all!", 16);
	expect_fault(gz, gzlen + 16, 0, 10, -EBADMSG, 480,
		     "gzip: garbage after gzip data");
	free(gz);
	tb_free(&t);
}

/* ----------------------------------------------------------- bad input */

static void test_reader_truncated_record(void **state)
{
	struct tb t;
	unsigned swap;

	(void)state;
	for (swap = 0; swap <= BT_ENC_SWAP; swap += BT_ENC_SWAP) {
		build_three(&t, swap);
		/* cut inside the third record's header */
		expect_fault(t.buf, t.len - 20, 0, 2, -ENODATA, 104,
			     "truncated record: 28 bytes");
		expect_fault(t.buf, t.len - 20, 1, 2, -ENODATA, 104,
			     "truncated record: 28 bytes");
		/* cut inside the first magic */
		expect_fault(t.buf, 3, 0, 0, -ENODATA, 0,
			     "truncated record: 3 bytes");
		tb_free(&t);
	}
}

static void test_reader_bad_magic(void **state)
{
	static const unsigned char bad[4] = { 0x78, 0x56, 0x34, 0x12 };
	struct tb t;
	int via;

	(void)state;
	for (via = 0; via <= 1; via++) {
		build_three(&t, 0);
		memcpy(t.buf + 104, bad, 4);	/* the third record */
		expect_fault(t.buf, t.len, via, 2, -EBADMSG, 104,
			     "bad magic 0x12345678");
		memcpy(t.buf, bad, 4);		/* the first */
		expect_fault(t.buf, t.len, via, 0, -EBADMSG, 0,
			     "bad magic 0x12345678");
		tb_free(&t);
	}
	/* In a big-endian trace the value shows in that order too. */
	build_three(&t, BT_ENC_SWAP);
	memcpy(t.buf + 48, "\x12\x34\x56\x78", 4);
	expect_fault(t.buf, t.len, 0, 1, -EBADMSG, 48, "bad magic 0x12345678");
	tb_free(&t);
}

/*
 * Input that is no binary trace says what it is: blkparse's text output
 * (also gzipped), or data of a compressor other than gzip.
 */
static void test_reader_names_what_is_not_a_trace(void **state)
{
	static const char text[] =
		"  8,16   1        1     0.000000000  4242  Q   R 1234 + 8 [fio]\n"
		"  8,16   1        2     0.000001000  4242  G   R 1234 + 8 [fio]\n";
	static const struct {
		const char *bytes, *msg;
	} z[] = {
		{ "\xfd" "7zXZ\0\0\4\xe6\xd6\xb4\x46\2\0\x21\1",
		  "bad magic 0x587a37fd: xz-compressed data: decompress it "
		  "first (xz -d)" },
		{ "\x28\xb5\x2f\xfd\4\x58\x45\0\0\x10\0\0\0\0\0\0",
		  "bad magic 0xfd2fb528: zstd-compressed data: decompress it "
		  "first (zstd -d)" },
		{ "\x04\x22\x4d\x18\x64\x40\xa7\0\0\0\0\0\0\0\0\0",
		  "bad magic 0x184d2204: lz4-compressed data" },
		{ "BZh91AY&SY\0\0\0\0\0\0", "bad magic 0x39685a42: "
		  "bzip2-compressed data: decompress it first (bzip2 -d)" },
	};
	const char *blkparse = "bad magic 0x2c382020: this is blkparse text "
		"output; btkit reads the binary trace, e.g. the per-CPU files "
		"blktrace wrote";
	unsigned char *gz;
	size_t gzlen;
	int via;

	(void)state;
	for (via = 0; via <= 1; via++) {
		expect_fault(text, sizeof(text) - 1, via, 0, -EBADMSG, 0,
			     blkparse);
		for (size_t i = 0; i < sizeof(z) / sizeof(z[0]); i++)
			expect_fault(z[i].bytes, 16, via, 0, -EBADMSG, 0,
				     z[i].msg);
	}
	gz = gzip_buf((const unsigned char *)text, sizeof(text) - 1, 1, &gzlen);
	expect_fault(gz, gzlen, 0, 0, -EBADMSG, 0, blkparse);
	free(gz);
	/* Other text keeps the plain message. */
	expect_fault("hello, world, this is text\n", 27, 0, 0, -EBADMSG, 0,
		     "bad magic 0x6c6c6568");
}

static void test_reader_unsupported_version(void **state)
{
	struct tb t;
	unsigned swap;

	(void)state;
	for (swap = 0; swap <= BT_ENC_SWAP; swap += BT_ENC_SWAP) {
		build_three(&t, swap);
		t.buf[swap ? 48 + 3 : 48] = 9;	/* version byte, 2nd record */
		expect_fault(t.buf, t.len, 0, 1, -EPROTONOSUPPORT, 48,
			     "unsupported version 9");
		t.buf[swap ? 3 : 0] = 6;
		expect_fault(t.buf, t.len, 1, 0, -EPROTONOSUPPORT, 0,
			     "unsupported version 6");
		tb_free(&t);
	}
}

static void test_reader_pdu_past_end(void **state)
{
	struct tb t;
	struct bt_event e;
	unsigned flags[] = { 0, BT_ENC_SWAP, BT_ENC_V8, BT_ENC_V8 | BT_ENC_SWAP };
	size_t i, at;
	int via;

	(void)state;
	for (i = 0; i < 4; i++) {
		build_three(&t, flags[i]);
		e = tb_ev(40, 4, BT_A_COMPLETE, BT_TC_READ, 4096);
		e.pdu = pattern;
		e.pdu_len = 100;
		at = tb_add(&t, &e);
		for (via = 0; via <= 1; via++)
			expect_fault(t.buf, t.len - 90, via, 3, -ENODATA, at,
				     "pdu_len 100 runs past the end");
		tb_free(&t);
	}
}

/* The second input fails: the first one's earlier events come first. */
static void test_reader_fault_in_second_input(void **state)
{
	struct tb a, b;
	struct bt_reader *r;
	struct bt_event e;
	const char *file;
	uint64_t off;
	int rc, n = 0;

	(void)state;
	build_three(&a, 0);
	tb_init(&b, 0, 0);
	for (n = 0; n < 3; n++) {
		e = tb_ev(11 + 10 * (uint64_t)n, (uint32_t)n + 1, BT_A_QUEUE,
			  BT_TC_READ, 4096);
		e.cpu = 2;
		tb_add(&b, &e);
	}
	n = 0;
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, a.buf, a.len, "a"), 0);
	assert_int_equal(bt_reader_add_mem(r, b.buf, b.len - 1, "b"), 0);
	while ((rc = bt_reader_next(r, &e)) == 1)
		n++;
	/* a10 b11 a20 b21, then b's bad third record stops the merge */
	assert_int_equal(n, 4);
	assert_int_equal(rc, -ENODATA);
	assert_non_null(bt_reader_error(r, &file, &off));
	assert_string_equal(file, "b");
	assert_int_equal(off, 96);
	bt_reader_free(r);
	tb_free(&a);
	tb_free(&b);
}

/*
 * Reading never crashes, hangs or invents data, whatever the bytes.
 * Returns how the reading ended.
 */
static int check_survives(const unsigned char *buf, size_t len)
{
	struct bt_reader *r;
	struct bt_event e;
	uint64_t n = 0;
	int rc, gz = len >= 2 && buf[0] == 0x1f && buf[1] == 0x8b;

	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, buf, len, "x"), 0);
	while ((rc = bt_reader_next(r, &e)) == 1) {
		if (!gz)
			assert_true(e.offset + e.pdu_len + 48 <= len);
		n++;
	}
	if (!gz)
		assert_true(n <= len / 48);
	assert_true(rc == 0 || rc == -EBADMSG || rc == -ENODATA ||
		    rc == -EPROTONOSUPPORT);
	if (rc)
		assert_non_null(bt_reader_error(r, NULL, NULL));
	bt_reader_free(r);
	return rc;
}

static void test_reader_random_garbage(void **state)
{
	unsigned char buf[4096];
	struct tb t;
	unsigned seed = 12345;
	int i, k;
	size_t j;

	(void)state;
	for (i = 0; i < 300; i++) {
		size_t len = (size_t)(rand_r(&seed) % (int)sizeof(buf));

		for (j = 0; j < len; j++)
			buf[j] = (unsigned char)rand_r(&seed);
		check_survives(buf, len);
	}
	/* A plain garbage file is refused at offset 0. */
	memcpy(buf, "GARBAGE GARBAGE GARBAGE GARBAGE GARBAGE GARBAGE!", 48);
	expect_fault(buf, 48, 0, 0, -EBADMSG, 0, "bad magic 0x42524147");
	/* Valid traces with random bytes flipped. */
	build_many(&t, 0, 50, 0);
	for (i = 0; i < 500; i++) {
		unsigned char *copy = malloc(t.len);

		assert_non_null(copy);
		memcpy(copy, t.buf, t.len);
		for (k = 0; k < 4; k++)
			copy[(size_t)rand_r(&seed) % t.len] = (unsigned char)rand_r(&seed);
		check_survives(copy, t.len);
		free(copy);
	}
	tb_free(&t);
}

/*
 * Replay what the fuzzer keeps: its seeds, and the regression inputs,
 * whose names start with the result they must give: "ok-" reads to the
 * end, "eN-" stops with -N (61 ENODATA, 74 EBADMSG, 93 EPROTONOSUPPORT).
 */
static void test_reader_fuzz_corpus_replays(void **state)
{
	static const char *const dirs[] = { "fuzz/corpus", "fuzz/regressions" };
	const char *top = getenv("TOP");
	size_t i, files = 0, pinned = 0;

	(void)state;
	for (i = 0; i < 2; i++) {
		char dir[1024];
		DIR *d;
		struct dirent *de;

		snprintf(dir, sizeof(dir), "%s/%s", top ? top : ".", dirs[i]);
		d = opendir(dir);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			char p[2048];
			unsigned char *buf;
			struct stat sb;
			FILE *f;
			int rc;

			snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
			if (stat(p, &sb) || !S_ISREG(sb.st_mode) ||
			    strstr(de->d_name, ".md"))
				continue;
			buf = malloc((size_t)sb.st_size + 1);
			assert_non_null(buf);
			f = fopen(p, "rb");
			assert_non_null(f);
			assert_int_equal(fread(buf, 1, (size_t)sb.st_size, f),
					 (size_t)sb.st_size);
			fclose(f);
			rc = check_survives(buf, (size_t)sb.st_size);
			if (!strncmp(de->d_name, "ok-", 3)) {
				assert_int_equal(rc, 0);
				pinned++;
			} else if (de->d_name[0] == 'e' &&
				   de->d_name[1] >= '0' && de->d_name[1] <= '9') {
				if (rc != -atoi(de->d_name + 1))
					print_message("%s: got %d\n", p, rc);
				assert_int_equal(rc, -atoi(de->d_name + 1));
				pinned++;
			}
			free(buf);
			files++;
		}
		closedir(d);
	}
	if (!files)
		print_message("no fuzz corpus under %s (set TOP)\n",
			      top ? top : ".");
	assert_true(files > 0);
	assert_true(pinned > 0);
}

/*
 * The reader decides an input's layout and byte order at its first record
 * and reads the rest that way; a record of the other version (v8 among
 * v7, v7 among v8) is still decoded in its own layout, in memory and
 * through a descriptor whose window boundaries cut records anywhere.
 */
static void test_reader_version_changes_within_an_input(void **state)
{
	static const unsigned first[] = { 0, BT_ENC_V8 };
	const uint32_t n = 30000;

	(void)state;
	for (unsigned swap = 0; swap < 2; swap++) {
		for (unsigned f = 0; f < 2; f++) {
			unsigned base = first[f] | (swap ? BT_ENC_SWAP : 0);
			struct bt_reader *r;
			struct bt_event e;
			struct tb t;
			int fd;

			tb_init(&t, base, 0);
			for (uint32_t i = 0; i < n; i++) {
				struct bt_event w = tb_ev(1000 + i, i + 1, BT_A_QUEUE,
							  BT_TC_QUEUE | BT_TC_WRITE,
							  4096);

				w.pdu_len = (uint16_t)(i % 5);
				w.pdu = pattern;
				t.flags = base ^ (i % 7 == 3 ? BT_ENC_V8 : 0);
				tb_add(&t, &w);
			}
			for (int src = 0; src < 2; src++) {
				fd = -1;
				assert_int_equal(bt_reader_new(&r), 0);
				if (src) {
					fd = mem_fd(t.buf, t.len);
					assert_int_equal(bt_reader_add_fd(r, fd, "fd"), 0);
				} else {
					assert_int_equal(bt_reader_add_mem(r, t.buf, t.len,
									   "mem"), 0);
				}
				for (uint32_t i = 0; i < n; i++) {
					int v8 = (first[f] != 0) ^ (i % 7 == 3);

					assert_int_equal(bt_reader_next(r, &e), 1);
					assert_int_equal(e.sequence, i + 1);
					assert_int_equal(e.time, 1000 + i);
					assert_int_equal(e.sector, 2048 + 1000 + i);
					assert_int_equal(e.bytes, 4096);
					assert_int_equal(e.pid, 1234);
					assert_int_equal(e.pdu_len, i % 5);
					assert_int_equal(e.version, v8 ? BT_VERSION_8 : BT_VERSION_7);
				}
				assert_int_equal(bt_reader_next(r, &e), 0);
				bt_reader_free(r);
				if (fd >= 0)
					close(fd);
			}
			tb_free(&t);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_file_missing_and_empty),
		cmocka_unit_test(test_reader_version_changes_within_an_input),
		cmocka_unit_test(test_reader_empty_trace),
		cmocka_unit_test(test_reader_per_cpu_set),
		cmocka_unit_test(test_reader_per_cpu_set_gzip_members),
		cmocka_unit_test(test_reader_stdin_pipe),
		cmocka_unit_test(test_reader_large_records),
		cmocka_unit_test(test_reader_gzip_members),
		cmocka_unit_test(test_reader_gzip_truncated_and_corrupt),
		cmocka_unit_test(test_reader_truncated_record),
		cmocka_unit_test(test_reader_bad_magic),
		cmocka_unit_test(test_reader_names_what_is_not_a_trace),
		cmocka_unit_test(test_reader_unsupported_version),
		cmocka_unit_test(test_reader_pdu_past_end),
		cmocka_unit_test(test_reader_fault_in_second_input),
		cmocka_unit_test(test_reader_random_garbage),
		cmocka_unit_test(test_reader_fuzz_corpus_replays),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
