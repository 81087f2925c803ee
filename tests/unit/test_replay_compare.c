// SPDX-License-Identifier: MIT
/*
 * test_replay_compare.c - the table of btreplay --sched=A,B --repeat N:
 * recordings built in memory stand for the captures of interleaved runs
 * (a b a b a b); each label shows the median of its runs (the lower
 * middle one of an even count) and their range, a figure only some runs
 * have says in how many, the ratio compares medians, and the verdict
 * names the scheduler with the lowest median fdatasync p99.  With one
 * run each it is btdiff's table.  A bio an io_uring worker queued for a
 * replay thread is that thread's, and a replay thread is named after the
 * process it replays whatever name the capture gave its tid.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <cmocka.h>
#include "btkit.h"
#include "trace_build.h"

#define MS 1000000ull

static void put(struct tb *t, uint64_t time, unsigned act, uint32_t cat,
		uint32_t pid, uint64_t sector, uint32_t bytes, const char *text)
{
	struct bt_event e = tb_ev(time, 0, act, cat, bytes);

	e.pid = pid;
	e.sector = sector;
	if (text) {
		e.pdu = (const unsigned char *)text;
		e.pdu_len = (uint16_t)(strlen(text) + 1);
	}
	tb_add(t, &e);
}

/*
 * One run: fio (pid 10) reads nreads times 4 KiB, each done after 1 ms,
 * then one fdatasync episode of fsync_ms (a 4 KiB sync write, then its
 * flush); dd (pid 20) reads once when with_dd.
 */
static void one_run(struct bt_diff *d, const char *label, unsigned nreads,
		    uint64_t fsync_ms, int with_dd)
{
	const uint32_t ws = BT_TC_WRITE | BT_TC_SYNC;
	struct bt_reader *r;
	struct bt_event e;
	struct tb t;
	uint64_t at = 10 * MS;
	int rc;

	tb_init(&t, 0, 0);
	put(&t, 1, BT_N_PROCESS, BT_TC_NOTIFY, 10, 0, 0, "fio");
	put(&t, 2, BT_N_PROCESS, BT_TC_NOTIFY, 20, 0, 0, "dd");
	for (unsigned i = 0; i < nreads; i++, at += 2 * MS) {
		put(&t, at, BT_A_QUEUE, BT_TC_READ, 10, 8 * i, 4096, NULL);
		put(&t, at + MS / 2, BT_A_ISSUE, BT_TC_READ, 0, 8 * i, 4096, NULL);
		put(&t, at + MS, BT_A_COMPLETE, BT_TC_READ, 0, 8 * i, 4096, NULL);
	}
	if (with_dd) {
		put(&t, at, BT_A_QUEUE, BT_TC_READ, 20, 5000, 4096, NULL);
		put(&t, at + MS / 2, BT_A_ISSUE, BT_TC_READ, 0, 5000, 4096, NULL);
		put(&t, at + MS, BT_A_COMPLETE, BT_TC_READ, 0, 5000, 4096, NULL);
	}
	at += 2 * MS;
	put(&t, at, BT_A_QUEUE, ws, 10, 9000, 4096, NULL);
	put(&t, at + MS / 4, BT_A_ISSUE, ws, 0, 9000, 4096, NULL);
	put(&t, at + MS / 2, BT_A_COMPLETE, ws, 0, 9000, 4096, NULL);
	put(&t, at + MS / 2 + 1000, BT_A_QUEUE, BT_TC_FLUSH | ws, 10, 0, 0, NULL);
	put(&t, at + MS / 2 + 2000, BT_A_ISSUE, BT_TC_FLUSH, 0, 0, 0, NULL);
	/* the span: up to here, the same in every run */
	put(&t, at + fsync_ms * MS, BT_A_COMPLETE, BT_TC_FLUSH, 0, 0, 0, NULL);
	put(&t, 100 * MS, BT_A_QUEUE, BT_TC_READ, 10, 7000, 0, NULL);
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, label), 0);
	assert_int_equal(bt_diff_begin(d, label, r), 0);
	while ((rc = bt_reader_next(r, &e)) > 0)
		assert_int_equal(bt_diff_feed(d, &e), 0);
	assert_int_equal(rc, 0);
	assert_int_equal(bt_diff_end(d), 0);
	bt_reader_free(r);
	tb_free(&t);
}

