// SPDX-License-Identifier: MIT
/*
 * test_diff.c - the comparison engine on recordings built in memory and
 * read through the real reader (its PROCESS notes name the processes):
 * a group's percentiles from the pooled samples of its processes, not an
 * average of theirs; kernel threads pooled by the name before '/'; a
 * group one recording lacks shown with empty cells; ratios against the
 * first; one slice-wait source for every recording; cgroup groups and the
 * error without cgroup ids; metric names and bad options.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <math.h>
#include <cmocka.h>
#include "btkit.h"
#include "trace_build.h"

#define US 1000ull
#define MS 1000000ull
#define WS (BT_TC_WRITE | BT_TC_SYNC)
#define FWS (BT_TC_FLUSH | BT_TC_WRITE | BT_TC_SYNC)

/* ---------------------------------------------------------- building */

static void add(struct tb *t, uint64_t time, unsigned act, uint32_t cat,
		uint32_t pid, uint64_t sector, uint32_t bytes)
{
	struct bt_event e = tb_ev(time, 0, act, cat, bytes);

	e.pid = pid;
	e.sector = sector;
	tb_add(t, &e);
}

static void note(struct tb *t, uint64_t time, unsigned kind, uint32_t pid,
		 const char *text)
{
	struct bt_event e = tb_ev(time, 0, kind, BT_TC_NOTIFY, 0);

	e.pid = pid;
	e.pdu = (const unsigned char *)text;
	e.pdu_len = (uint16_t)(strlen(text) + 1);
	tb_add(t, &e);
}

/*
 * One fdatasync episode of pid from t: a sync write (its data done
 * after data ns), then the pid's own flush completing at t + lat.
 */
static void episode(struct tb *t, uint64_t at, uint32_t pid, uint64_t sector,
		    uint64_t data, uint64_t lat)
{
	add(t, at, BT_A_QUEUE, WS, pid, sector, 4096);
	add(t, at + 10 * US, BT_A_ISSUE, WS, 0, sector, 4096);
	add(t, at + data, BT_A_COMPLETE, WS, 0, sector, 4096);
	add(t, at + data + 10 * US, BT_A_QUEUE, FWS, pid, 0, 0);
	add(t, at + data + 20 * US, BT_A_ISSUE, BT_TC_FLUSH, 0, 0, 0);
	add(t, at + lat, BT_A_COMPLETE, BT_TC_FLUSH, 0, 0, 0);
}

/* One read of pid: queued at t, dispatched 10 us later, done at t + q2c. */
static void readio(struct tb *t, uint64_t at, uint32_t pid, uint64_t sector,
		   uint64_t q2c)
{
	add(t, at, BT_A_QUEUE, BT_TC_READ, pid, sector, 8192);
	add(t, at + 10 * US, BT_A_ISSUE, BT_TC_READ, 0, sector, 8192);
	add(t, at + q2c, BT_A_COMPLETE, BT_TC_READ, 0, sector, 8192);
}

/* Read t's bytes as one recording of d. */
static void run(struct bt_diff *d, const char *label, struct tb *t)
{
	struct bt_reader *r;
	struct bt_event e;
	int rc;

	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, t->buf, t->len, label), 0);
	assert_int_equal(bt_diff_begin(d, label, r), 0);
	while ((rc = bt_reader_next(r, &e)) > 0)
		assert_int_equal(bt_diff_feed(d, &e), 0);
	assert_int_equal(rc, 0);
	assert_int_equal(bt_diff_end(d), 0);
	bt_reader_free(r);
}

static struct bt_diff *mk(int by, const unsigned *metrics, size_t n)
{
	struct bt_diff_opts o = { .by = by, .metrics = metrics,
				  .nmetrics = n };
	struct bt_diff *d;

	assert_int_equal(bt_diff_new(&d, &o), 0);
	return d;
}

/* ------------------------------------------------------------- rows */

#define MAXROWS 64
#define MAXREC 3

struct row {
	char group[48];
	char metric[32];
	size_t n;
	struct bt_diff_cell cell[MAXREC];
	double ratio[MAXREC];
};

struct rows {
	struct row r[MAXROWS];
	size_t n;
};

static void collect(const struct bt_diff_row *r, void *arg)
{
	struct rows *x = arg;
	struct row *o;

	assert_true(x->n < MAXROWS);
	assert_true(r->n <= MAXREC);
	o = &x->r[x->n++];
	snprintf(o->group, sizeof(o->group), "%s", r->group);
	snprintf(o->metric, sizeof(o->metric), "%s", r->metric);
	o->n = r->n;
	memcpy(o->cell, r->cell, r->n * sizeof(*r->cell));
	memcpy(o->ratio, r->ratio, r->n * sizeof(*r->ratio));
}

