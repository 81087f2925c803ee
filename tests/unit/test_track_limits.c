// SPDX-License-Identifier: MIT
/*
 * test_track_limits.c - the request tracker when events are missing or
 * too many: requests that never complete expire, a full table evicts the
 * oldest, memory stays bounded by what is in flight, a request whose D
 * or C was lost never takes another's of the other direction or size,
 * and a stale one is replaced.  Hand-built sequences, as test_track.c.
 */
#include "track_fixture.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracker_never_completed_expires),
		cmocka_unit_test(test_tracker_lone_request_kept_by_its_events),
		cmocka_unit_test(test_tracker_full_table_evicts_oldest),
		cmocka_unit_test(test_tracker_memory_bounded_by_inflight),
		cmocka_unit_test(test_tracker_index_grows_with_inflight),
		cmocka_unit_test(test_tracker_keys_survive_churn),
		cmocka_unit_test(test_tracker_random_events_stay_bounded),
		cmocka_unit_test(test_tracker_lost_read_never_pairs_with_write),
		cmocka_unit_test(test_tracker_dispatch_keeps_direction),
		cmocka_unit_test(test_tracker_dispatch_prefers_its_size),
		cmocka_unit_test(test_tracker_stale_request_replaced),
		cmocka_unit_test(test_tracker_stale_requests_replaced_oldest_first),
		cmocka_unit_test(test_tracker_merge_and_complete_keep_direction),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