static struct bt_diff *mk(void)
{
	static const unsigned m[] = { BT_DIFF_IOS, BT_DIFF_FSYNC_P99,
				      BT_DIFF_SLICE_SOURCE };
	struct bt_diff_opts o = { .metrics = m, .nmetrics = 3 };
	struct bt_diff *d;

	assert_int_equal(bt_diff_new(&d, &o), 0);
	return d;
}

/* The table and the verdict as one string (free it). */
static char *show(struct bt_diff *d, const char *const *labels, size_t n,
		  size_t repeat)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(bt_replay_compare_print(d, labels, n, repeat, f,
						 BT_TABLE_TSV, 1), 0);
	assert_int_equal(bt_replay_compare_verdict(d, labels, n, repeat, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/*
 * Runs a1 b1 a2 b2 a3 b3.  fio's requests (its reads and the sync
 * write): a 4, 2, 3 -> median 3, 2..4; b 6, 5, 7 -> 6, 5..7.  Its
 * fdatasync p99: a 8, 2, 4 ms -> 4 ms; b 1, 3, 2 ms -> 2 ms.  dd only in
 * b3: 1 of 3 runs.
 */
static void test_replay_compare_medians_and_ranges(void **state)
{
	static const char *const labels[] = { "a", "b" };
	struct bt_diff *d = mk();
	char *out;

	(void)state;
	one_run(d, "a#1", 3, 8, 0);
	one_run(d, "b#1", 5, 1, 0);
	one_run(d, "a#2", 1, 2, 0);
	one_run(d, "b#2", 4, 3, 0);
	one_run(d, "a#3", 2, 4, 0);
	one_run(d, "b#3", 6, 2, 1);
	out = show(d, labels, 2, 3);
	assert_string_equal(out,
		"group\tmetric\ta\ta_range\tb\tb_range\tratio\n"
		"all\tios\t3\t2..4\t6\t5..8\t2.000\n"
		"all\tfsync_p99_us\t4000.000\t2000.000..8000.000\t2000.000\t"
		"1000.000..3000.000\t0.500\n"
		"all\tslice_source\tevents\t\tevents\t\t\n"
		"-\tios\t0\t0..0\t0\t0..0\t\n"
		"-\tfsync_p99_us\t\t\t\t\t\n"
		"dd\tios\t\t\t1\t1..1 1/3\t\n"
		"dd\tfsync_p99_us\t\t\t\t\t\n"
		"fio\tios\t3\t2..4\t6\t5..7\t2.000\n"
		"fio\tfsync_p99_us\t4000.000\t2000.000..8000.000\t2000.000\t"
		"1000.000..3000.000\t0.500\n"
		"verdict (medians of 3 runs): all: lowest fsync p99 b (2000.000 us, "
		"2.00x lower than a); fio: lowest fsync p99 b (2000.000 us, 2.00x "
		"lower than a)\n");
	free(out);
	bt_diff_free(d);
}

/* Of two runs the lower one; a run stopped early leaves fewer for b. */
static void test_replay_compare_even_count_and_short_runs(void **state)
{
	static const char *const labels[] = { "a", "b" };
	static const unsigned m[] = { BT_DIFF_IOS };
	struct bt_diff_opts o = { .metrics = m, .nmetrics = 1 };
	struct bt_diff *d;
	char *out;

	(void)state;
	assert_int_equal(bt_diff_new(&d, &o), 0);
	one_run(d, "a#1", 3, 1, 0);
	one_run(d, "b#1", 5, 1, 0);
	one_run(d, "a#2", 1, 1, 0);
	out = show(d, labels, 2, 3);
	assert_string_equal(out,
		"group\tmetric\ta\ta_range\tb\tb_range\tratio\n"
		"all\tios\t2\t2..4\t6\t6..6\t3.000\n"
		"-\tios\t0\t0..0\t0\t0..0\t\n"
		"fio\tios\t2\t2..4\t6\t6..6\t3.000\n"
		"verdict (medians of 3 runs): no fsync_p99_us among the metrics\n");
	free(out);
	bt_diff_free(d);
}

/*
 * One run each: btdiff's table and verdict (b: 6 requests of 4096 bytes
 * from 10 to 100 ms, 0.273 MB/s); more recordings than runs: -EINVAL.
 */
static void test_replay_compare_single_runs_are_btdiff(void **state)
{
	static const char *const labels[] = { "a", "b" };
	static const unsigned m[] = { BT_DIFF_IOS };
	struct bt_diff_opts o = { .metrics = m, .nmetrics = 1 };
	struct bt_diff *d;
	char *out;

	(void)state;
	assert_int_equal(bt_diff_new(&d, &o), 0);
	one_run(d, "a", 3, 1, 0);
	one_run(d, "b", 5, 1, 0);
	out = show(d, labels, 2, 1);
	assert_string_equal(out,
		"group\tmetric\ta\tb\tratio\n"
		"all\tios\t4\t6\t1.500\n"
		"-\tios\t0\t0\t\n"
		"fio\tios\t4\t6\t1.500\n"
		"verdict: all: lowest fsync p99 a (1000.000 us, the same in every "
		"recording), highest throughput b (0.273 MB/s, 1.50x a); fio: "
		"lowest fsync p99 a (1000.000 us, the same in every recording), "
		"highest throughput b (0.273 MB/s, 1.50x a)\n");
	free(out);
	assert_int_equal(bt_replay_compare_print(d, labels, 1, 1, stdout,
						 BT_TABLE_TSV, 1), -EINVAL);
	assert_int_equal(bt_replay_compare_print(d, labels, 0, 2, stdout,
						 BT_TABLE_TSV, 1), -EINVAL);
	bt_diff_free(d);
}

/*
 * pid 11 is io_uring's worker for pid 10 (postgres): its bios are pid
 * 10's.  A worker whose submitter the capture does not name, a name
 * that only looks like one, and a note stay as they are.
 */
static void test_replay_worker_owner_is_the_submitter(void **state)
{
	static const struct { uint32_t pid; const char *comm; } names[] = {
		{ 10, "postgres" }, { 11, "iou-wrk-10" }, { 12, "iou-wrk-99" },
		{ 13, "iou-wrk-" }, { 14, "iou-wrk-10x" },
	};
	struct bt_reader *r;
	struct bt_event e;
	uint32_t got[8];
	size_t n = 0;
	struct tb t;
	int rc;

	(void)state;
	tb_init(&t, 0, 0);
	for (size_t i = 0; i < 5; i++)
		put(&t, 1 + i, BT_N_PROCESS, BT_TC_NOTIFY, names[i].pid, 0, 0,
		    names[i].comm);
	for (uint32_t pid = 10; pid <= 14; pid++)
		put(&t, 100 + pid, BT_A_QUEUE, BT_TC_WRITE, pid, 8 * pid, 4096, NULL);
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, "cap"), 0);
	while ((rc = bt_reader_next(r, &e)) > 0) {
		int moved = bt_replay_worker_owner(r, &e);

		if (bt_event_is_note(&e)) {
			assert_int_equal(moved, 0);
			continue;
		}
		assert_int_equal(moved, e.sector == 88);
		got[n++] = e.pid;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(n, 5);
	assert_int_equal(got[0], 10);
	assert_int_equal(got[1], 10);
	assert_int_equal(got[2], 12);
	assert_int_equal(got[3], 13);
	assert_int_equal(got[4], 14);
	bt_reader_free(r);
	tb_free(&t);
}

/*
 * A replay of one read by pid 10 ("postgres"), run against a scratch file
 * at *fd; *orig is the trace's reader, t its bytes.  Skips where io_uring
 * is not allowed.
 */
static struct bt_replay *replayed(struct tb *t, struct bt_reader **orig,
				  int *fd)
{
	char path[] = "/tmp/test_replay_names.XXXXXX";
	struct bt_replay_opts o = { 1.0, 1 };
	struct bt_replay *rp;
	struct bt_event e;
	int rc;

	*fd = mkstemp(path);
	assert_true(*fd >= 0);
	unlink(path);
	assert_int_equal(ftruncate(*fd, 1 << 20), 0);
	tb_init(t, 0, 0);
	put(t, 1, BT_N_PROCESS, BT_TC_NOTIFY, 10, 0, 0, "postgres");
	put(t, 10, BT_A_QUEUE, BT_TC_READ, 10, 8, 4096, NULL);
	assert_int_equal(bt_reader_new(orig), 0);
	assert_int_equal(bt_reader_add_mem(*orig, t->buf, t->len, "orig"), 0);
	assert_int_equal(bt_replay_new(&rp, NULL), 0);
	while ((rc = bt_reader_next(*orig, &e)) > 0)
		assert_int_equal(bt_replay_feed(rp, &e), 0);
	assert_int_equal(rc, 0);
	assert_int_equal(bt_replay_loaded(rp), 1);
	assert_int_equal(bt_replay_target(rp, 0, *fd, 0), 0);
	rc = bt_replay_run(rp, &o);
	if (rc == -ENOSYS || rc == -EPERM) {
		close(*fd);
		skip();
	}
	assert_int_equal(rc, 0);
	return rp;
}

/*
 * After a run, the replay thread of traced pid 10 ("postgres") has some
 * tid; a capture whose notes call that tid "cc1" (a stale name) and pid
 * 7 "kworker/0:1" gets names saying "postgres" for the tid, the kworker
 * as it was, and nothing for a pid without a note.
 */
static void test_replay_names_correct_the_threads(void **state)
{
	struct bt_replay *rp;
	struct bt_reader *orig, *cap, *names;
	struct bt_replay_proc p;
	struct tb t, c;
	struct bt_event e;
	unsigned char *buf;
	uint32_t pids[3];
	size_t len;
	int fd, rc;

	(void)state;
	rp = replayed(&t, &orig, &fd);
	bt_replay_proc_get(rp, 0, &p);
	assert_true(p.tid != 0);
	tb_init(&c, 0, 0);
	put(&c, 1, BT_N_PROCESS, BT_TC_NOTIFY, p.tid, 0, 0, "cc1");
	put(&c, 2, BT_N_PROCESS, BT_TC_NOTIFY, 7, 0, 0, "kworker/0:1");
	assert_int_equal(bt_reader_new(&cap), 0);
	assert_int_equal(bt_reader_add_mem(cap, c.buf, c.len, "cap"), 0);
	while ((rc = bt_reader_next(cap, &e)) > 0)
		;
	assert_int_equal(rc, 0);
	pids[0] = p.tid;
	pids[1] = 7;
	pids[2] = 99;
	assert_int_equal(bt_replay_names(rp, orig, cap, pids, 3, &buf, &len), 0);
	assert_int_equal(bt_reader_new(&names), 0);
	assert_int_equal(bt_reader_add_mem(names, buf, len, "names"), 0);
	while ((rc = bt_reader_next(names, &e)) > 0)
		;
	assert_int_equal(rc, 0);
	assert_string_equal(bt_reader_comm(names, p.tid), "postgres");
	assert_string_equal(bt_reader_comm(names, 7), "kworker/0:1");
	assert_null(bt_reader_comm(names, 99));
	bt_reader_free(names);
	free(buf);
	bt_reader_free(cap);
	bt_reader_free(orig);
	bt_replay_free(rp);
	tb_free(&c);
	tb_free(&t);
	close(fd);
}

/* One read's Q, G, D and C by pid at sector. */
static void put_read(struct tb *c, uint64_t t, uint32_t pid, uint64_t sector)
{
	put(c, t, BT_A_QUEUE, BT_TC_READ, pid, sector, 4096, NULL);
	put(c, t + 1, BT_A_GETRQ, BT_TC_READ, pid, sector, 4096, NULL);
	put(c, t + 2, BT_A_ISSUE, BT_TC_READ, pid, sector, 4096, NULL);
	put(c, t + 50, BT_A_COMPLETE, BT_TC_READ, 0, sector, 4096, NULL);
}

/*
 * A capture read back as a recording: the replay thread, which the
 * capture calls "cc1", is grouped as "postgres", and the read its
 * io_uring worker queued counts as the thread's.  A capture cut inside a
 * record ends its recording and hands back the reader that failed.
 */
static void test_replay_capture_diff_names_and_workers(void **state)
{
	struct bt_diff_opts dop = { .by = BT_DIFF_BY_COMM };
	char cpath[] = "/tmp/test_replay_cap.XXXXXX", wrk[32], *out = NULL;
	struct bt_reader *orig, *bad;
	struct bt_replay_proc p;
	struct bt_replay *rp;
	struct bt_diff *d;
	struct tb t, c;
	uint64_t punted;
	size_t olen = 0;
	FILE *fp;
	int fd, cfd;

	(void)state;
	rp = replayed(&t, &orig, &fd);
	bt_replay_proc_get(rp, 0, &p);
	snprintf(wrk, sizeof(wrk), "iou-wrk-%u", p.tid);
	tb_init(&c, 0, 0);
	put(&c, 1, BT_N_PROCESS, BT_TC_NOTIFY, p.tid, 0, 0, "cc1");
	put(&c, 2, BT_N_PROCESS, BT_TC_NOTIFY, 50, 0, 0, wrk);
	put_read(&c, 10, p.tid, 800);
	put_read(&c, 100, 50, 1600);
	cfd = mkstemp(cpath);
	assert_true(cfd >= 0);
	unlink(cpath);
	assert_int_equal(write(cfd, c.buf, c.len), (ssize_t)c.len);
	assert_int_equal(bt_diff_new(&d, &dop), 0);
	assert_int_equal(bt_replay_capture_diff(rp, orig, cfd, "cap", d, "none",
						&punted, &bad), 0);
	assert_null(bad);
	assert_int_equal(punted, 1);
	assert_int_equal(ftruncate(cfd, (off_t)c.len - 10), 0);
	assert_true(bt_replay_capture_diff(rp, orig, cfd, "cap", d, "cut",
					   &punted, &bad) < 0);
	assert_non_null(bad);
	bt_reader_free(bad);
	assert_int_equal(bt_diff_recordings(d), 2);
	fp = open_memstream(&out, &olen);
	assert_non_null(fp);
	assert_int_equal(bt_diff_print(d, fp, BT_TABLE_TSV, 1), 0);
	fclose(fp);
	assert_non_null(strstr(out, "postgres"));
	assert_null(strstr(out, "cc1"));
	assert_null(strstr(out, "iou-wrk"));
	free(out);
	bt_diff_free(d);
	bt_reader_free(orig);
	bt_replay_free(rp);
	tb_free(&c);
	tb_free(&t);
	close(cfd);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay_compare_medians_and_ranges),
		cmocka_unit_test(test_replay_compare_even_count_and_short_runs),
		cmocka_unit_test(test_replay_compare_single_runs_are_btdiff),
		cmocka_unit_test(test_replay_worker_owner_is_the_submitter),
		cmocka_unit_test(test_replay_names_correct_the_threads),
		cmocka_unit_test(test_replay_capture_diff_names_and_workers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
