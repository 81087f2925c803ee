// SPDX-License-Identifier: MIT
/*
 * test_size.c - size histograms on hand-built events: every D counted,
 * pass-through commands and requests never completed included, the op of
 * each (R, W, discard, flush, other), --at=Q counting Q events instead,
 * owners from the tracker's request (not the D's kworker), one owner only,
 * and the rows' order.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>
#include "btkit.h"

#define DEV BT_DEV_MAKE(8, 16)

struct hists {
	struct bt_size_hist x[16];
	struct bt_log2 h[16];
	size_t n;
};

static void collect(const struct bt_size_hist *x, void *arg)
{
	struct hists *g = arg;

	assert_true(g->n < 16);
	assert_true(x->h->total > 0);
	g->h[g->n] = *x->h;
	g->x[g->n] = *x;
	g->x[g->n].h = &g->h[g->n];
	g->n++;
}

static struct bt_event mk(unsigned act, uint32_t cat, uint64_t sector,
			  uint32_t bytes, uint32_t pid)
{
	struct bt_event e;

	memset(&e, 0, sizeof(e));
	e.action = act;
	e.category = cat;
	e.sector = sector;
	e.bytes = bytes;
	e.pid = pid;
	e.dev = DEV;
	return e;
}

/* Feed through the tracker when there is one, as btsize does with -P. */
static void feed(struct bt_size *s, struct bt_tracker *tr, struct bt_event e,
		 uint64_t us)
{
	const struct bt_request *rq = NULL;

	e.time = us * 1000;
	if (tr)
		bt_tracker_feed(tr, &e, &rq);
	assert_int_equal(bt_size_feed(s, &e, rq), 0);
}

/*
 * Reads by owner 100 dispatched by kworker 300, a pass-through command of
 * pid 400 without data and without completion (`D   N 0`), a 512-byte
 * pass-through read, a discard, a blk-flush flush (`D FN`), a write never
 * completed.
 */
static void trace(struct bt_size *s, struct bt_tracker *tr)
{
	uint64_t t = 0;

	for (unsigned k = 0; k < 3; k++) {
		uint32_t b = k ? 4096 : 65536;
		uint64_t sec = 1000 + 256 * k;

		feed(s, tr, mk(BT_A_QUEUE, BT_TC_READ, sec, b, 100), t++);
		feed(s, tr, mk(BT_A_GETRQ, BT_TC_READ, sec, b, 100), t++);
		feed(s, tr, mk(BT_A_ISSUE, BT_TC_READ, sec, b, 300), t++);
		feed(s, tr, mk(BT_A_COMPLETE, BT_TC_READ, sec, b, 0), t++);
	}
	feed(s, tr, mk(BT_A_ISSUE, BT_TC_PC, 0, 0, 400), t++);
	feed(s, tr, mk(BT_A_ISSUE, BT_TC_PC, 0, 0, 400), t++);
	feed(s, tr, mk(BT_A_QUEUE, BT_TC_PC | BT_TC_READ, 0, 512, 400), t++);
	feed(s, tr, mk(BT_A_ISSUE, BT_TC_PC | BT_TC_READ, 0, 512, 400), t++);
	feed(s, tr, mk(BT_A_QUEUE, BT_TC_WRITE | BT_TC_DISCARD, 9000, 1 << 20,
		       200), t++);
	feed(s, tr, mk(BT_A_ISSUE, BT_TC_WRITE | BT_TC_DISCARD, 9000, 1 << 20,
		       300), t++);
	feed(s, tr, mk(BT_A_ISSUE, BT_TC_FLUSH, 0, 0, 300), t++);
	feed(s, tr, mk(BT_A_QUEUE, BT_TC_WRITE, 20000, 8192, 200), t++);
	feed(s, tr, mk(BT_A_GETRQ, BT_TC_WRITE, 20000, 8192, 200), t++);
	feed(s, tr, mk(BT_A_ISSUE, BT_TC_WRITE, 20000, 8192, 300), t++);
}

static void run(const struct bt_size_opts *o, int tracker, struct hists *g)
{
	struct bt_tracker *tr = NULL;
	struct bt_size *s;

	memset(g, 0, sizeof(*g));
	assert_int_equal(bt_size_new(&s, o), 0);
	if (tracker)
		assert_int_equal(bt_tracker_new(&tr, NULL), 0);
	trace(s, tr);
	bt_size_rows(s, collect, g);
	bt_tracker_free(tr);
	bt_size_free(s);
}