static const struct row *find(const struct rows *x, const char *group,
			      const char *metric)
{
	for (size_t i = 0; i < x->n; i++)
		if (!strcmp(x->r[i].group, group) &&
		    !strcmp(x->r[i].metric, metric))
			return &x->r[i];
	return NULL;
}

static void rows_of(struct bt_diff *d, struct rows *x)
{
	memset(x, 0, sizeof(*x));
	assert_int_equal(bt_diff_rows(d, collect, x), 0);
}

/* ------------------------------------------------------------ tests */

/*
 * Three postgres backends: pid 10 with episodes of 1, 2 and 3 ms, pid
 * 11 with one of 50 ms, pid 12 with one of 40 ms.  Pooled, the median is
 * the 3rd of 1 2 3 40 50: 3 ms.  The mean of the backends' medians would
 * be (2 + 50 + 40) / 3 = 30.7 ms, and their median 40 ms.
 */
static void test_diff_group_percentiles_pool_samples(void **state)
{
	static const unsigned m[] = {
		BT_DIFF_FSYNC_EPISODES, BT_DIFF_FSYNC_P50, BT_DIFF_FSYNC_P99,
		BT_DIFF_Q2C_P50,
	};
	struct bt_diff *d = mk(BT_DIFF_BY_COMM, m, 4);
	const uint64_t lat[5] = { 1 * MS, 50 * MS, 2 * MS, 40 * MS, 3 * MS };
	const uint32_t pid[5] = { 10, 11, 10, 12, 10 };
	const struct row *r;
	struct rows x;
	struct tb t;

	(void)state;
	tb_init(&t, 0, 0);
	note(&t, 1, BT_N_PROCESS, 10, "postgres");
	note(&t, 2, BT_N_PROCESS, 11, "postgres");
	note(&t, 3, BT_N_PROCESS, 12, "postgres");
	for (int i = 0; i < 5; i++)
		episode(&t, (uint64_t)(i + 1) * 100 * MS, pid[i],
			1000 * (uint64_t)(i + 1), lat[i] / 2, lat[i]);
	run(d, "a", &t);
	tb_free(&t);
	/* Reads only: pid 10 has 1, 2, 3 ms ones, pid 11 two of 100 ms. */
	tb_init(&t, 0, 0);
	note(&t, 1, BT_N_PROCESS, 10, "postgres");
	note(&t, 2, BT_N_PROCESS, 11, "postgres");
	for (int i = 0; i < 3; i++)
		readio(&t, (uint64_t)(i + 1) * 100 * MS, 10, 50000 + 100 * i,
		       (uint64_t)(i + 1) * MS);
	readio(&t, 400 * MS, 11, 60000, 100 * MS);
	readio(&t, 600 * MS, 11, 60100, 100 * MS);
	run(d, "b", &t);
	rows_of(d, &x);
	r = find(&x, "postgres", "fsync_episodes");
	assert_non_null(r);
	assert_int_equal(r->cell[0].kind, BT_DIFF_COUNT);
	assert_int_equal(r->cell[0].u, 5);
	r = find(&x, "postgres", "fsync_p50_us");
	assert_non_null(r);
	assert_int_equal(r->cell[0].kind, BT_DIFF_NS);
	assert_int_equal(r->cell[0].u, 3 * MS);
	r = find(&x, "postgres", "fsync_p99_us");
	assert_int_equal(r->cell[0].u, 50 * MS);
	/*
	 * Pooled reads 1 2 3 100 100 ms: the 3rd; the mean of the two
	 * processes' medians would be 51 ms.
	 */
	r = find(&x, "postgres", "q2c_p50_us");
	assert_int_equal(r->cell[1].u, 3 * MS);
	/* "all" pools the same samples: one group here. */
	r = find(&x, "all", "fsync_p50_us");
	assert_int_equal(r->cell[0].u, 3 * MS);
	/* The flushes' requests, dispatched by pid 0, are "-"'s: no episode. */
	r = find(&x, "-", "fsync_episodes");
	assert_non_null(r);
	assert_int_equal(r->cell[0].u, 0);
	tb_free(&t);
	bt_diff_free(d);
}

