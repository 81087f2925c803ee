// SPDX-License-Identifier: MIT
/*
 * test_track.c - the request tracker on hand-built event sequences: back
 * and front merges, requeue, split, remap (dm and partition), blk-flush
 * flushes without Q, direct issue, partial completions, expiry of requests
 * that never complete, eviction when the table is full, cgroup-flagged
 * events.  Each case feeds struct bt_event values directly, so the
 * sequence under test reads top to bottom in the test.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "btkit.h"

#define DEV	BT_DEV_MAKE(8, 0)
#define DM	BT_DEV_MAKE(253, 0)
#define PART	BT_DEV_MAKE(8, 1)
#define US	1000ull		/* ns */

/* xorshift64: fixed seed, so a failure reproduces */
static uint64_t rng = 1;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Finished requests collected by the done callback. */
struct got {
	struct bt_request rq[64];
	int n;
};

static void on_done(const struct bt_request *rq, void *arg)
{
	struct got *g = arg;

	if (g->n < 64)
		g->rq[g->n] = *rq;
	g->n++;
}

struct fx {
	struct bt_tracker *tr;
	struct got got;
	unsigned char pdu[8][16];
	int npdu;
};

static struct fx *fx_new(uint64_t expire_ns, uint32_t cap)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct bt_tracker_opts o = {
		.expire_ns = expire_ns, .capacity = cap,
		.done = on_done, .arg = NULL,
	};

	assert_non_null(f);
	o.arg = &f->got;
	assert_int_equal(bt_tracker_new(&f->tr, &o), 0);
	return f;
}

static void fx_free(struct fx *f)
{
	bt_tracker_free(f->tr);
	free(f);
}

static struct bt_event mk(uint32_t act, uint32_t cat, uint64_t t_us,
			  uint32_t dev, uint64_t sector, uint32_t bytes,
			  uint32_t pid)
{
	struct bt_event e;

	memset(&e, 0, sizeof(e));
	e.action = act;
	e.category = cat;
	e.time = t_us * US;
	e.dev = dev;
	e.sector = sector;
	e.bytes = bytes;
	e.pid = pid;
	e.version = 7;
	return e;
}

/* Feed one event; returns the request it touched (or NULL). */
static const struct bt_request *feed(struct fx *f, uint32_t act, uint32_t cat,
				     uint64_t t_us, uint32_t dev,
				     uint64_t sector, uint32_t bytes,
				     uint32_t pid)
{
	struct bt_event e = mk(act, cat, t_us, dev, sector, bytes, pid);
	const struct bt_request *rq;
	int rc = bt_tracker_feed(f->tr, &e, &rq);

	assert_true(rc == 0 || rc == 1);
	assert_true((rc == 1) == (rq != NULL));
	return rq;
}

