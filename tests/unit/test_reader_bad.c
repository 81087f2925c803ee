// SPDX-License-Identifier: MIT
/*
 * test_reader_bad.c - what the reader does with bad bytes: truncated
 * records, a bad magic, what is not a trace at all, an unsupported or
 * changing version, pdu_len past the end, a fault in a second input,
 * random garbage -- each with its error code, offset and message, the
 * events before the fault delivered first.  The fuzzer's corpus and
 * regressions are replayed here too.
 */
#include "reader_fixture.h"

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
		cmocka_unit_test(test_reader_version_changes_within_an_input),
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