static void test_diff_kernel_threads_pooled_by_name(void **state)
{
	static const unsigned m[] = { BT_DIFF_IOS };
	struct bt_diff *d = mk(BT_DIFF_BY_COMM, m, 1);
	struct bt_diff *p = mk(BT_DIFF_BY_PID, m, 1);
	const struct row *r;
	struct rows x;
	struct tb t;

	(void)state;
	tb_init(&t, 0, 0);
	note(&t, 1, BT_N_PROCESS, 20, "kworker/0:1H");
	note(&t, 2, BT_N_PROCESS, 21, "kworker/u16:2");
	note(&t, 3, BT_N_PROCESS, 22, "jbd2/sda1-8");
	readio(&t, 1 * MS, 20, 100, 1 * MS);
	readio(&t, 3 * MS, 21, 200, 1 * MS);
	readio(&t, 5 * MS, 22, 300, 1 * MS);
	readio(&t, 7 * MS, 23, 400, 1 * MS);	/* never named */
	run(d, "a", &t);
	run(p, "a", &t);
	rows_of(d, &x);
	/* all first, then names in byte order */
	assert_int_equal(x.n, 4);
	assert_string_equal(x.r[0].group, "all");
	assert_string_equal(x.r[1].group, "-");
	assert_string_equal(x.r[2].group, "jbd2");
	assert_string_equal(x.r[3].group, "kworker");
	assert_int_equal(x.r[0].cell[0].u, 4);
	assert_int_equal(x.r[1].cell[0].u, 1);
	assert_int_equal(x.r[2].cell[0].u, 1);
	assert_int_equal(x.r[3].cell[0].u, 2);
	rows_of(p, &x);
	assert_int_equal(x.n, 5);
	assert_string_equal(x.r[1].group, "kworker/0:1H[20]");
	assert_string_equal(x.r[4].group, "[23]");
	r = find(&x, "jbd2/sda1-8[22]", "ios");
	assert_non_null(r);
	assert_int_equal(r->cell[0].u, 1);
	tb_free(&t);
	bt_diff_free(d);
	bt_diff_free(p);
}

static void test_diff_group_on_one_side_has_empty_cells(void **state)
{
	static const unsigned m[] = { BT_DIFF_IOS, BT_DIFF_Q2C_P50 };
	struct bt_diff *d = mk(BT_DIFF_BY_COMM, m, 2);
	const struct row *r;
	struct rows x;
	struct tb a, b, c;

	(void)state;
	tb_init(&a, 0, 0);
	tb_init(&b, 0, 0);
	tb_init(&c, 0, 0);
	note(&a, 1, BT_N_PROCESS, 10, "postgres");
	readio(&a, 1 * MS, 10, 100, 2 * MS);
	readio(&a, 5 * MS, 10, 200, 2 * MS);
	note(&b, 1, BT_N_PROCESS, 30, "fio");
	readio(&b, 1 * MS, 30, 100, 1 * MS);
	note(&c, 1, BT_N_PROCESS, 10, "postgres");
	note(&c, 2, BT_N_PROCESS, 30, "fio");
	readio(&c, 1 * MS, 10, 100, 4 * MS);
	readio(&c, 6 * MS, 10, 300, 4 * MS);
	readio(&c, 11 * MS, 10, 500, 4 * MS);
	readio(&c, 16 * MS, 30, 700, 4 * MS);
	run(d, "a", &a);
	run(d, "b", &b);
	run(d, "c", &c);
	assert_int_equal(bt_diff_recordings(d), 3);
	rows_of(d, &x);
	r = find(&x, "postgres", "ios");
	assert_non_null(r);
	assert_int_equal(r->n, 3);
	assert_int_equal(r->cell[0].u, 2);
	assert_int_equal(r->cell[1].kind, BT_DIFF_EMPTY);
	assert_int_equal(r->cell[2].u, 3);
	assert_true(isnan(r->ratio[1]));
	assert_true(fabs(r->ratio[2] - 1.5) < 1e-9);
	r = find(&x, "postgres", "q2c_p50_us");
	assert_true(fabs(r->ratio[2] - 2.0) < 1e-9);
	/* fio is not in a: no ratio against the first at all */
	r = find(&x, "fio", "ios");
	assert_non_null(r);
	assert_int_equal(r->cell[0].kind, BT_DIFF_EMPTY);
	assert_int_equal(r->cell[1].u, 1);
	assert_int_equal(r->cell[2].u, 1);
	assert_true(isnan(r->ratio[2]));
	tb_free(&a);
	tb_free(&b);
	tb_free(&c);
	bt_diff_free(d);
}

