// SPDX-License-Identifier: MIT
/*
 * test_merge.c - merge ratios on hand-built event sequences fed through the
 * real tracker, as btmerge feeds them: back and front merges counted per
 * op and in "all", requeues counted as Qs, #Q raised to #D, events of a
 * device before its first Q left out (btt's culling), completion blocks,
 * bios per request from the tracker's finished requests, rows per owner
 * and for one owner only, and a done callback already set still called.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>
#include "btkit.h"

#define DEV BT_DEV_MAKE(8, 0)
#define DEV2 BT_DEV_MAKE(8, 16)
#define R BT_TC_READ
#define W BT_TC_WRITE

struct rows {
	struct bt_merge_row r[16];
	size_t n;
};

struct run {
	struct bt_merge *m;
	struct bt_tracker *tr;
	size_t done;		/* calls of the callback set before attach */
};

static void collect(const struct bt_merge_row *r, void *arg)
{
	struct rows *x = arg;

	assert_true(x->n < 16);
	x->r[x->n++] = *r;
}

static void count_done(const struct bt_request *rq, void *arg)
{
	(void)rq;
	((struct run *)arg)->done++;
}

static void start(struct run *run, int per_pid, int has_pid, uint32_t pid)
{
	struct bt_merge_opts mo = { .per_pid = per_pid, .has_pid = has_pid,
				    .pid = pid };
	struct bt_tracker_opts to = { .done = count_done, .arg = run };

	memset(run, 0, sizeof(*run));
	assert_int_equal(bt_merge_new(&run->m, &mo), 0);
	bt_merge_attach(run->m, &to);
	assert_int_equal(bt_tracker_new(&run->tr, &to), 0);
}

static void ev(struct run *run, uint64_t us, unsigned act, uint32_t cat,
	       uint64_t sector, uint32_t bytes, uint32_t pid, uint32_t dev)
{
	const struct bt_request *rq;
	struct bt_event e;

	memset(&e, 0, sizeof(e));
	e.time = us * 1000;
	e.action = act;
	e.category = cat;
	e.sector = sector;
	e.bytes = bytes;
	e.pid = act == BT_A_COMPLETE ? 0 : pid;
	e.dev = dev;
	bt_tracker_feed(run->tr, &e, &rq);
	assert_int_equal(bt_merge_feed(run->m, &e, rq), 0);
}

static void finish(struct run *run, struct rows *x)
{
	bt_tracker_flush(run->tr);
	memset(x, 0, sizeof(*x));
	assert_int_equal(bt_merge_rows(run->m, collect, x), 0);
	bt_tracker_free(run->tr);
	bt_merge_free(run->m);
}

/* Owner 100 reads 4 bios back-merged; owner 200 writes 2, front-merged. */
static void shapes(struct run *run)
{
	ev(run, 10, BT_A_QUEUE, R, 1000, 4096, 100, DEV);
	ev(run, 11, BT_A_GETRQ, R, 1000, 4096, 100, DEV);
	for (unsigned k = 1; k < 4; k++) {
		ev(run, 11 + 2 * k, BT_A_QUEUE, R, 1000 + 8 * k, 4096, 100, DEV);
		ev(run, 12 + 2 * k, BT_A_BACKMERGE, R, 1000 + 8 * k, 4096, 100,
		   DEV);
	}
	ev(run, 20, BT_A_INSERT, R, 1000, 16384, 100, DEV);
	ev(run, 21, BT_A_ISSUE, R, 1000, 16384, 300, DEV);
	ev(run, 121, BT_A_COMPLETE, R, 1000, 16384, 0, DEV);

	ev(run, 200, BT_A_QUEUE, W, 5008, 4096, 200, DEV);
	ev(run, 201, BT_A_GETRQ, W, 5008, 4096, 200, DEV);
	ev(run, 202, BT_A_QUEUE, W, 5000, 4096, 200, DEV);
	ev(run, 203, BT_A_FRONTMERGE, W, 5000, 4096, 200, DEV);
	ev(run, 204, BT_A_INSERT, W, 5000, 8192, 200, DEV);
	ev(run, 205, BT_A_ISSUE, W, 5000, 8192, 300, DEV);
	/* requeued once: btt counts the R as one more Q */
	ev(run, 206, BT_A_REQUEUE, W, 5000, 8192, 300, DEV);
	ev(run, 300, BT_A_ISSUE, W, 5000, 8192, 300, DEV);
	ev(run, 405, BT_A_COMPLETE, W, 5000, 8192, 0, DEV);
}

