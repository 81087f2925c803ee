// SPDX-License-Identifier: MIT
/*
 * test_reader_input.c - where the reader's bytes come from: files,
 * per-CPU sets with gaps and misnamed files, stdin through a pipe that
 * delivers odd-sized chunks, records larger than one read, gzip
 * (concatenated members, truncated, corrupt), and an empty or missing
 * input.  Damaged records are test_reader_bad.c.
 */
#include "reader_fixture.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_file_missing_and_empty),
		cmocka_unit_test(test_reader_empty_trace),
		cmocka_unit_test(test_reader_per_cpu_set),
		cmocka_unit_test(test_reader_per_cpu_set_gzip_members),
		cmocka_unit_test(test_reader_stdin_pipe),
		cmocka_unit_test(test_reader_large_records),
		cmocka_unit_test(test_reader_gzip_members),
		cmocka_unit_test(test_reader_gzip_truncated_and_corrupt),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