/* b has BFQ's queue messages, a has none: both use events. */
static void test_diff_slice_source_events_unless_every_side_has_messages(
	void **state)
{
	static const unsigned m[] = { BT_DIFF_SLICE_SOURCE };
	struct bt_diff *d = mk(BT_DIFF_BY_COMM, m, 1);
	struct bt_diff *e = mk(BT_DIFF_BY_COMM, m, 1);
	struct rows x;
	struct tb a, b;

	(void)state;
	tb_init(&a, 0, 0);
	tb_init(&b, 0, 0);
	readio(&a, 1 * MS, 10, 100, 1 * MS);
	note(&b, 1 * MS, BT_N_MESSAGE, 10, "bfq10S add to busy");
	readio(&b, 2 * MS, 10, 100, 1 * MS);
	run(d, "a", &a);
	run(d, "b", &b);
	assert_int_equal(bt_diff_slice_source(d), BT_SLICE_EVENTS);
	rows_of(d, &x);
	assert_int_equal(x.n, 1);	/* group all only */
	assert_string_equal(x.r[0].cell[0].text, "events");
	assert_string_equal(x.r[0].cell[1].text, "events");
	assert_true(isnan(x.r[0].ratio[1]));
	run(e, "b", &b);
	run(e, "b2", &b);
	assert_int_equal(bt_diff_slice_source(e), BT_SLICE_MESSAGES);
	rows_of(e, &x);
	assert_string_equal(x.r[0].cell[1].text, "messages");
	tb_free(&a);
	tb_free(&b);
	bt_diff_free(d);
	bt_diff_free(e);
}

static void test_diff_cgroup_groups_and_missing_ids(void **state)
{
	static const unsigned m[] = { BT_DIFF_IOS, BT_DIFF_FSYNC_EPISODES };
	struct bt_diff *d = mk(BT_DIFF_BY_CGROUP, m, 2);
	struct bt_reader *r;
	struct bt_event e = tb_ev(1 * MS, 0, BT_A_QUEUE, BT_TC_READ, 8192);
	const struct row *row;
	struct rows x;
	struct tb t;
	int rc;

	(void)state;
	tb_init(&t, 0, 0);
	e.pid = 10;
	e.has_cgroup = 1;
	e.cgroup = 0x500000abcull;
	e.sector = 100;
	tb_add(&t, &e);
	add(&t, 1 * MS + 10 * US, BT_A_ISSUE, BT_TC_READ, 0, 100, 8192);
	add(&t, 2 * MS, BT_A_COMPLETE, BT_TC_READ, 0, 100, 8192);
	/*
	 * The episode's events carry no id: it and its write go to the
	 * cgroup of pid 10's tagged I/O; pid 11 never had one.
	 */
	episode(&t, 10 * MS, 10, 900, 1 * MS, 2 * MS);
	readio(&t, 20 * MS, 11, 2000, 1 * MS);
	run(d, "a", &t);
	rows_of(d, &x);
	row = find(&x, "abc,5", "fsync_episodes");
	assert_non_null(row);
	assert_int_equal(row->cell[0].u, 1);
	row = find(&x, "abc,5", "ios");
	assert_int_equal(row->cell[0].u, 2);
	row = find(&x, "-", "ios");
	assert_non_null(row);
	assert_int_equal(row->cell[0].u, 1);
	tb_free(&t);

	tb_init(&t, 0, 0);
	readio(&t, 1 * MS, 10, 100, 1 * MS);
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, "b"), 0);
	assert_int_equal(bt_diff_begin(d, "b", r), 0);
	while ((rc = bt_reader_next(r, &e)) > 0)
		assert_int_equal(bt_diff_feed(d, &e), 0);
	assert_int_equal(bt_diff_end(d), -ENOMSG);
	bt_reader_free(r);
	tb_free(&t);
	bt_diff_free(d);
}

/*
 * The writers btreplay reuses: the header with ratio_LABEL columns from
 * three recordings on, empty cells and ratios, and the verdict naming
 * the lowest fdatasync p99 and the highest throughput.  a: episodes of
 * 2 and 4 ms, 16384 bytes in 100 ms (0.164 MB/s); b: no episode, 16384
 * bytes in 11 ms (1.489 MB/s, 9.09 times a); c: episodes of 1 and 2 ms,
 * the same bytes and span as a.
 */
