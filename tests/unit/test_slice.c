// SPDX-License-Identifier: MIT
/*
 * test_slice.c - slice waits on hand-built sequences.  A tiny stand-in for
 * the tracker hands bt_slice_feed() the request each event touched, so the
 * episode logic is tested alone: events only (insert or get to dispatch,
 * tau, foreign bytes, device idle, censoring) and scheduler messages (CFQ
 * add_to_rr to set_active, waits after an expired slice, del_from_rr,
 * BFQ injection ending a wait before set_in_service_queue).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>
#include "btkit.h"

#define MS 1000000ull
#define DEV BT_DEV_MAKE(8, 16)

struct got {
	struct bt_slice_ep ep[16];
	size_t n;
	struct bt_request rq[8];	/* the stand-in tracker, by sector */
};

static void collect(const struct bt_slice_ep *ep, void *arg)
{
	struct got *g = arg;

	assert_true(g->n < 16);
	assert_int_equal(ep->end - ep->start, ep->wait);
	assert_true(ep->dev_idle <= ep->wait);
	g->ep[g->n++] = *ep;
}

static struct bt_slice *mk(struct got *g, uint64_t tau)
{
	struct bt_slice_opts o = { .tau_ns = tau, .top_other = 1,
				   .episode = collect, .arg = g };
	struct bt_slice *s;

	memset(g, 0, sizeof(*g));
	assert_int_equal(bt_slice_new(&s, &o), 0);
	return s;
}

static struct bt_request *rq_at(struct got *g, uint64_t sector, int create)
{
	for (size_t i = 0; i < 8; i++)
		if (g->rq[i].state && g->rq[i].sector == sector)
			return &g->rq[i];
	if (!create)
		return NULL;
	for (size_t i = 0; i < 8; i++) {
		if (!g->rq[i].state || g->rq[i].state == BT_RQS_DONE) {
			memset(&g->rq[i], 0, sizeof(g->rq[i]));
			g->rq[i].sector = sector;
			g->rq[i].g = g->rq[i].i = g->rq[i].d = BT_TIME_NONE;
			return &g->rq[i];
		}
	}
	fail();
	return NULL;
}

/* One event; G creates the request, the others find it by sector. */
static void ev(struct bt_slice *s, struct got *g, uint64_t t, unsigned act,
	       uint32_t pid, uint64_t sector, uint32_t bytes)
{
	struct bt_event e;
	struct bt_request *rq = rq_at(g, sector, act == BT_A_GETRQ);

	memset(&e, 0, sizeof(e));
	e.time = t;
	e.action = act;
	e.category = BT_TC_READ | BT_TC_SYNC;
	e.pid = pid;
	e.sector = sector;
	e.bytes = bytes;
	e.dev = DEV;
	if (rq) {
		switch (act) {
		case BT_A_GETRQ:
			rq->pid = pid;
			rq->dev = DEV;
			rq->category = bytes ? BT_TC_READ : BT_TC_FLUSH;
			rq->g = t;
			rq->bytes = bytes;
			rq->state = BT_RQS_GOT;
			break;
		case BT_A_INSERT:
			rq->i = t;
			rq->state = BT_RQS_INSERTED;
			break;
		case BT_A_ISSUE:
			rq->d = t;
			rq->state = BT_RQS_ISSUED;
			break;
		case BT_A_COMPLETE:
			rq->c = t;
			rq->state = BT_RQS_DONE;
			rq->op = rq->bytes ? 'R' : 'F';
			break;
		}
	}
	assert_int_equal(bt_slice_feed(s, &e, rq), 0);
	if (rq && act == BT_A_COMPLETE)
		rq->state = 0;
}

static void msg(struct bt_slice *s, uint64_t t, const char *text)
{
	struct bt_event e;

	memset(&e, 0, sizeof(e));
	e.time = t;
	e.category = BT_TC_NOTIFY;
	e.action = BT_N_MESSAGE;
	e.dev = DEV;
	e.pdu = (const unsigned char *)text;
	e.pdu_len = (uint16_t)strlen(text);
	e.has_cgroup = 1;
	assert_int_equal(bt_slice_feed(s, &e, NULL), 0);
}