static void test_merge_device_rows_as_btt(void **state)
{
	struct run run;
	struct rows x;

	(void)state;
	start(&run, 0, 0, 0);
	shapes(&run);
	finish(&run, &x);
	assert_int_equal(run.done, 2);	/* the earlier callback still runs */
	assert_int_equal(x.n, 3);
	assert_string_equal(x.r[0].op, "R");
	assert_int_equal(x.r[0].q, 4);
	assert_int_equal(x.r[0].back, 3);
	assert_int_equal(x.r[0].d, 1);
	assert_true(x.r[0].ratio == 4.0);
	assert_true(x.r[0].bios_per_rq == 4.0);
	assert_int_equal(x.r[0].blk_total, 32);
	assert_int_equal(x.r[0].blk_avg, 32);
	assert_string_equal(x.r[1].op, "W");
	assert_int_equal(x.r[1].q, 3);		/* 2 bios + 1 requeue */
	assert_int_equal(x.r[1].front, 1);
	assert_int_equal(x.r[1].d, 2);		/* dispatched twice */
	assert_true(x.r[1].ratio == 1.5);
	assert_int_equal(x.r[1].blk_min, 16);
	assert_int_equal(x.r[1].blk_avg, 8);	/* 16 blocks over #D = 2 */
	assert_string_equal(x.r[2].op, "all");
	assert_int_equal(x.r[2].q, 7);
	assert_int_equal(x.r[2].d, 3);
	assert_int_equal(x.r[2].blk_min, 16);
	assert_int_equal(x.r[2].blk_max, 32);
	assert_int_equal(x.r[2].blk_total, 48);
	assert_true(x.r[2].bios_per_rq == 3.0);
	for (size_t i = 0; i < x.n; i++) {
		assert_int_equal(x.r[i].dev, DEV);
		assert_int_equal(x.r[i].pid, 0);
	}
}

static void test_merge_per_owner_and_one_owner(void **state)
{
	struct run run;
	struct rows x;

	(void)state;
	start(&run, 1, 0, 0);
	shapes(&run);
	finish(&run, &x);
	/* 100: R, all; 200: W, all.  The D's kworker 300 owns nothing. */
	assert_int_equal(x.n, 4);
	assert_int_equal(x.r[0].pid, 100);
	assert_string_equal(x.r[0].op, "R");
	assert_int_equal(x.r[1].pid, 100);
	assert_string_equal(x.r[1].op, "all");
	assert_int_equal(x.r[2].pid, 200);
	assert_string_equal(x.r[2].op, "W");
	assert_int_equal(x.r[2].d, 2);
	assert_int_equal(x.r[2].blk_total, 16);

	start(&run, 1, 1, 200);
	shapes(&run);
	finish(&run, &x);
	assert_int_equal(x.n, 2);
	assert_int_equal(x.r[0].pid, 200);
	assert_int_equal(x.r[1].pid, 200);
	assert_int_equal(x.r[1].q, 3);
}

/* Events of a device before its first Q are dropped, as btt drops them. */
static void test_merge_device_counts_from_first_queue(void **state)
{
	struct run run;
	struct rows x;

	(void)state;
	start(&run, 0, 0, 0);
	/* a request in flight when the trace began: D and C only */
	ev(&run, 1, BT_A_ISSUE, R, 9000, 4096, 300, DEV2);
	ev(&run, 2, BT_A_COMPLETE, R, 9000, 4096, 0, DEV2);
	ev(&run, 3, BT_A_QUEUE, R, 100, 4096, 100, DEV2);
	ev(&run, 4, BT_A_GETRQ, R, 100, 4096, 100, DEV2);
	ev(&run, 5, BT_A_ISSUE, R, 100, 4096, 300, DEV2);
	ev(&run, 6, BT_A_COMPLETE, R, 100, 4096, 0, DEV2);
	/* a device with D and C only has no row at all */
	ev(&run, 7, BT_A_ISSUE, R, 100, 4096, 300, DEV);
	ev(&run, 8, BT_A_COMPLETE, R, 100, 4096, 0, DEV);
	finish(&run, &x);
	assert_int_equal(x.n, 2);
	assert_int_equal(x.r[1].dev, DEV2);
	assert_int_equal(x.r[1].q, 1);
	assert_int_equal(x.r[1].d, 1);
	assert_int_equal(x.r[1].blk_total, 8);
	assert_true(x.r[1].bios_per_rq == 1.0);
}

static void test_merge_empty_and_bad_opts(void **state)
{
	struct bt_merge *m;
	struct rows x;

	(void)state;
	assert_int_equal(bt_merge_new(&m, NULL), -EINVAL);
	assert_null(m);
	memset(&x, 0, sizeof(x));
	assert_int_equal(bt_merge_new(&m, &(struct bt_merge_opts){ 0 }), 0);
	assert_int_equal(bt_merge_rows(m, collect, &x), 0);
	assert_int_equal(x.n, 0);
	bt_merge_free(m);
	bt_merge_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_device_rows_as_btt),
		cmocka_unit_test(test_merge_per_owner_and_one_owner),
		cmocka_unit_test(test_merge_device_counts_from_first_queue),
		cmocka_unit_test(test_merge_empty_and_bad_opts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
