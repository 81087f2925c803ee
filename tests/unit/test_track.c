// SPDX-License-Identifier: MIT
/*
 * test_track.c - the request tracker on hand-built event sequences: back
 * and front merges, requeue, split, remap (dm and partition), blk-flush
 * flushes without Q, direct issue, partial completions, cgroup-flagged
 * events, the times and strings a request carries.  Each case feeds
 * struct bt_event values directly, so the sequence under test reads top
 * to bottom in the test.  What happens when events are lost or too many
 * is test_track_limits.c.
 */
#include "track_fixture.h"

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
		cmocka_unit_test(test_tracker_cgroup_events_like_others),
		cmocka_unit_test(test_tracker_merge_times_kept),
		cmocka_unit_test(test_tracker_queued_bio_found_after_other_events),
		cmocka_unit_test(test_tracker_rwbs_as_event_says),
		cmocka_unit_test(test_tracker_op_follows_merges_and_dispatch),
		cmocka_unit_test(test_tracker_ignores_notes_and_bad_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