static void put_be(unsigned char *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

static void feed_split(struct fx *f, uint64_t t_us, uint32_t dev,
		       uint64_t sector, uint32_t bytes, uint64_t at)
{
	struct bt_event e = mk(BT_A_SPLIT, BT_TC_WRITE, t_us, dev, sector,
			       bytes, 1);
	unsigned char *p = f->pdu[f->npdu++ % 8];

	put_be(p, at, 8);
	e.pdu = p;
	e.pdu_len = 8;
	assert_true(bt_tracker_feed(f->tr, &e, NULL) >= 0);
}

static void feed_remap(struct fx *f, uint64_t t_us, uint32_t to,
		       uint64_t sector, uint32_t bytes, uint32_t from,
		       uint64_t from_sector, uint32_t pid)
{
	struct bt_event e = mk(BT_A_REMAP, BT_TC_READ, t_us, to, sector,
			       bytes, pid);
	unsigned char *p = f->pdu[f->npdu++ % 8];

	put_be(p, from, 4);
	put_be(p + 4, to, 4);
	put_be(p + 8, from_sector, 8);
	e.pdu = p;
	e.pdu_len = 16;
	assert_true(bt_tracker_feed(f->tr, &e, NULL) >= 0);
}

static void test_tracker_owner_is_first_queue(void **state)
{
	struct fx *f = fx_new(0, 0);
	const struct bt_request *rq;

	(void)state;
	rq = feed(f, BT_A_QUEUE, BT_TC_WRITE, 10, DEV, 100, 4096, 11);
	assert_non_null(rq);
	assert_int_equal(rq->pid, 11);
	assert_int_equal(rq->op, 'W');	/* current for per-event hooks */
	assert_int_equal(rq->state, BT_RQS_QUEUED);
	feed(f, BT_A_GETRQ, BT_TC_WRITE, 11, DEV, 100, 4096, 11);
	feed(f, BT_A_QUEUE, BT_TC_WRITE, 20, DEV, 108, 4096, 22);
	rq = feed(f, BT_A_BACKMERGE, BT_TC_WRITE, 21, DEV, 108, 4096, 22);
	assert_non_null(rq);
	assert_int_equal(rq->pid, 11);	/* the merging bio is not the owner */
	assert_int_equal(rq->bytes, 8192);
	feed(f, BT_A_INSERT, BT_TC_WRITE, 30, DEV, 100, 8192, 11);
	/* D in a kworker and C in interrupt context: never the owner */
	rq = feed(f, BT_A_ISSUE, BT_TC_WRITE, 40, DEV, 100, 8192, 99);
	assert_int_equal(rq->pid, 11);
	rq = feed(f, BT_A_COMPLETE, BT_TC_WRITE, 90, DEV, 100, 8192, 0);
	assert_non_null(rq);
	assert_int_equal(f->got.n, 1);
	rq = &f->got.rq[0];
	assert_int_equal(rq->pid, 11);
	assert_int_equal(rq->dev, DEV);
	assert_int_equal(rq->sector, 100);
	assert_int_equal(rq->bytes, 8192);
	assert_int_equal(rq->nbios, 2);
	assert_int_equal(rq->q, 10 * US);
	assert_int_equal(rq->g, 11 * US);
	assert_int_equal(rq->i, 30 * US);
	assert_int_equal(rq->d, 40 * US);
	assert_int_equal(rq->c, 90 * US);
	assert_int_equal(rq->q_off_sum, 10 * US);
	assert_int_equal(rq->nqlist, 2);
	assert_int_equal(rq->qlist[0], 10 * US);
	assert_int_equal(rq->qlist[1], 20 * US);
	assert_int_equal(rq->op, 'W');
	assert_string_equal(rq->rwbs, "W");
	assert_int_equal(rq->flags, 0);
	assert_int_equal(rq->state, BT_RQS_DONE);
	fx_free(f);
}

static void test_tracker_back_merge_moves_end_key(void **state)
{
	struct fx *f = fx_new(0, 0);
	uint64_t s;

	(void)state;
	feed(f, BT_A_QUEUE, BT_TC_READ, 1, DEV, 0, 4096, 5);
	feed(f, BT_A_GETRQ, BT_TC_READ, 2, DEV, 0, 4096, 5);
	/* three more bios, each landing on the end the previous one grew */
	for (s = 8; s < 32; s += 8) {
		feed(f, BT_A_QUEUE, BT_TC_READ, 2 + s, DEV, s, 4096, 5);
		assert_non_null(feed(f, BT_A_BACKMERGE, BT_TC_READ, 3 + s,
				     DEV, s, 4096, 5));
	}
	feed(f, BT_A_ISSUE, BT_TC_READ, 50, DEV, 0, 16384, 5);
	feed(f, BT_A_COMPLETE, BT_TC_READ, 60, DEV, 0, 16384, 0);
	assert_int_equal(f->got.n, 1);
	assert_int_equal(f->got.rq[0].nbios, 4);
	assert_int_equal(f->got.rq[0].bytes, 16384);
	assert_int_equal(f->got.rq[0].op, 'R');
	assert_true(f->got.rq[0].flags & BT_RQ_DIRECT);
	fx_free(f);
}

/*
 * The request that took the last back merge and another ending at the
 * same sector: the next bio there goes to the older one, as with both
 * at that end from the start, and to the other once the first is
 * dispatched.
 */
static void test_tracker_back_merge_shared_end(void **state)
{
	struct fx *f = fx_new(0, 0);

	(void)state;
	feed(f, BT_A_QUEUE, BT_TC_READ, 1, DEV, 0, 4096, 5);
	feed(f, BT_A_GETRQ, BT_TC_READ, 2, DEV, 0, 4096, 5);
	feed(f, BT_A_QUEUE, BT_TC_READ, 3, DEV, 8, 4096, 5);
	assert_non_null(feed(f, BT_A_BACKMERGE, BT_TC_READ, 4, DEV, 8, 4096,
			     5));
	/* a second request, ending at 16 like the first now does */
	feed(f, BT_A_QUEUE, BT_TC_READ, 5, DEV, 8, 4096, 6);
	feed(f, BT_A_GETRQ, BT_TC_READ, 6, DEV, 8, 4096, 6);
	feed(f, BT_A_QUEUE, BT_TC_READ, 7, DEV, 16, 4096, 5);
	assert_non_null(feed(f, BT_A_BACKMERGE, BT_TC_READ, 8, DEV, 16, 4096,
			     5));
	/* the first, now ending at 24, leaves the merges at its D */
	feed(f, BT_A_QUEUE, BT_TC_READ, 9, DEV, 24, 4096, 5);
	assert_non_null(feed(f, BT_A_BACKMERGE, BT_TC_READ, 10, DEV, 24, 4096,
			     5));
	feed(f, BT_A_ISSUE, BT_TC_READ, 11, DEV, 0, 16384, 5);
	feed(f, BT_A_QUEUE, BT_TC_READ, 12, DEV, 32, 4096, 5);
	assert_null(feed(f, BT_A_BACKMERGE, BT_TC_READ, 13, DEV, 32, 4096, 5));
	feed(f, BT_A_QUEUE, BT_TC_READ, 14, DEV, 16, 4096, 6);
	assert_non_null(feed(f, BT_A_BACKMERGE, BT_TC_READ, 15, DEV, 16, 4096,
			     6));
	feed(f, BT_A_ISSUE, BT_TC_READ, 16, DEV, 8, 8192, 6);
	feed(f, BT_A_COMPLETE, BT_TC_READ, 17, DEV, 0, 16384, 0);
	feed(f, BT_A_COMPLETE, BT_TC_READ, 18, DEV, 8, 8192, 0);
	assert_int_equal(f->got.n, 2);
	assert_int_equal(f->got.rq[0].sector, 0);
	assert_int_equal(f->got.rq[0].nbios, 4);
	assert_int_equal(f->got.rq[0].bytes, 16384);
	assert_int_equal(f->got.rq[1].sector, 8);
	assert_int_equal(f->got.rq[1].nbios, 2);
	assert_int_equal(f->got.rq[1].bytes, 8192);
	fx_free(f);
}

/* Back merges going round more requests than are held out of the end map. */
static void test_tracker_back_merges_round_many_requests(void **state)
{
	struct fx *f = fx_new(0, 0);
	uint64_t t = 1, r, k;

	(void)state;
	for (r = 0; r < 7; r++) {
		feed(f, BT_A_QUEUE, BT_TC_WRITE, t++, DEV, r * 1000, 4096, 5);
		feed(f, BT_A_GETRQ, BT_TC_WRITE, t++, DEV, r * 1000, 4096, 5);
	}
	for (k = 1; k <= 3; k++)
		for (r = 0; r < 7; r++) {
			uint64_t s = r * 1000 + 8 + (k - 1) * 8 * (r + 1);
			uint32_t n = 4096 * (uint32_t)(r + 1);

			feed(f, BT_A_QUEUE, BT_TC_WRITE, t++, DEV, s, n, 5);
			assert_non_null(feed(f, BT_A_BACKMERGE, BT_TC_WRITE, t++,
					     DEV, s, n, 5));
		}
	for (r = 0; r < 7; r++) {
		uint32_t bytes = 4096 + 3 * 4096 * (uint32_t)(r + 1);

		feed(f, BT_A_INSERT, BT_TC_WRITE, t++, DEV, r * 1000, bytes, 5);
		feed(f, BT_A_ISSUE, BT_TC_WRITE, t++, DEV, r * 1000, bytes, 5);
		feed(f, BT_A_COMPLETE, BT_TC_WRITE, t++, DEV, r * 1000, bytes,
		     0);
		assert_int_equal(f->got.n, r + 1);
		assert_int_equal(f->got.rq[r].nbios, 4);
		assert_int_equal(f->got.rq[r].bytes, bytes);
	}
	fx_free(f);
}

static void test_tracker_front_merge_moves_start(void **state)
{
	struct fx *f = fx_new(0, 0);
	struct bt_tracker_stats st;

	(void)state;
	feed(f, BT_A_QUEUE, BT_TC_WRITE, 1, DEV, 200, 4096, 3);
	feed(f, BT_A_GETRQ, BT_TC_WRITE, 2, DEV, 200, 4096, 3);
	feed(f, BT_A_QUEUE, BT_TC_WRITE, 3, DEV, 192, 4096, 4);
	assert_non_null(feed(f, BT_A_FRONTMERGE, BT_TC_WRITE, 4, DEV, 192,
			     4096, 4));
	/* the request now starts at 192: I, D and C come there */
	assert_non_null(feed(f, BT_A_INSERT, BT_TC_WRITE, 5, DEV, 192, 8192,
			     3));
	feed(f, BT_A_ISSUE, BT_TC_WRITE, 6, DEV, 192, 8192, 3);
	feed(f, BT_A_COMPLETE, BT_TC_WRITE, 9, DEV, 192, 8192, 0);
	assert_int_equal(f->got.n, 1);
	assert_int_equal(f->got.rq[0].sector, 192);
	assert_int_equal(f->got.rq[0].nbios, 2);
	assert_int_equal(f->got.rq[0].pid, 3);
	assert_int_equal(f->got.rq[0].q, 1 * US);
	bt_tracker_get_stats(f->tr, &st);
	assert_int_equal(st.inflight, 0);
	assert_int_equal(st.unmatched, 0);
	fx_free(f);
}

static void test_tracker_requeue_goes_round_again(void **state)
{
	struct fx *f = fx_new(0, 0);

	(void)state;
	feed(f, BT_A_QUEUE, BT_TC_READ, 1, DEV, 64, 4096, 8);
	feed(f, BT_A_GETRQ, BT_TC_READ, 2, DEV, 64, 4096, 8);
	feed(f, BT_A_INSERT, BT_TC_READ, 3, DEV, 64, 4096, 8);
	feed(f, BT_A_ISSUE, BT_TC_READ, 4, DEV, 64, 4096, 8);
	assert_non_null(feed(f, BT_A_REQUEUE, BT_TC_READ, 5, DEV, 64, 4096,
			     8));
	feed(f, BT_A_INSERT, BT_TC_READ, 6, DEV, 64, 4096, 8);
	feed(f, BT_A_ISSUE, BT_TC_READ, 7, DEV, 64, 4096, 8);
	assert_int_equal(f->got.n, 0);
	feed(f, BT_A_COMPLETE, BT_TC_READ, 9, DEV, 64, 4096, 0);
	assert_int_equal(f->got.n, 1);
	assert_true(f->got.rq[0].flags & BT_RQ_REQUEUED);
	assert_int_equal(f->got.rq[0].nrequeue, 1);
	assert_int_equal(f->got.rq[0].i, 3 * US);
	assert_int_equal(f->got.rq[0].i_last, 6 * US);
	assert_int_equal(f->got.rq[0].d_first, 4 * US);
	assert_int_equal(f->got.rq[0].d, 7 * US);
	fx_free(f);
}

static void test_tracker_split_makes_two_requests(void **state)
{
	struct fx *f = fx_new(0, 0);

	(void)state;
	/* one 8 KiB bio split at sector 1008: two requests, same owner */
	feed(f, BT_A_QUEUE, BT_TC_WRITE, 1, DEV, 1000, 8192, 42);
	feed_split(f, 2, DEV, 1000, 8192, 1008);
	assert_non_null(feed(f, BT_A_GETRQ, BT_TC_WRITE, 3, DEV, 1000, 4096,
			     42));
	assert_non_null(feed(f, BT_A_GETRQ, BT_TC_WRITE, 4, DEV, 1008, 4096,
			     42));
	feed(f, BT_A_ISSUE, BT_TC_WRITE, 5, DEV, 1000, 4096, 42);
	feed(f, BT_A_ISSUE, BT_TC_WRITE, 6, DEV, 1008, 4096, 42);
	feed(f, BT_A_COMPLETE, BT_TC_WRITE, 7, DEV, 1000, 4096, 0);
	feed(f, BT_A_COMPLETE, BT_TC_WRITE, 8, DEV, 1008, 4096, 0);
	assert_int_equal(f->got.n, 2);
	for (int k = 0; k < 2; k++) {
		assert_true(f->got.rq[k].flags & BT_RQ_SPLIT);
		assert_int_equal(f->got.rq[k].pid, 42);
		assert_int_equal(f->got.rq[k].q, 1 * US);
		assert_int_equal(f->got.rq[k].bytes, 4096);
	}
	assert_int_equal(f->got.rq[0].sector, 1000);
	assert_int_equal(f->got.rq[1].sector, 1008);
	fx_free(f);
}

static void test_tracker_split_remainder_queued_again(void **state)
{
	struct fx *f = fx_new(0, 0);
	int round;

	(void)state;
	/*
	 * Kernels that trace a Q for the rest of a split bio: the piece takes
	 * that Q as its own, and nothing is left behind to confuse the same
	 * pattern at the same sectors a second later.
	 */
	for (round = 0; round < 2; round++) {
		uint64_t t = round * 1000000;

		feed(f, BT_A_QUEUE, BT_TC_WRITE, t + 1, DEV, 4000, 8192, 97);
		feed_split(f, t + 2, DEV, 4000, 8192, 4008);
		feed(f, BT_A_GETRQ, BT_TC_WRITE, t + 3, DEV, 4000, 4096, 97);
		feed(f, BT_A_QUEUE, BT_TC_WRITE, t + 4, DEV, 4008, 4096, 97);
		feed(f, BT_A_GETRQ, BT_TC_WRITE, t + 5, DEV, 4008, 4096, 97);
		feed(f, BT_A_ISSUE, BT_TC_WRITE, t + 6, DEV, 4000, 4096, 97);
		feed(f, BT_A_ISSUE, BT_TC_WRITE, t + 7, DEV, 4008, 4096, 97);
		feed(f, BT_A_COMPLETE, BT_TC_WRITE, t + 8, DEV, 4008, 4096, 0);
		feed(f, BT_A_COMPLETE, BT_TC_WRITE, t + 9, DEV, 4000, 4096, 0);
	}
	assert_int_equal(f->got.n, 4);
	for (int k = 0; k < 4; k++) {
		const struct bt_request *rq = &f->got.rq[k];
		uint64_t t = (k / 2) * 1000000;

		assert_int_equal(rq->nbios, 1);
		assert_true(rq->flags & BT_RQ_SPLIT);
		if (rq->sector == 4008) {
			assert_int_equal(rq->q, (t + 4) * US);
			assert_int_equal(rq->qsplit, 0);
		} else {
			assert_int_equal(rq->q, (t + 1) * US);
			assert_int_equal(rq->qsplit, 1);
		}
		assert_true(rq->d - rq->q < 10 * US);
	}
	fx_free(f);
}

static void test_tracker_remap_analyses_bottom_device(void **state)
{
	struct fx *f = fx_new(0, 0);
	struct bt_tracker_stats st;
	const struct bt_request *rq;

	(void)state;
	/* dm: Q on 253,0, A to 8,0, Q on 8,0 (in a kworker), ..., C on both */
	feed(f, BT_A_QUEUE, BT_TC_READ, 1, DM, 50, 4096, 7);
	feed_remap(f, 2, DEV, 2098, 4096, DM, 50, 7);
	rq = feed(f, BT_A_QUEUE, BT_TC_READ, 3, DEV, 2098, 4096, 300);
	assert_non_null(rq);
	assert_int_equal(rq->pid, 7);
	feed(f, BT_A_GETRQ, BT_TC_READ, 4, DEV, 2098, 4096, 300);
	feed(f, BT_A_ISSUE, BT_TC_READ, 5, DEV, 2098, 4096, 300);
	feed(f, BT_A_COMPLETE, BT_TC_READ, 8, DEV, 2098, 4096, 0);
	assert_null(feed(f, BT_A_COMPLETE, BT_TC_READ, 9, DM, 50, 4096, 0));
	assert_int_equal(f->got.n, 1);
	rq = &f->got.rq[0];
	assert_int_equal(rq->dev, DEV);
	assert_int_equal(rq->sector, 2098);
	assert_int_equal(rq->origin_dev, DM);
	assert_int_equal(rq->origin_sector, 50);
	assert_true(rq->flags & BT_RQ_REMAPPED);
	assert_int_equal(rq->pid, 7);
	assert_int_equal(rq->q, 3 * US);
	bt_tracker_get_stats(f->tr, &st);
	assert_int_equal(st.remapped, 1);
	assert_int_equal(st.unmatched, 1);	/* dm's own bio completion */
	assert_int_equal(st.inflight, 0);

	/* partition: A before the only Q, as blk-mq kernels trace it */
	feed_remap(f, 20, DEV, 4096 + 8, 4096, PART, 8, 55);
	feed(f, BT_A_QUEUE, BT_TC_READ, 21, DEV, 4096 + 8, 4096, 55);
	feed(f, BT_A_GETRQ, BT_TC_READ, 22, DEV, 4096 + 8, 4096, 55);
	feed(f, BT_A_ISSUE, BT_TC_READ, 23, DEV, 4096 + 8, 4096, 55);
	feed(f, BT_A_COMPLETE, BT_TC_READ, 24, DEV, 4096 + 8, 4096, 0);
	assert_int_equal(f->got.n, 2);
	assert_int_equal(f->got.rq[1].origin_dev, PART);
	assert_int_equal(f->got.rq[1].origin_sector, 8);
	assert_int_equal(f->got.rq[1].pid, 55);
	fx_free(f);
}

static void test_tracker_flush_without_queue(void **state)
{
	struct fx *f = fx_new(0, 0);
	uint32_t fl = BT_TC_FLUSH;

	(void)state;
	/* two blk-flush flushes in flight at once, both at sector 0 */
	assert_non_null(feed(f, BT_A_ISSUE, fl, 1, DEV, 0, 0, 600));
	assert_non_null(feed(f, BT_A_ISSUE, fl, 2, DEV, 0, 0, 601));
	/* a data write at sector 0 in between is not a flush */
	feed(f, BT_A_QUEUE, BT_TC_WRITE, 3, DEV, 0, 4096, 9);
	feed(f, BT_A_GETRQ, BT_TC_WRITE, 3, DEV, 0, 4096, 9);
	feed(f, BT_A_ISSUE, BT_TC_WRITE, 4, DEV, 0, 4096, 9);
	feed(f, BT_A_COMPLETE, fl, 5, DEV, 0, 0, 0);
	feed(f, BT_A_COMPLETE, BT_TC_WRITE, 6, DEV, 0, 4096, 0);
	feed(f, BT_A_COMPLETE, fl, 7, DEV, 0, 0, 0);
	assert_int_equal(f->got.n, 3);
	assert_int_equal(f->got.rq[0].op, 'F');
	assert_string_equal(f->got.rq[0].rwbs, "FN");
	assert_true(f->got.rq[0].flags & BT_RQ_NOQ);
	assert_int_equal(f->got.rq[0].d, 1 * US);	/* oldest first */
	assert_int_equal(f->got.rq[0].q, BT_TIME_NONE);
	assert_int_equal(f->got.rq[0].nbios, 0);
	assert_int_equal(f->got.rq[1].op, 'W');
	assert_int_equal(f->got.rq[1].pid, 9);
	assert_int_equal(f->got.rq[2].op, 'F');
	assert_int_equal(f->got.rq[2].d, 2 * US);
	fx_free(f);
}

static void test_tracker_empty_preflush_is_not_the_flush(void **state)
{
	struct fx *f = fx_new(0, 0);
	uint32_t fws = BT_TC_WRITE | BT_TC_FLUSH | BT_TC_SYNC;
	struct bt_tracker_stats st;

	(void)state;
	/* fdatasync: empty preflush bio; blk-flush issues its own flush */
	feed(f, BT_A_QUEUE, fws, 1, DEV, 0, 0, 200);
	feed(f, BT_A_GETRQ, fws, 2, DEV, 0, 0, 200);
	feed(f, BT_A_ISSUE, BT_TC_FLUSH | BT_TC_READ, 3, DEV, 0, 0, 300);
	feed(f, BT_A_COMPLETE, BT_TC_FLUSH | BT_TC_READ, 50, DEV, 0, 0, 0);
	feed(f, BT_A_COMPLETE, fws, 51, DEV, 0, 0, 0);
	assert_int_equal(f->got.n, 2);
	assert_string_equal(f->got.rq[0].rwbs, "FN");
	assert_true(f->got.rq[0].flags & BT_RQ_NOQ);
	assert_int_equal(f->got.rq[0].d, 3 * US);
	assert_int_equal(f->got.rq[0].c, 50 * US);
	assert_string_equal(f->got.rq[1].rwbs, "FWS");
	assert_int_equal(f->got.rq[1].pid, 200);
	assert_int_equal(f->got.rq[1].q, 1 * US);
	assert_int_equal(f->got.rq[1].d, BT_TIME_NONE);
	assert_int_equal(f->got.rq[1].c, 51 * US);
	assert_int_equal(f->got.rq[1].op, 'F');
	bt_tracker_get_stats(f->tr, &st);
	assert_int_equal(st.unmatched, 0);
	fx_free(f);
}

static void test_tracker_direct_issue_without_insert(void **state)
{
	struct fx *f = fx_new(0, 0);

	(void)state;
	feed(f, BT_A_QUEUE, BT_TC_READ | BT_TC_SYNC, 1, DEV, 8, 512, 2);
	feed(f, BT_A_GETRQ, BT_TC_READ | BT_TC_SYNC, 2, DEV, 8, 512, 2);
	feed(f, BT_A_ISSUE, BT_TC_READ | BT_TC_SYNC, 3, DEV, 8, 512, 2);
	feed(f, BT_A_COMPLETE, BT_TC_READ | BT_TC_SYNC, 4, DEV, 8, 512, 0);
	assert_int_equal(f->got.n, 1);
	assert_true(f->got.rq[0].flags & BT_RQ_DIRECT);
	assert_int_equal(f->got.rq[0].i, BT_TIME_NONE);
	assert_string_equal(f->got.rq[0].rwbs, "RS");
	fx_free(f);
}

static void test_tracker_partial_completion(void **state)
{
	struct fx *f = fx_new(0, 0);
	const struct bt_request *rq;

	(void)state;
	feed(f, BT_A_QUEUE, BT_TC_READ, 1, DEV, 800, 16384, 2);
	feed(f, BT_A_GETRQ, BT_TC_READ, 2, DEV, 800, 16384, 2);
	feed(f, BT_A_INSERT, BT_TC_READ, 3, DEV, 800, 16384, 2);
	feed(f, BT_A_ISSUE, BT_TC_READ, 4, DEV, 800, 16384, 2);
	/* first 4 KiB, then the rest from further up */
	rq = feed(f, BT_A_COMPLETE, BT_TC_READ, 5, DEV, 800, 4096, 0);
	assert_non_null(rq);
	assert_int_equal(f->got.n, 0);
	feed(f, BT_A_COMPLETE, BT_TC_READ, 9, DEV, 808, 12288, 0);
	assert_int_equal(f->got.n, 1);
	assert_true(f->got.rq[0].flags & BT_RQ_PARTIAL);
	assert_int_equal(f->got.rq[0].sector, 800);
	assert_int_equal(f->got.rq[0].bytes, 16384);
	assert_int_equal(f->got.rq[0].c, 9 * US);
	fx_free(f);
}

static void test_tracker_never_completed_expires(void **state)
{
	struct fx *f = fx_new(1000 * US, 0);	/* 1 ms of trace time */
	struct bt_tracker_stats st;

	(void)state;
	feed(f, BT_A_QUEUE, BT_TC_WRITE, 0, DEV, 8, 4096, 1);
	feed(f, BT_A_GETRQ, BT_TC_WRITE, 1, DEV, 8, 4096, 1);
	feed(f, BT_A_ISSUE, BT_TC_WRITE, 2, DEV, 8, 4096, 1);	/* lost C */
	feed(f, BT_A_QUEUE, BT_TC_WRITE, 500, DEV, 64, 4096, 1);
	assert_int_equal(f->got.n, 0);
	feed(f, BT_A_QUEUE, BT_TC_WRITE, 1100, DEV, 128, 4096, 1);
	assert_int_equal(f->got.n, 1);
	assert_true(f->got.rq[0].flags & BT_RQ_EXPIRED);
	assert_int_equal(f->got.rq[0].sector, 8);
	bt_tracker_get_stats(f->tr, &st);
	assert_int_equal(st.expired, 1);
	assert_int_equal(st.inflight, 2);
	/* the late C finds nothing and is counted */
	assert_null(feed(f, BT_A_COMPLETE, BT_TC_WRITE, 1200, DEV, 8, 4096,
			 0));
	bt_tracker_flush(f->tr);
	bt_tracker_get_stats(f->tr, &st);
	assert_int_equal(st.unmatched, 1);
	assert_int_equal(st.open, 2);
	assert_int_equal(st.inflight, 0);
	assert_int_equal(f->got.n, 3);
	assert_true(f->got.rq[2].flags & BT_RQ_OPEN);
	fx_free(f);
}

/*
 * A request alone in flight, its events closer than the expiry but
 * spanning more, stays; one whose last event came earlier than the one
 * before it (another CPU's) expires from that event's time.
 */
static void test_tracker_lone_request_kept_by_its_events(void **state)
{
	struct fx *f = fx_new(1000 * US, 0);	/* 1 ms of trace time */

	(void)state;
	feed(f, BT_A_QUEUE, BT_TC_WRITE, 0, DEV, 8, 4096, 1);
	feed(f, BT_A_GETRQ, BT_TC_WRITE, 900, DEV, 8, 4096, 1);
	feed(f, BT_A_INSERT, BT_TC_WRITE, 1800, DEV, 8, 4096, 1);
	feed(f, BT_A_ISSUE, BT_TC_WRITE, 2700, DEV, 8, 4096, 1);
	assert_non_null(feed(f, BT_A_COMPLETE, BT_TC_WRITE, 3600, DEV, 8,
			     4096, 0));
	assert_int_equal(f->got.n, 1);
	assert_false(f->got.rq[0].flags & BT_RQ_EXPIRED);
	feed(f, BT_A_QUEUE, BT_TC_WRITE, 3700, DEV, 64, 4096, 1);
	feed(f, BT_A_GETRQ, BT_TC_WRITE, 3600, DEV, 64, 4096, 1);
	assert_int_equal(f->got.n, 1);
	feed(f, BT_A_QUEUE, BT_TC_WRITE, 4650, DEV, 128, 4096, 1);
	assert_int_equal(f->got.n, 2);
	assert_true(f->got.rq[1].flags & BT_RQ_EXPIRED);
	assert_int_equal(f->got.rq[1].sector, 64);
	fx_free(f);
}

static void test_tracker_full_table_evicts_oldest(void **state)
{
	struct fx *f = fx_new(0, 8);
	struct bt_tracker_stats st;
	uint64_t k;

	(void)state;
	for (k = 0; k < 20; k++)
		feed(f, BT_A_QUEUE, BT_TC_READ, k, DEV, k * 8, 4096, 1);
	bt_tracker_get_stats(f->tr, &st);
	assert_int_equal(st.evicted, 12);
	assert_int_equal(st.inflight, 8);
	assert_int_equal(st.peak, 8);
	assert_int_equal(f->got.n, 12);
	assert_int_equal(f->got.rq[0].sector, 0);	/* oldest went first */
	/* the survivors still complete */
	feed(f, BT_A_ISSUE, BT_TC_READ, 30, DEV, 19 * 8, 4096, 1);
	feed(f, BT_A_COMPLETE, BT_TC_READ, 31, DEV, 19 * 8, 4096, 0);
	assert_int_equal(f->got.n, 13);
	assert_int_equal(f->got.rq[12].flags & BT_RQ_EXPIRED, 0);
	fx_free(f);
}

static void test_tracker_memory_bounded_by_inflight(void **state)
{
	struct fx *f = fx_new(0, 0);
	struct bt_tracker_stats st;
	uint64_t k, t = 0;

	(void)state;
	/* 100000 requests, 4 in flight at a time, sectors reused often */
	for (k = 0; k < 100000; k++) {
		uint64_t s = (k % 64) * 8;

		feed(f, BT_A_QUEUE, BT_TC_READ, ++t, DEV, s, 4096, 1);
		feed(f, BT_A_GETRQ, BT_TC_READ, ++t, DEV, s, 4096, 1);
		feed(f, BT_A_ISSUE, BT_TC_READ, ++t, DEV, s, 4096, 1);
		if (k >= 3) {
			uint64_t o = ((k - 3) % 64) * 8;

			feed(f, BT_A_COMPLETE, BT_TC_READ, ++t, DEV, o, 4096, 0);
		}
	}
	bt_tracker_get_stats(f->tr, &st);
	assert_int_equal(st.completed, 100000 - 3);
	assert_int_equal(st.inflight, 3);
	assert_true(st.peak <= 4);
	assert_int_equal(st.unmatched, 0);
	fx_free(f);
}

static void test_tracker_index_grows_with_inflight(void **state)
{
	struct fx *f = fx_new(0, 0);
	struct bt_tracker_stats st;
	const uint64_t n = 5000;

	(void)state;
	/* 5000 requests in flight at once: the indexes double several times */
	for (uint64_t k = 0; k < n; k++) {
		feed(f, BT_A_QUEUE, BT_TC_READ, 3 * k, DEV, k * 8, 4096, 1);
		feed(f, BT_A_GETRQ, BT_TC_READ, 3 * k + 1, DEV, k * 8, 4096, 1);
		feed(f, BT_A_ISSUE, BT_TC_READ, 3 * k + 2, DEV, k * 8, 4096, 1);
	}
	bt_tracker_get_stats(f->tr, &st);
	assert_int_equal(st.inflight, n);
	for (uint64_t k = n; k-- > 0;)
		assert_non_null(feed(f, BT_A_COMPLETE, BT_TC_READ, 3 * n + k,
				     DEV, k * 8, 4096, 0));
	bt_tracker_get_stats(f->tr, &st);
	assert_int_equal(st.completed, n);
	assert_int_equal(st.inflight, 0);
	assert_int_equal(st.unmatched + st.evicted + st.expired, 0);
	fx_free(f);
}

static void test_tracker_keys_survive_churn(void **state)
{
	struct fx *f = fx_new(0, 64);	/* 128 slots: long probe chains */
	struct bt_tracker_stats st;
	uint64_t t = 0, s[8], done = 0;
	const unsigned k = 8;

	(void)state;
	/*
	 * Front merges and partial completions move a request's start while
	 * it is in the table; k requests in flight on a few sectors collide
	 * and complete out of order, so deletions shift entries around.
	 */
	rng = 1;
	for (unsigned r = 0; r < 4000; r++) {
		for (unsigned j = 0; j < k; j++) {
			s[j] = (rnd() % 64) * 16 + 2048 * j;
			feed(f, BT_A_QUEUE, BT_TC_WRITE, ++t, DEV, s[j] + 8, 4096, 1);
			feed(f, BT_A_GETRQ, BT_TC_WRITE, ++t, DEV, s[j] + 8, 4096, 1);
			feed(f, BT_A_QUEUE, BT_TC_WRITE, ++t, DEV, s[j], 4096, 1);
			feed(f, BT_A_FRONTMERGE, BT_TC_WRITE, ++t, DEV, s[j], 4096, 1);
			feed(f, BT_A_INSERT, BT_TC_WRITE, ++t, DEV, s[j], 8192, 1);
			feed(f, BT_A_ISSUE, BT_TC_WRITE, ++t, DEV, s[j], 8192, 1);
		}
		for (unsigned j = 0; j < k; j++) {
			unsigned x = (j + r) % k;

			feed(f, BT_A_COMPLETE, BT_TC_WRITE, ++t, DEV, s[x], 4096, 0);
		}
		for (unsigned j = 0; j < k; j++) {
			unsigned x = (j * 3 + r) % k;

			assert_non_null(feed(f, BT_A_COMPLETE, BT_TC_WRITE, ++t,
					     DEV, s[x] + 8, 4096, 0));
			done++;
		}
	}
	bt_tracker_get_stats(f->tr, &st);
	assert_int_equal(st.completed, done);
	assert_int_equal(st.unmatched, 0);
	assert_int_equal(st.inflight, 0);
	assert_int_equal(st.evicted, 0);
	fx_free(f);
}

static void test_tracker_random_events_stay_bounded(void **state)
{
	static const uint32_t acts[] = {
		BT_A_QUEUE, BT_A_BACKMERGE, BT_A_FRONTMERGE, BT_A_GETRQ,
		BT_A_INSERT, BT_A_ISSUE, BT_A_COMPLETE, BT_A_REQUEUE,
		BT_A_SPLIT, BT_A_REMAP, BT_A_PLUG,
	};
	struct fx *f = fx_new(500 * US, 32);
	struct bt_tracker_stats st;
	unsigned char pdu[16];

	(void)state;
	/* Garbage in any order: never a crash, never more than the capacity. */
	rng = 7;
	for (unsigned k = 0; k < 200000; k++) {
		uint64_t r = rnd();
		struct bt_event e = mk(acts[r % 11], (uint32_t)(r >> 8) & 0xffff,
				       k, r & (1 << 20) ? DM : DEV,
				       (r >> 24) % 64 * 8, (uint32_t)((r >> 32) % 4) * 4096,
				       (uint32_t)(r >> 40) % 5);

		put_be(pdu, (r >> 13) % 600, 4);
		put_be(pdu + 4, DEV, 4);
		put_be(pdu + 8, (r >> 17) % 600, 8);
		e.pdu = pdu;
		e.pdu_len = (r >> 50) % 2 ? 16 : 3;	/* short pdus too */
		assert_true(bt_tracker_feed(f->tr, &e, NULL) >= 0);
		bt_tracker_get_stats(f->tr, &st);
		assert_true(st.inflight <= 32);
	}
	bt_tracker_flush(f->tr);
	bt_tracker_get_stats(f->tr, &st);
	assert_int_equal(st.inflight, 0);
	assert_true(st.completed > 0);
	fx_free(f);
}

static void test_tracker_cgroup_events_like_others(void **state)
{
	struct fx *f = fx_new(0, 0);
	static const uint32_t act[] = { BT_A_QUEUE, BT_A_GETRQ, BT_A_INSERT,
					BT_A_ISSUE, BT_A_COMPLETE };

	(void)state;
	for (unsigned k = 0; k < 5; k++) {
		struct bt_event e = mk(act[k], BT_TC_WRITE | BT_TC_SYNC, k + 1,
				       DEV, 512, 4096, k < 3 ? 77 : 0);

		e.has_cgroup = 1;
		e.cgroup = 0x1234;
		assert_int_equal(bt_tracker_feed(f->tr, &e, NULL), 1);
	}
	assert_int_equal(f->got.n, 1);
	assert_int_equal(f->got.rq[0].pid, 77);
	assert_int_equal(f->got.rq[0].cgroup, 0x1234);
	assert_int_equal(f->got.rq[0].flags, 0);
	fx_free(f);
}

/* Q, G and I of one bio at sector s, from t_us on. */
static void feed_qgi(struct fx *f, uint32_t cat, uint64_t t_us, uint64_t s,
		     uint32_t bytes, uint32_t pid)
{
	feed(f, BT_A_QUEUE, cat, t_us, DEV, s, bytes, pid);
	feed(f, BT_A_GETRQ, cat, t_us + 1, DEV, s, bytes, pid);
	feed(f, BT_A_INSERT, cat, t_us + 2, DEV, s, bytes, pid);
}

/*
 * A read inserted at S whose D and C were lost, then 17 s later a write
 * at S with its own Q, G, I, D and C: the write's times are its own, and
 * the read is given up (replaced), never completed by the write's C.
 */
static void test_tracker_lost_read_never_pairs_with_write(void **state)
{
	struct fx *f = fx_new(0, 0);
	struct bt_tracker_stats st;
	const uint64_t later = 17000000;	/* us */

	(void)state;
	feed_qgi(f, BT_TC_READ, 10, 5000, 40960, 7);
	feed_qgi(f, BT_TC_WRITE | BT_TC_META, later, 5000, 4096, 8);
	assert_int_equal(f->got.n, 1);		/* the read, given up */
	assert_int_equal(f->got.rq[0].op, 'R');
	assert_int_equal(f->got.rq[0].q, 10 * US);
	assert_true(f->got.rq[0].flags & BT_RQ_EXPIRED);
	feed(f, BT_A_ISSUE, BT_TC_WRITE | BT_TC_META, later + 50, DEV, 5000,
	     4096, 300);
	feed(f, BT_A_COMPLETE, BT_TC_WRITE | BT_TC_META, later + 850, DEV,
	     5000, 4096, 0);
	assert_int_equal(f->got.n, 2);
	assert_int_equal(f->got.rq[1].op, 'W');
	assert_int_equal(f->got.rq[1].pid, 8);
	assert_int_equal(f->got.rq[1].q, later * US);
	assert_int_equal(f->got.rq[1].i, (later + 2) * US);
	assert_int_equal(f->got.rq[1].d, (later + 50) * US);
	bt_tracker_get_stats(f->tr, &st);
	assert_int_equal(st.completed, 1);
	assert_int_equal(st.replaced, 1);
	assert_int_equal(st.expired, 0);
	assert_int_equal(st.inflight, 0);
	fx_free(f);
}

/* Within the stale bound nothing is replaced: direction alone decides. */
static void test_tracker_dispatch_keeps_direction(void **state)
{
	struct fx *f = fx_new(0, 0);
	struct bt_tracker_stats st;

	(void)state;
	feed_qgi(f, BT_TC_READ, 10, 5000, 4096, 7);
	feed_qgi(f, BT_TC_WRITE, 20, 5000, 4096, 8);
	/* the write goes first: the older read must not take its D or C */
	feed(f, BT_A_ISSUE, BT_TC_WRITE, 30, DEV, 5000, 4096, 300);
	feed(f, BT_A_COMPLETE, BT_TC_WRITE, 40, DEV, 5000, 4096, 0);
	feed(f, BT_A_ISSUE, BT_TC_READ, 50, DEV, 5000, 4096, 300);
	feed(f, BT_A_COMPLETE, BT_TC_READ, 60, DEV, 5000, 4096, 0);
	assert_int_equal(f->got.n, 2);
	assert_int_equal(f->got.rq[0].op, 'W');
	assert_int_equal(f->got.rq[0].q, 20 * US);
	assert_int_equal(f->got.rq[1].op, 'R');
	assert_int_equal(f->got.rq[1].q, 10 * US);
	assert_int_equal(f->got.rq[1].d, 50 * US);
	bt_tracker_get_stats(f->tr, &st);
	assert_int_equal(st.replaced, 0);
	assert_int_equal(st.unmatched, 0);
	fx_free(f);
}

/*
 * Two reads at one sector: the D of 8 sectors is the small one's even
 * though the large one is older; two of the same size go first in, first
 * out, and close together neither is replaced.
 */
static void test_tracker_dispatch_prefers_its_size(void **state)
{
	struct fx *f = fx_new(0, 0);
	struct bt_tracker_stats st;

	(void)state;
	feed_qgi(f, BT_TC_READ, 10, 6000, 40960, 7);
	feed_qgi(f, BT_TC_READ, 20, 6000, 4096, 8);
	feed(f, BT_A_ISSUE, BT_TC_READ, 30, DEV, 6000, 4096, 300);
	feed(f, BT_A_COMPLETE, BT_TC_READ, 40, DEV, 6000, 4096, 0);
	assert_int_equal(f->got.n, 1);
	assert_int_equal(f->got.rq[0].pid, 8);
	assert_int_equal(f->got.rq[0].q, 20 * US);
	feed_qgi(f, BT_TC_READ, 100, 7000, 4096, 1);
	feed_qgi(f, BT_TC_READ, 110, 7000, 4096, 2);
	feed(f, BT_A_ISSUE, BT_TC_READ, 120, DEV, 7000, 4096, 300);
	feed(f, BT_A_ISSUE, BT_TC_READ, 121, DEV, 7000, 4096, 300);
	feed(f, BT_A_COMPLETE, BT_TC_READ, 130, DEV, 7000, 4096, 0);
	feed(f, BT_A_COMPLETE, BT_TC_READ, 131, DEV, 7000, 4096, 0);
	assert_int_equal(f->got.n, 3);
	assert_int_equal(f->got.rq[1].pid, 1);
	assert_int_equal(f->got.rq[1].d, 120 * US);
	assert_int_equal(f->got.rq[2].pid, 2);
	assert_int_equal(f->got.rq[2].d, 121 * US);
	bt_tracker_get_stats(f->tr, &st);
	assert_int_equal(st.replaced, 0);
	fx_free(f);
}

/* Same direction and size, 17 s apart: the old one lost its D and C. */
static void test_tracker_stale_request_replaced(void **state)
{
	struct fx *f = fx_new(0, 0);
	struct bt_tracker_stats st;
	const uint64_t later = 17000000;	/* us */

	(void)state;
	feed_qgi(f, BT_TC_READ, 10, 8000, 4096, 7);
	feed(f, BT_A_QUEUE, BT_TC_READ, later, DEV, 8000, 4096, 8);
	assert_int_equal(f->got.n, 0);		/* a Q alone replaces nothing */
	feed(f, BT_A_GETRQ, BT_TC_READ, later + 1, DEV, 8000, 4096, 8);
	assert_int_equal(f->got.n, 1);
	assert_int_equal(f->got.rq[0].pid, 7);
	assert_true(f->got.rq[0].flags & BT_RQ_EXPIRED);
	feed(f, BT_A_INSERT, BT_TC_READ, later + 2, DEV, 8000, 4096, 8);
	feed(f, BT_A_ISSUE, BT_TC_READ, later + 30, DEV, 8000, 4096, 300);
	feed(f, BT_A_COMPLETE, BT_TC_READ, later + 330, DEV, 8000, 4096, 0);
	assert_int_equal(f->got.n, 2);
	assert_int_equal(f->got.rq[1].pid, 8);
	assert_int_equal(f->got.rq[1].q, later * US);
	bt_tracker_get_stats(f->tr, &st);
	assert_int_equal(st.replaced, 1);
	fx_free(f);
}

/* Merges, completions and requeues never cross direction either. */
/* Several stale requests at one sector are given up oldest (first made) first. */
static void test_tracker_stale_requests_replaced_oldest_first(void **state)
{
	struct fx *f = fx_new(0, 0);
	struct bt_tracker_stats st;
	const uint64_t later = 17000000;	/* us */

	(void)state;
	feed_qgi(f, BT_TC_READ, 10, 9000, 4096, 1);
	feed_qgi(f, BT_TC_READ, 20, 9000, 4096, 2);
	feed_qgi(f, BT_TC_READ, 30, 9000, 4096, 3);
	assert_int_equal(f->got.n, 0);
	feed(f, BT_A_QUEUE, BT_TC_READ, later, DEV, 9000, 4096, 4);
	feed(f, BT_A_GETRQ, BT_TC_READ, later + 1, DEV, 9000, 4096, 4);
	assert_int_equal(f->got.n, 3);
	assert_int_equal(f->got.rq[0].pid, 1);
	assert_int_equal(f->got.rq[1].pid, 2);
	assert_int_equal(f->got.rq[2].pid, 3);
	for (int i = 0; i < 3; i++)
		assert_true(f->got.rq[i].flags & BT_RQ_EXPIRED);
	bt_tracker_get_stats(f->tr, &st);
	assert_int_equal(st.replaced, 3);
	assert_int_equal(st.inflight, 1);
	fx_free(f);
}

static void test_tracker_merge_and_complete_keep_direction(void **state)
{
	struct fx *f = fx_new(0, 0);
	struct bt_tracker_stats st;

	(void)state;
	feed(f, BT_A_QUEUE, BT_TC_READ, 1, DEV, 100, 4096, 5);
	feed(f, BT_A_GETRQ, BT_TC_READ, 2, DEV, 100, 4096, 5);
	/* a write bio ending where the read starts, and one at its end */
	feed(f, BT_A_QUEUE, BT_TC_WRITE, 3, DEV, 108, 4096, 6);
	assert_null(feed(f, BT_A_BACKMERGE, BT_TC_WRITE, 4, DEV, 108, 4096,
			 6));
	feed(f, BT_A_QUEUE, BT_TC_WRITE, 5, DEV, 92, 4096, 6);
	assert_null(feed(f, BT_A_FRONTMERGE, BT_TC_WRITE, 6, DEV, 92, 4096,
			 6));
	feed(f, BT_A_ISSUE, BT_TC_READ, 10, DEV, 100, 4096, 300);
	assert_null(feed(f, BT_A_REQUEUE, BT_TC_WRITE, 11, DEV, 100, 4096, 0));
	assert_null(feed(f, BT_A_COMPLETE, BT_TC_WRITE, 12, DEV, 100, 4096,
			 0));
	assert_int_equal(f->got.n, 0);
	feed(f, BT_A_COMPLETE, BT_TC_READ, 13, DEV, 100, 4096, 0);
	assert_int_equal(f->got.n, 1);
	assert_int_equal(f->got.rq[0].bytes, 4096);
	assert_int_equal(f->got.rq[0].nbios, 1);
	assert_int_equal(f->got.rq[0].nrequeue, 0);
	bt_tracker_get_stats(f->tr, &st);
	assert_int_equal(st.unmatched, 4);
	fx_free(f);
}

/*
 * Merge times: each merged bio with a Q seen is listed with its M or F
 * time and summed from q; the bio front-merged last before the I is the
 * one the I is timed on, so it leaves the merge list (its q2m stays: the
 * M just fed exposes its bio's Q in merged_q); past BT_RQ_QLIST merges
 * only the sum grows.
 */
static void test_tracker_merge_times_kept(void **state)
{
	struct fx *f = fx_new(0, 0);
	const struct bt_request *rq;

	(void)state;
	feed(f, BT_A_QUEUE, BT_TC_WRITE, 10, DEV, 116, 4096, 5);
	feed(f, BT_A_GETRQ, BT_TC_WRITE, 11, DEV, 116, 4096, 5);
	feed(f, BT_A_QUEUE, BT_TC_WRITE, 12, DEV, 108, 4096, 5);
	rq = feed(f, BT_A_FRONTMERGE, BT_TC_WRITE, 14, DEV, 108, 4096, 5);
	assert_int_equal(rq->merged_q, 12 * US);
	feed(f, BT_A_QUEUE, BT_TC_WRITE, 15, DEV, 100, 4096, 5);
	rq = feed(f, BT_A_FRONTMERGE, BT_TC_WRITE, 18, DEV, 100, 4096, 5);
	assert_int_equal(rq->merged_q, 15 * US);
	assert_int_equal(rq->nmerged, 2);
	assert_int_equal(rq->m_off_sum, (4 + 8) * US);
	rq = feed(f, BT_A_INSERT, BT_TC_WRITE, 20, DEV, 100, 12288, 5);
	/* the I is timed on the bio at 100: it leaves the merges */
	assert_int_equal(rq->nmerged, 1);
	assert_int_equal(rq->nmlist, 2);
	assert_int_equal(rq->mlist[0], 14 * US);
	assert_true(rq->mlist[1] == BT_TIME_NONE);
	assert_int_equal(rq->m_off_sum, 4 * US);
	/* back merges after the I, ten of them: the list holds eight */
	for (uint64_t k = 0; k < 10; k++) {
		feed(f, BT_A_QUEUE, BT_TC_WRITE, 30 + 2 * k, DEV, 124 + 8 * k,
		     4096, 5);
		rq = feed(f, BT_A_BACKMERGE, BT_TC_WRITE, 31 + 2 * k, DEV,
			  124 + 8 * k, 4096, 5);
	}
	assert_int_equal(rq->nmerged, 11);
	assert_int_equal(rq->nmlist, BT_RQ_QLIST);
	assert_int_equal(rq->mlist[7], (31 + 2 * 5) * US);
	/* 4 + (21 + 23 + ... + 39) us from q */
	assert_int_equal(rq->m_off_sum, (4 + 300) * US);
	/* a merge of a bio whose Q was not seen: not timed */
	rq = feed(f, BT_A_BACKMERGE, BT_TC_WRITE, 60, DEV, 204, 4096, 5);
	assert_true(rq->merged_q == BT_TIME_NONE);	/* its Q not seen */
	assert_int_equal(rq->nmerged, 11);
	fx_free(f);
}

/*
 * A bio's Q is usually followed at once by its own M or G, but other
 * events may come between, or an M of the other direction at the same
 * sector, or so long a pause that the bio expires first: the bio must be
 * found, kept or given up exactly as when its M comes next.  So must a
 * remap's mark when its Q comes, and many bios queued at once.
 */
static void test_tracker_queued_bio_found_after_other_events(void **state)
{
	struct fx *f = fx_new(0, 0);
	const struct bt_request *rq;

	(void)state;
	feed(f, BT_A_QUEUE, BT_TC_WRITE, 1, DEV, 0, 4096, 5);
	feed(f, BT_A_GETRQ, BT_TC_WRITE, 2, DEV, 0, 4096, 5);
	feed(f, BT_A_QUEUE, BT_TC_WRITE, 3, DEV, 8, 4096, 6);
	/* an event of another request between the bio's Q and its M */
	feed(f, BT_A_INSERT, BT_TC_WRITE, 4, DEV, 0, 4096, 5);
	rq = feed(f, BT_A_BACKMERGE, BT_TC_WRITE, 5, DEV, 8, 4096, 6);
	assert_non_null(rq);
	assert_int_equal(rq->nbios, 2);
	assert_true(rq->merged_q == 3 * US);
	/* a read bio, then a write merging at its sector: not the read's */
	feed(f, BT_A_QUEUE, BT_TC_READ, 6, DEV, 16, 4096, 7);
	rq = feed(f, BT_A_BACKMERGE, BT_TC_WRITE, 7, DEV, 16, 4096, 5);
	assert_non_null(rq);
	assert_true(rq->merged_q == BT_TIME_NONE);
	assert_int_equal(rq->nbios, 2);
	rq = feed(f, BT_A_GETRQ, BT_TC_READ, 8, DEV, 16, 4096, 7);
	assert_int_equal(rq->q, 6 * US);
	assert_false(rq->flags & BT_RQ_NOQ);
	feed(f, BT_A_ISSUE, BT_TC_WRITE, 9, DEV, 0, 12288, 5);
	feed(f, BT_A_COMPLETE, BT_TC_WRITE, 10, DEV, 0, 12288, 0);
	feed(f, BT_A_ISSUE, BT_TC_READ, 11, DEV, 16, 4096, 7);
	feed(f, BT_A_COMPLETE, BT_TC_READ, 12, DEV, 16, 4096, 0);
	assert_int_equal(f->got.n, 2);
	assert_int_equal(f->got.rq[0].bytes, 12288);
	assert_int_equal(f->got.rq[0].pid, 5);
	assert_int_equal(f->got.rq[1].pid, 7);
	assert_int_equal(f->got.rq[1].q, 6 * US);
	fx_free(f);

	/* a remap's mark is taken by a Q of its own direction only */
	f = fx_new(0, 0);
	feed_remap(f, 1, DEV, 800, 4096, PART, 8, 55);
	feed(f, BT_A_QUEUE, BT_TC_WRITE, 2, DEV, 800, 4096, 9);
	feed(f, BT_A_GETRQ, BT_TC_WRITE, 3, DEV, 800, 4096, 9);
	rq = feed(f, BT_A_QUEUE, BT_TC_READ, 4, DEV, 800, 4096, 300);
	assert_true(rq->flags & BT_RQ_REMAPPED);
	assert_int_equal(rq->pid, 55);
	feed(f, BT_A_GETRQ, BT_TC_READ, 5, DEV, 800, 4096, 300);
	feed(f, BT_A_ISSUE, BT_TC_WRITE, 6, DEV, 800, 4096, 9);
	feed(f, BT_A_COMPLETE, BT_TC_WRITE, 7, DEV, 800, 4096, 0);
	feed(f, BT_A_ISSUE, BT_TC_READ, 8, DEV, 800, 4096, 300);
	feed(f, BT_A_COMPLETE, BT_TC_READ, 9, DEV, 800, 4096, 0);
	assert_int_equal(f->got.n, 2);
	assert_false(f->got.rq[0].flags & BT_RQ_REMAPPED);
	assert_int_equal(f->got.rq[0].pid, 9);
	assert_int_equal(f->got.rq[1].origin_sector, 8);
	assert_int_equal(f->got.rq[1].q, 4 * US);
	fx_free(f);

	/* many bios queued before their merges, each still found */
	f = fx_new(0, 0);
	feed(f, BT_A_QUEUE, BT_TC_READ, 1, DEV, 0, 4096, 5);
	feed(f, BT_A_GETRQ, BT_TC_READ, 2, DEV, 0, 4096, 5);
	for (uint64_t k = 1; k <= 10; k++)
		feed(f, BT_A_QUEUE, BT_TC_READ, 2 + k, DEV, 8 * k, 4096, 5);
	for (uint64_t k = 1; k <= 10; k++) {
		rq = feed(f, BT_A_BACKMERGE, BT_TC_READ, 20 + k, DEV, 8 * k,
			  4096, 5);
		assert_true(rq->merged_q == (2 + k) * US);
	}
	assert_int_equal(rq->nbios, 11);
	fx_free(f);

	/* expired before its M: handed over as such, the M finds nothing */
	f = fx_new(10 * US, 0);
	feed(f, BT_A_QUEUE, BT_TC_WRITE, 1, DEV, 8, 4096, 6);
	assert_null(feed(f, BT_A_BACKMERGE, BT_TC_WRITE, 100, DEV, 8, 4096,
			 6));
	assert_int_equal(f->got.n, 1);
	assert_true(f->got.rq[0].flags & BT_RQ_EXPIRED);
	assert_int_equal(f->got.rq[0].state, BT_RQS_DONE);
	fx_free(f);
}

/* Every request's rwbs is bt_event_rwbs()'s, whatever came before. */
static void test_tracker_rwbs_as_event_says(void **state)
{
	static const uint32_t cat[] = {
		BT_TC_READ, BT_TC_WRITE, BT_TC_WRITE | BT_TC_SYNC,
		BT_TC_READ | BT_TC_AHEAD, BT_TC_WRITE | BT_TC_FUA,
		BT_TC_FLUSH | BT_TC_WRITE | BT_TC_SYNC, BT_TC_DISCARD,
		BT_TC_WRITE | BT_TC_META | BT_TC_SYNC, BT_TC_FLUSH,
		BT_TC_READ | BT_TC_SYNC | BT_TC_META,
	};
	struct fx *f = fx_new(0, 0);

	(void)state;
	for (uint64_t k = 0; k < 200; k++) {
		uint32_t c = cat[rnd() % (sizeof(cat) / sizeof(cat[0]))];
		uint32_t bytes = rnd() % 3 ? 4096 : 0;
		struct bt_event e = mk(BT_A_QUEUE, c, k, DEV, 8 * k, bytes, 5);
		const struct bt_request *rq;
		char want[BT_RWBS_LEN];

		assert_int_equal(bt_tracker_feed(f->tr, &e, &rq), 1);
		assert_string_equal(rq->rwbs, bt_event_rwbs(&e, want));
		e.action = BT_A_ISSUE;
		e.category = cat[rnd() % (sizeof(cat) / sizeof(cat[0]))];
		assert_int_equal(bt_tracker_feed(f->tr, &e, &rq), 1);
		assert_string_equal(rq->rwbs, bt_event_rwbs(&e, want));
	}
	fx_free(f);
}

/*
 * The op a hook sees is the request's current one: it follows the bytes
 * a merge adds, the category the D brings and the pieces of a split.
 */
static void test_tracker_op_follows_merges_and_dispatch(void **state)
{
	struct fx *f = fx_new(0, 0);
	const struct bt_request *rq;

	(void)state;
	rq = feed(f, BT_A_QUEUE, BT_TC_WRITE | BT_TC_FLUSH, 1, DEV, 64, 0, 5);
	assert_int_equal(rq->op, 'F');
	rq = feed(f, BT_A_GETRQ, BT_TC_WRITE | BT_TC_FLUSH, 2, DEV, 64, 0, 5);
	assert_int_equal(rq->op, 'F');
	feed(f, BT_A_QUEUE, BT_TC_WRITE | BT_TC_FLUSH, 3, DEV, 64, 4096, 5);
	rq = feed(f, BT_A_BACKMERGE, BT_TC_WRITE | BT_TC_FLUSH, 4, DEV, 64,
		  4096, 5);
	assert_non_null(rq);
	assert_int_equal(rq->bytes, 4096);
	assert_int_equal(rq->op, 'W');
	rq = feed(f, BT_A_ISSUE, BT_TC_DISCARD, 5, DEV, 64, 4096, 5);
	assert_int_equal(rq->op, 'D');
	/* a split: both pieces keep data, so both stay writes */
	rq = feed(f, BT_A_QUEUE, BT_TC_WRITE, 6, DEV, 200, 8192, 6);
	assert_int_equal(rq->op, 'W');
	feed_split(f, 7, DEV, 200, 8192, 204);
	rq = feed(f, BT_A_GETRQ, BT_TC_WRITE, 8, DEV, 200, 2048, 6);
	assert_int_equal(rq->bytes, 2048);
	assert_int_equal(rq->op, 'W');
	rq = feed(f, BT_A_GETRQ, BT_TC_WRITE, 9, DEV, 204, 6144, 6);
	assert_int_equal(rq->bytes, 6144);
	assert_int_equal(rq->op, 'W');
	fx_free(f);
}

static void test_tracker_ignores_notes_and_bad_args(void **state)
{
	struct fx *f = fx_new(0, 0);
	struct bt_event e = mk(BT_N_PROCESS, BT_TC_NOTIFY, 1, DEV, 0, 0, 5);
	struct bt_tracker *tr;
	const struct bt_request *rq = (const void *)&e;

	(void)state;
	assert_int_equal(bt_tracker_feed(f->tr, &e, &rq), 0);
	assert_null(rq);
	assert_int_equal(bt_tracker_feed(NULL, &e, NULL), -EINVAL);
	assert_int_equal(bt_tracker_feed(f->tr, NULL, NULL), -EINVAL);
	assert_int_equal(bt_tracker_new(NULL, NULL), -EINVAL);
	assert_int_equal(bt_tracker_new(&tr, NULL), 0);
	bt_tracker_flush(tr);
	bt_tracker_free(tr);
	bt_tracker_free(NULL);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracker_owner_is_first_queue),
		cmocka_unit_test(test_tracker_back_merge_moves_end_key),
		cmocka_unit_test(test_tracker_back_merge_shared_end),
		cmocka_unit_test(test_tracker_back_merges_round_many_requests),
		cmocka_unit_test(test_tracker_front_merge_moves_start),
		cmocka_unit_test(test_tracker_requeue_goes_round_again),
		cmocka_unit_test(test_tracker_split_makes_two_requests),
		cmocka_unit_test(test_tracker_split_remainder_queued_again),
		cmocka_unit_test(test_tracker_remap_analyses_bottom_device),
		cmocka_unit_test(test_tracker_flush_without_queue),
		cmocka_unit_test(test_tracker_empty_preflush_is_not_the_flush),
		cmocka_unit_test(test_tracker_direct_issue_without_insert),
		cmocka_unit_test(test_tracker_partial_completion),
		cmocka_unit_test(test_tracker_never_completed_expires),
		cmocka_unit_test(test_tracker_lone_request_kept_by_its_events),
		cmocka_unit_test(test_tracker_full_table_evicts_oldest),
		cmocka_unit_test(test_tracker_memory_bounded_by_inflight),
		cmocka_unit_test(test_tracker_index_grows_with_inflight),
		cmocka_unit_test(test_tracker_keys_survive_churn),
		cmocka_unit_test(test_tracker_random_events_stay_bounded),
		cmocka_unit_test(test_tracker_cgroup_events_like_others),
		cmocka_unit_test(test_tracker_lost_read_never_pairs_with_write),
		cmocka_unit_test(test_tracker_dispatch_keeps_direction),
		cmocka_unit_test(test_tracker_dispatch_prefers_its_size),
		cmocka_unit_test(test_tracker_stale_request_replaced),
		cmocka_unit_test(test_tracker_stale_requests_replaced_oldest_first),
		cmocka_unit_test(test_tracker_merge_and_complete_keep_direction),
		cmocka_unit_test(test_tracker_merge_times_kept),
		cmocka_unit_test(test_tracker_queued_bio_found_after_other_events),
		cmocka_unit_test(test_tracker_rwbs_as_event_says),
		cmocka_unit_test(test_tracker_op_follows_merges_and_dispatch),
		cmocka_unit_test(test_tracker_ignores_notes_and_bad_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