static void test_slice_events_insert_to_dispatch(void **state)
{
	struct got g;
	struct bt_slice *s = mk(&g, 0);

	(void)state;
	ev(s, &g, 1 * MS, BT_A_GETRQ, 10, 100, 4096);
	ev(s, &g, 2 * MS, BT_A_INSERT, 10, 100, 4096);
	/* another owner's request is dispatched while 10 waits */
	ev(s, &g, 3 * MS, BT_A_GETRQ, 20, 900, 65536);
	ev(s, &g, 4 * MS, BT_A_ISSUE, 0, 900, 65536);
	ev(s, &g, 6 * MS, BT_A_COMPLETE, 0, 900, 65536);
	ev(s, &g, 9 * MS, BT_A_ISSUE, 0, 100, 4096);
	/* 20's own episode (G to D) and 10's (I to D) */
	assert_int_equal(g.n, 2);
	assert_int_equal(g.ep[0].pid, 20);
	assert_int_equal(g.ep[0].wait, 1 * MS);
	assert_int_equal(g.ep[1].pid, 10);
	assert_int_equal(g.ep[1].source, BT_SLICE_EVENTS);
	assert_int_equal(g.ep[1].start, 2 * MS);
	assert_int_equal(g.ep[1].wait, 7 * MS);
	assert_int_equal(g.ep[1].foreign_bytes, 65536);
	/* idle from 2 to 4 and from 6 to 9 */
	assert_int_equal(g.ep[1].dev_idle, 5 * MS);
	assert_int_equal(g.ep[1].top_other, 20);
	bt_slice_finish(s);
	assert_int_equal(g.n, 2);
	bt_slice_free(s);
}

static void test_slice_events_tau_and_pending(void **state)
{
	struct got g;
	struct bt_slice *s = mk(&g, 8 * MS);

	(void)state;
	ev(s, &g, 1 * MS, BT_A_GETRQ, 10, 100, 4096);
	ev(s, &g, 2 * MS, BT_A_ISSUE, 0, 100, 4096);
	/* second request while the first is in flight: no new episode */
	ev(s, &g, 3 * MS, BT_A_GETRQ, 10, 200, 4096);
	ev(s, &g, 4 * MS, BT_A_COMPLETE, 0, 100, 4096);
	ev(s, &g, 5 * MS, BT_A_ISSUE, 0, 200, 4096);
	ev(s, &g, 6 * MS, BT_A_COMPLETE, 0, 200, 4096);
	assert_int_equal(g.n, 1);
	/* 4 ms after the last completion: within tau */
	ev(s, &g, 10 * MS, BT_A_GETRQ, 10, 300, 4096);
	ev(s, &g, 11 * MS, BT_A_ISSUE, 0, 300, 4096);
	ev(s, &g, 12 * MS, BT_A_COMPLETE, 0, 300, 4096);
	assert_int_equal(g.n, 1);
	/* 9 ms later: a new episode */
	ev(s, &g, 21 * MS, BT_A_GETRQ, 10, 400, 4096);
	ev(s, &g, 24 * MS, BT_A_ISSUE, 0, 400, 4096);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.ep[1].wait, 3 * MS);
	assert_int_equal(g.ep[1].foreign_bytes, 0);
	assert_int_equal(g.ep[1].top_other, -1);
	bt_slice_free(s);
}

static void test_slice_events_empty_preflush_is_no_wait(void **state)
{
	struct got g;
	struct bt_slice *s = mk(&g, 1 * MS);

	(void)state;
	ev(s, &g, 1 * MS, BT_A_GETRQ, 10, 100, 4096);
	ev(s, &g, 2 * MS, BT_A_ISSUE, 0, 100, 4096);
	ev(s, &g, 3 * MS, BT_A_COMPLETE, 0, 100, 4096);
	/* fdatasync's empty preflush: G, then blk-flush completes it
	 * without a D of its own */
	ev(s, &g, 10 * MS, BT_A_GETRQ, 10, 0, 0);
	ev(s, &g, 15 * MS, BT_A_COMPLETE, 0, 0, 0);
	assert_int_equal(g.n, 1);
	/* not left pending: the next write waits on its own */
	ev(s, &g, 20 * MS, BT_A_GETRQ, 10, 200, 4096);
	ev(s, &g, 21 * MS, BT_A_INSERT, 10, 200, 4096);
	ev(s, &g, 23 * MS, BT_A_ISSUE, 0, 200, 4096);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.ep[1].start, 21 * MS);
	assert_int_equal(g.ep[1].wait, 2 * MS);
	bt_slice_finish(s);
	assert_int_equal(g.n, 2);
	bt_slice_free(s);
}