static void test_diff_print_and_verdict(void **state)
{
	static const unsigned m[] = { BT_DIFF_FSYNC_P99, BT_DIFF_IOS };
	struct bt_diff *d = mk(BT_DIFF_BY_COMM, m, 2);
	char *buf = NULL;
	size_t len = 0;
	struct tb a, b, c;
	FILE *f;

	(void)state;
	tb_init(&a, 0, 0);
	tb_init(&b, 0, 0);
	tb_init(&c, 0, 0);
	note(&a, 1, BT_N_PROCESS, 10, "postgres");
	episode(&a, 10 * MS, 10, 100, 1 * MS, 2 * MS);
	episode(&a, 50 * MS, 10, 200, 1 * MS, 4 * MS);
	readio(&a, 100 * MS, 10, 300, 10 * MS);
	note(&b, 1, BT_N_PROCESS, 30, "fio");
	readio(&b, 10 * MS, 30, 100, 1 * MS);
	readio(&b, 20 * MS, 30, 200, 1 * MS);
	note(&c, 1, BT_N_PROCESS, 10, "postgres");
	episode(&c, 10 * MS, 10, 100, 500 * US, 1 * MS);
	episode(&c, 50 * MS, 10, 200, 1 * MS, 2 * MS);
	readio(&c, 100 * MS, 10, 300, 10 * MS);
	run(d, "a", &a);
	run(d, "b", &b);
	run(d, "c", &c);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(bt_diff_print(d, f, BT_TABLE_TSV, 1), 0);
	assert_int_equal(bt_diff_verdict(d, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf,
		"group\tmetric\ta\tb\tc\tratio\tratio_b\tratio_c\n"
		"all\tfsync_p99_us\t4000.000\t\t2000.000\t0.500\t\t0.500\n"
		"all\tios\t3\t2\t3\t1.000\t0.667\t1.000\n"
		"-\tfsync_p99_us\t\t\t\t\t\t\n"
		"-\tios\t0\t\t0\t\t\t\n"
		"fio\tfsync_p99_us\t\t\t\t\t\t\n"
		"fio\tios\t\t2\t\t\t\t\n"
		"postgres\tfsync_p99_us\t4000.000\t\t2000.000\t0.500\t\t0.500\n"
		"postgres\tios\t3\t\t3\t1.000\t\t1.000\n"
		"verdict: all: lowest fsync p99 c (2000.000 us, 2.00x lower than a), "
		"highest throughput b (1.489 MB/s, 9.09x a); "
		"postgres: lowest fsync p99 c (2000.000 us, 2.00x lower than a), "
		"highest throughput a (0.164 MB/s, the same in every recording)\n");
	free(buf);
	tb_free(&a);
	tb_free(&b);
	tb_free(&c);
	bt_diff_free(d);
}

static void test_diff_metric_names_and_bad_opts(void **state)
{
	static const unsigned bad[] = { BT_DIFF_NMETRICS };
	struct bt_diff_opts o = { .by = 7 };
	struct bt_diff *d;

	(void)state;
	for (unsigned m = 0; m < BT_DIFF_NMETRICS; m++)
		assert_int_equal(bt_diff_metric_find(bt_diff_metric_name(m)),
				 (int)m);
	assert_null(bt_diff_metric_name(BT_DIFF_NMETRICS));
	assert_int_equal(bt_diff_metric_find("fsync_p50_us"), BT_DIFF_FSYNC_P50);
	assert_int_equal(bt_diff_metric_find("fsync_p50"), -EINVAL);
	assert_int_equal(bt_diff_new(&d, &o), -EINVAL);
	assert_null(d);
	o.by = BT_DIFF_BY_PID;
	o.metrics = bad;
	o.nmetrics = 1;
	assert_int_equal(bt_diff_new(&d, &o), -EINVAL);
	assert_int_equal(bt_diff_new(&d, NULL), -EINVAL);
	d = mk(BT_DIFF_BY_COMM, NULL, 0);
	assert_int_equal(bt_diff_feed(d, &(struct bt_event){ 0 }), -EINVAL);
	assert_int_equal(bt_diff_end(d), -EINVAL);
	assert_int_equal(bt_diff_begin(d, "a", NULL), 0);
	assert_int_equal(bt_diff_begin(d, "b", NULL), -EINVAL);
	assert_int_equal(bt_diff_end(d), 0);
	bt_diff_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff_group_percentiles_pool_samples),
		cmocka_unit_test(test_diff_kernel_threads_pooled_by_name),
		cmocka_unit_test(test_diff_group_on_one_side_has_empty_cells),
		cmocka_unit_test(test_diff_slice_source_events_unless_every_side_has_messages),
		cmocka_unit_test(test_diff_cgroup_groups_and_missing_ids),
		cmocka_unit_test(test_diff_print_and_verdict),
		cmocka_unit_test(test_diff_metric_names_and_bad_opts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