static void test_size_every_dispatch_counts(void **state)
{
	struct bt_size_opts o = { 0 };
	struct hists g;
	uint64_t total = 0;

	(void)state;
	run(&o, 0, &g);
	/* R, W, D, F, N in that order, one device */
	assert_int_equal(g.n, 5);
	assert_int_equal(g.x[0].op, 'R');
	assert_int_equal(g.x[0].h->total, 4);		/* 3 reads + PC read */
	assert_int_equal(g.x[0].h->count[10], 1);	/* 512 B */
	assert_int_equal(g.x[0].h->count[13], 2);	/* 4 KiB */
	assert_int_equal(g.x[0].h->count[17], 1);	/* 64 KiB */
	assert_int_equal(g.x[1].op, 'W');
	assert_int_equal(g.x[1].h->count[14], 1);	/* never completed */
	assert_int_equal(g.x[2].op, 'D');
	assert_int_equal(g.x[2].h->count[21], 1);
	assert_int_equal(g.x[3].op, 'F');
	assert_int_equal(g.x[3].h->count[0], 1);
	assert_int_equal(g.x[4].op, 'N');
	assert_int_equal(g.x[4].h->count[0], 2);	/* PC without data */
	for (size_t i = 0; i < g.n; i++) {
		assert_int_equal(g.x[i].dev, DEV);
		assert_int_equal(g.x[i].pid, 0);
		total += g.x[i].h->total;
	}
	assert_int_equal(total, 9);	/* every D of the trace */
}

static void test_size_at_queue(void **state)
{
	struct bt_size_opts o = { .at_q = 1 };
	struct hists g;

	(void)state;
	run(&o, 0, &g);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.x[0].op, 'R');
	assert_int_equal(g.x[0].h->total, 4);
	assert_int_equal(g.x[1].op, 'W');
	assert_int_equal(g.x[2].op, 'D');
}

static void test_size_owners_from_requests(void **state)
{
	struct bt_size_opts o = { .per_pid = 1 };
	struct hists g;

	(void)state;
	run(&o, 1, &g);
	/* 100 R; 300 F (blk-flush's flush has no Q); 200 W, D; 400 R, N */
	assert_int_equal(g.n, 6);
	assert_int_equal(g.x[0].pid, 100);
	assert_int_equal(g.x[0].op, 'R');
	assert_int_equal(g.x[0].h->total, 3);
	assert_int_equal(g.x[1].pid, 200);
	assert_int_equal(g.x[1].op, 'W');
	assert_int_equal(g.x[2].pid, 200);
	assert_int_equal(g.x[2].op, 'D');
	assert_int_equal(g.x[3].pid, 300);
	assert_int_equal(g.x[3].op, 'F');
	assert_int_equal(g.x[4].pid, 400);
	assert_int_equal(g.x[4].op, 'R');
	assert_int_equal(g.x[5].pid, 400);
	assert_int_equal(g.x[5].op, 'N');
	assert_int_equal(g.x[5].h->total, 2);

	o.has_pid = 1;
	o.pid = 400;
	run(&o, 1, &g);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.x[0].pid, 400);
	assert_int_equal(g.x[1].pid, 400);
}

static void test_size_bad_opts_and_log2_span(void **state)
{
	struct bt_log2 h;
	struct bt_size *s;
	unsigned lo = 99, hi = 99;

	(void)state;
	assert_int_equal(bt_size_new(&s, NULL), -EINVAL);
	assert_null(s);
	bt_size_free(NULL);
	memset(&h, 0, sizeof(h));
	assert_int_equal(bt_log2_span(&h, &lo, &hi), 0);
	bt_log2_add(&h, 0);
	bt_log2_add(&h, UINT64_MAX);
	assert_int_equal(bt_log2_span(&h, &lo, &hi), 1);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_every_dispatch_counts),
		cmocka_unit_test(test_size_at_queue),
		cmocka_unit_test(test_size_owners_from_requests),
		cmocka_unit_test(test_size_bad_opts_and_log2_span),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