static void test_slice_forget_expired_request(void **state)
{
	struct got g;
	struct bt_slice *s = mk(&g, 1 * MS);
	struct bt_request *rq;

	(void)state;
	ev(s, &g, 1 * MS, BT_A_GETRQ, 10, 100, 4096);
	ev(s, &g, 2 * MS, BT_A_ISSUE, 0, 100, 4096);
	/* the completion was lost; the tracker expires the request */
	rq = rq_at(&g, 100, 0);
	assert_non_null(rq);
	rq->flags |= BT_RQ_EXPIRED;
	bt_slice_forget(s, rq);
	rq->state = 0;
	ev(s, &g, 40 * MS, BT_A_GETRQ, 10, 200, 4096);
	ev(s, &g, 41 * MS, BT_A_ISSUE, 0, 200, 4096);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.ep[1].wait, 1 * MS);
	/* and the device counts as idle again */
	assert_int_equal(g.ep[1].dev_idle, 1 * MS);
	bt_slice_free(s);
}

static void test_slice_events_censored(void **state)
{
	struct got g;
	struct bt_slice *s = mk(&g, 0);

	(void)state;
	ev(s, &g, 1 * MS, BT_A_GETRQ, 10, 100, 4096);
	ev(s, &g, 2 * MS, BT_A_INSERT, 10, 100, 4096);
	ev(s, &g, 7 * MS, BT_A_GETRQ, 30, 500, 4096);
	assert_int_equal(g.n, 0);
	bt_slice_finish(s);
	assert_int_equal(g.n, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(g.ep[i].censored, 1);
		assert_int_equal(g.ep[i].end, 7 * MS);
	}
	bt_slice_free(s);
}

static void test_slice_cfq_messages(void **state)
{
	struct got g;
	struct bt_slice *s = mk(&g, 0);

	(void)state;
	assert_int_equal(bt_slice_has_messages(s, DEV), 0);
	msg(s, 1 * MS, "cfq20S  set_active wl_class:1 wl_type:2");
	msg(s, 2 * MS, "cfq10S  add_to_rr");
	msg(s, 30 * MS, "cfq20S  slice expired t=0");
	msg(s, 30 * MS, "cfq20S  del_from_rr");
	msg(s, 31 * MS, "cfq10S  set_active wl_class:1 wl_type:2");
	assert_int_equal(bt_slice_has_messages(s, DEV), 1);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.ep[0].source, BT_SLICE_MESSAGES);
	assert_int_equal(g.ep[0].pid, 10);
	assert_int_equal(g.ep[0].queue, BT_SLICE_PROC);
	assert_int_equal(g.ep[0].sched, BT_SCHED_CFQ);
	assert_int_equal(g.ep[0].wait, 29 * MS);
	/* backlog while in service: a zero wait */
	msg(s, 32 * MS, "cfq10S  add_to_rr");
	assert_int_equal(g.n, 2);
	assert_int_equal(g.ep[1].wait, 0);
	/* expired but still backlogged: waits again until the next turn */
	msg(s, 40 * MS, "cfq10S  slice expired t=1");
	msg(s, 41 * MS, "cfq7A  set_active wl_class:1 wl_type:0");
	msg(s, 50 * MS, "cfq7A  slice expired t=0");
	msg(s, 52 * MS, "cfq10S  set_active wl_class:1 wl_type:2");
	assert_int_equal(g.n, 3);
	assert_int_equal(g.ep[2].wait, 12 * MS);
	/* del_from_rr ends a backlog without an episode; the async queue's
	 * wait is its own row, censored at the end */
	msg(s, 53 * MS, "cfq10S  slice expired t=0");
	msg(s, 54 * MS, "cfq10S  del_from_rr");
	msg(s, 55 * MS, "cfq7A  add_to_rr");
	bt_slice_finish(s);
	assert_int_equal(g.n, 4);
	assert_int_equal(g.ep[3].queue, BT_SLICE_ASYNC);
	assert_int_equal(g.ep[3].pid, 7);
	assert_int_equal(g.ep[3].censored, 1);
	bt_slice_free(s);
}

static void test_slice_bfq_injection_ends_wait(void **state)
{
	struct got g;
	struct bt_slice *s = mk(&g, 0);

	(void)state;
	msg(s, 1 * MS, "bfq20S set_in_service_queue, cur-budget = 16384");
	ev(s, &g, 2 * MS, BT_A_GETRQ, 10, 100, 4096);
	ev(s, &g, 2 * MS, BT_A_INSERT, 10, 100, 4096);
	msg(s, 2 * MS, "bfq10S add to busy");
	/* 20 idles; BFQ injects 10's request without serving its queue */
	ev(s, &g, 5 * MS, BT_A_ISSUE, 0, 100, 4096);
	msg(s, 9 * MS, "bfq20S expire (1, slow 0, num_disp 3, short_ttime 1)");
	msg(s, 9 * MS, "bfq10S set_in_service_queue, cur-budget = 16384");
	size_t nmsg = 0;
	for (size_t i = 0; i < g.n; i++) {
		if (g.ep[i].source != BT_SLICE_MESSAGES)
			continue;
		nmsg++;
		assert_int_equal(g.ep[i].pid, 10);
		assert_int_equal(g.ep[i].wait, 3 * MS);
		assert_int_equal(g.ep[i].sched, BT_SCHED_BFQ);
	}
	assert_int_equal(nmsg, 1);
	/* the shared queue is a row of its own */
	msg(s, 10 * MS, "bfqSHARED-S add to busy");
	msg(s, 11 * MS, "bfq10S expire (2, slow 0, num_disp 1, short_ttime 1)");
	msg(s, 11 * MS, "bfq10S del from busy");
	msg(s, 11 * MS, "bfqSHARED-S set_in_service_queue, cur-budget = 1");
	assert_int_equal(g.ep[g.n - 1].queue, BT_SLICE_SHARED);
	assert_int_equal(g.ep[g.n - 1].pid, -1);
	assert_int_equal(g.ep[g.n - 1].wait, 1 * MS);
	bt_slice_free(s);
}

static void count_done(const struct bt_request *rq, void *arg)
{
	(void)rq;
	(*(size_t *)arg)++;
}

/*
 * Attached to the real tracker: a request whose completion was lost
 * expires, the slice forgets it by itself, and its owner waits again.  A
 * done callback set before is still called.
 */
static void test_slice_attach_forgets_expired(void **state)
{
	struct got g;
	struct bt_slice *s = mk(&g, 1 * MS);
	size_t done = 0;
	struct bt_tracker_opts to = { .expire_ns = 10 * MS,
				      .done = count_done, .arg = &done };
	struct bt_tracker *tr;
	const struct bt_request *rq;
	struct bt_event e;
	static const struct { uint64_t t; unsigned act; uint64_t sector; } evs[] = {
		{ 1 * MS, BT_A_QUEUE, 100 }, { 1 * MS, BT_A_GETRQ, 100 },
		{ 1 * MS, BT_A_INSERT, 100 }, { 2 * MS, BT_A_ISSUE, 100 },
		{ 40 * MS, BT_A_QUEUE, 200 }, { 40 * MS, BT_A_GETRQ, 200 },
		{ 40 * MS, BT_A_INSERT, 200 }, { 43 * MS, BT_A_ISSUE, 200 },
	};

	(void)state;
	bt_slice_attach(s, &to);
	assert_int_equal(bt_tracker_new(&tr, &to), 0);
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		memset(&e, 0, sizeof(e));
		e.time = evs[i].t;
		e.action = evs[i].act;
		e.category = BT_TC_READ;
		e.sector = evs[i].sector;
		e.bytes = 4096;
		e.pid = evs[i].act == BT_A_ISSUE ? 0 : 10;
		e.dev = DEV;
		bt_tracker_feed(tr, &e, &rq);
		assert_int_equal(bt_slice_feed(s, &e, rq), 0);
	}
	assert_int_equal(done, 1);	/* the expired one, passed on */
	assert_int_equal(g.n, 2);
	assert_int_equal(g.ep[1].start, 40 * MS);
	assert_int_equal(g.ep[1].wait, 3 * MS);
	bt_tracker_free(tr);
	bt_slice_free(s);
}

static void test_slice_new_rejects_bad_opts(void **state)
{
	struct bt_slice *s;
	struct bt_slice_opts o = { 0 };

	(void)state;
	assert_int_equal(bt_slice_new(&s, NULL), -EINVAL);
	assert_int_equal(bt_slice_new(&s, &o), -EINVAL);
	assert_null(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slice_events_insert_to_dispatch),
		cmocka_unit_test(test_slice_events_tau_and_pending),
		cmocka_unit_test(test_slice_events_empty_preflush_is_no_wait),
		cmocka_unit_test(test_slice_forget_expired_request),
		cmocka_unit_test(test_slice_attach_forgets_expired),
		cmocka_unit_test(test_slice_events_censored),
		cmocka_unit_test(test_slice_cfq_messages),
		cmocka_unit_test(test_slice_bfq_injection_ends_wait),
		cmocka_unit_test(test_slice_new_rejects_bad_opts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
