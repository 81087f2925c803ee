// SPDX-License-Identifier: MIT
/*
 * test_sync.c - fdatasync episodes on hand-built event sequences: merged
 * sync writes, a process's own flush, one journal commit closing two
 * processes' episodes and one of its own, a journal commit alone, a FUA
 * write, no flush at all, other I/O that invalidates, a journal flush too
 * early to count, censoring at the end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <errno.h>
#include <stdlib.h>
#include <cmocka.h>
#include "btkit.h"
#include "trace_build.h"

#define MS 1000000ull
#define DEV BT_DEV_MAKE(8, 0)
#define JBD 900		/* pid of the journal thread in these tests */

struct got {
	struct bt_sync_ep ep[16];
	size_t n;
};

static void collect(const struct bt_sync_ep *ep, void *arg)
{
	struct got *g = arg;

	assert_true(g->n < 16);
	/* Every episode, whatever its kind: the phases add up. */
	assert_int_equal(ep->data + ep->flush, ep->lat);
	assert_true(ep->open <= ep->data_done && ep->data_done <= ep->close);
	g->ep[g->n++] = *ep;
}

static struct bt_sync *mk(struct got *g, int any_flush)
{
	struct bt_sync_opts o = { .episode = collect, .arg = g,
				  .any_flush = any_flush };
	struct bt_sync *s;

	memset(g, 0, sizeof(*g));
	assert_int_equal(bt_sync_new(&s, &o), 0);
	return s;
}

static void ev(struct bt_sync *s, uint64_t t, unsigned act, uint32_t pid,
	       uint32_t cat, uint64_t sector, uint32_t bytes)
{
	struct bt_event e;

	memset(&e, 0, sizeof(e));
	e.time = t;
	e.action = act;
	e.category = cat;
	e.pid = pid;
	e.sector = sector;
	e.bytes = bytes;
	e.dev = DEV;
	assert_int_equal(bt_sync_feed(s, &e, pid == JBD ? "jbd2/sda1-8" :
					      "postgres"), 0);
}

#define WS (BT_TC_WRITE | BT_TC_SYNC)
#define FWS (BT_TC_FLUSH | BT_TC_WRITE | BT_TC_SYNC)
#define FWFS (BT_TC_FLUSH | BT_TC_FUA | BT_TC_WRITE | BT_TC_SYNC)

static void test_sync_merged_writes_then_self_flush(void **state)
{
	struct got g;
	struct bt_sync *s = mk(&g, 0);

	(void)state;
	ev(s, 1 * MS, BT_A_QUEUE, 10, WS, 100, 4096);
	ev(s, 1 * MS + 10, BT_A_QUEUE, 10, WS, 108, 4096);
	ev(s, 1 * MS + 20, BT_A_BACKMERGE, 10, WS, 108, 4096);
	/* one request for both bios, completed in two pieces */
	ev(s, 4 * MS, BT_A_COMPLETE, 0, WS, 100, 4096);
	assert_int_equal(g.n, 0);
	ev(s, 5 * MS, BT_A_COMPLETE, 0, WS, 108, 4096);
	ev(s, 6 * MS, BT_A_QUEUE, 10, FWS, 0, 0);
	ev(s, 7 * MS, BT_A_ISSUE, 0, BT_TC_FLUSH, 0, 0);
	ev(s, 9 * MS, BT_A_COMPLETE, 0, BT_TC_FLUSH, 0, 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.ep[0].pid, 10);
	assert_int_equal(g.ep[0].lat, 8 * MS);
	assert_int_equal(g.ep[0].data, 4 * MS);
	assert_int_equal(g.ep[0].flush, 4 * MS);
	assert_int_equal(g.ep[0].data_bytes, 8192);
	assert_int_equal(g.ep[0].flags, BT_SYNC_SELF);
	assert_int_equal(g.ep[0].closer, 10);
	bt_sync_finish(s);
	assert_int_equal(g.n, 1);
	bt_sync_free(s);
}

static void test_sync_journal_flush_shared_by_two(void **state)
{
	struct got g;
	struct bt_sync *s = mk(&g, 0);

	(void)state;
	ev(s, 1 * MS, BT_A_QUEUE, 10, WS, 100, 4096);
	ev(s, 2 * MS, BT_A_QUEUE, 11, WS, 500, 8192);
	ev(s, 3 * MS, BT_A_COMPLETE, 0, WS, 100, 4096);
	ev(s, 4 * MS, BT_A_COMPLETE, 0, WS, 500, 8192);
	/* journal blocks are not anyone's data; the commit block closes */
	ev(s, 5 * MS, BT_A_QUEUE, JBD, WS, 9000, 4096);
	ev(s, 6 * MS, BT_A_QUEUE, JBD, FWFS, 9008, 4096);
	ev(s, 7 * MS, BT_A_COMPLETE, 0, WS, 9000, 4096);
	assert_int_equal(g.n, 0);
	ev(s, 10 * MS, BT_A_COMPLETE, 0, FWFS, 9008, 4096);
	/* theirs, and the journal thread's own commit */
	assert_int_equal(g.n, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(g.ep[i].flags, BT_SYNC_JOURNAL);
		assert_int_equal(g.ep[i].closer, JBD);
		assert_int_equal(g.ep[i].close, 10 * MS);
	}
	assert_int_equal(g.ep[0].pid + g.ep[1].pid + g.ep[2].pid, 21 + JBD);
	bt_sync_free(s);
}

static void test_sync_journal_flush_before_data_done_skipped(void **state)
{
	struct got g;
	struct bt_sync *s = mk(&g, 0);

	(void)state;
	ev(s, 1 * MS, BT_A_QUEUE, 10, WS, 100, 4096);
	ev(s, 2 * MS, BT_A_QUEUE, JBD, FWFS, 9008, 4096);
	ev(s, 3 * MS, BT_A_COMPLETE, 0, WS, 100, 4096);
	ev(s, 4 * MS, BT_A_COMPLETE, 0, FWFS, 9008, 4096);
	/* only the journal thread's own commit closed */
	assert_int_equal(g.n, 1);
	assert_int_equal(g.ep[0].pid, JBD);
	ev(s, 5 * MS, BT_A_QUEUE, JBD, FWFS, 9016, 4096);
	ev(s, 8 * MS, BT_A_COMPLETE, 0, FWFS, 9016, 4096);
	assert_int_equal(g.n, 3);
	for (size_t i = 1; i < 3; i++) {
		if (g.ep[i].pid == JBD)
			continue;
		assert_int_equal(g.ep[i].pid, 10);
		assert_int_equal(g.ep[i].lat, 7 * MS);
		assert_int_equal(g.ep[i].data, 2 * MS);
	}
	bt_sync_free(s);
}

/*
 * An ext4 trace whose only durability operation is jbd2's commit: journal
 * blocks (WS) and the commit block with PREFLUSH and FUA.  The commit is
 * the journal thread's own episode, from its first journal block to the
 * commit block's completion.
 */
static void test_sync_journal_commit_is_its_own_episode(void **state)
{
	struct got g;
	struct bt_sync *s = mk(&g, 0);

	(void)state;
	ev(s, 1 * MS, BT_A_QUEUE, JBD, WS, 9000, 8192);
	ev(s, 2 * MS, BT_A_QUEUE, JBD, FWFS, 9016, 4096);
	ev(s, 30 * MS, BT_A_COMPLETE, 0, WS, 9000, 8192);
	assert_int_equal(g.n, 0);
	ev(s, 82 * MS, BT_A_COMPLETE, 0, FWFS, 9016, 4096);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.ep[0].pid, JBD);
	assert_int_equal(g.ep[0].closer, JBD);
	assert_int_equal(g.ep[0].flags, BT_SYNC_JOURNAL);
	assert_int_equal(g.ep[0].lat, 81 * MS);
	assert_int_equal(g.ep[0].data, 29 * MS);
	assert_int_equal(g.ep[0].flush, 52 * MS);
	assert_int_equal(g.ep[0].data_bytes, 12288);
	bt_sync_finish(s);
	assert_int_equal(g.n, 1);
	bt_sync_free(s);
}

static void test_sync_fua_write_closes_itself(void **state)
{
	struct got g;
	struct bt_sync *s = mk(&g, 0);

	(void)state;
	ev(s, 1 * MS, BT_A_QUEUE, 10, BT_TC_FUA | WS, 100, 4096);
	ev(s, 3 * MS, BT_A_COMPLETE, 0, BT_TC_FUA | WS, 100, 4096);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.ep[0].flags, BT_SYNC_FUA);
	assert_int_equal(g.ep[0].data_bytes, 4096);
	assert_int_equal(g.ep[0].data, 0);
	assert_int_equal(g.ep[0].flush, 2 * MS);
	bt_sync_free(s);
}

static void test_sync_no_flush_closes_at_data(void **state)
{
	struct got g;
	struct bt_sync *s = mk(&g, 0);

	(void)state;
	ev(s, 1 * MS, BT_A_QUEUE, 10, WS, 100, 4096);
	ev(s, 2 * MS, BT_A_COMPLETE, 0, WS, 100, 4096);
	/* the next O_DIRECT write starts a new episode */
	ev(s, 3 * MS, BT_A_QUEUE, 10, WS, 108, 4096);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.ep[0].flags, BT_SYNC_NOFLUSH);
	assert_int_equal(g.ep[0].lat, 1 * MS);
	assert_int_equal(g.ep[0].flush, 0);
	ev(s, 4 * MS, BT_A_COMPLETE, 0, WS, 108, 4096);
	/* 5 s of nothing from anyone else's events closes it too */
	ev(s, 4 * MS + 5000 * MS + 1, BT_A_QUEUE, 77, BT_TC_READ, 0, 4096);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.ep[1].flags, BT_SYNC_NOFLUSH);
	assert_int_equal(g.ep[1].close, 4 * MS);
	bt_sync_free(s);
}

static void test_sync_other_io_invalidates(void **state)
{
	struct got g;
	struct bt_sync *s = mk(&g, 0);

	(void)state;
	ev(s, 1 * MS, BT_A_QUEUE, 10, WS, 100, 4096);
	ev(s, 2 * MS, BT_A_QUEUE, 10, BT_TC_READ, 7000, 8192);
	ev(s, 3 * MS, BT_A_COMPLETE, 0, WS, 100, 4096);
	ev(s, 4 * MS, BT_A_QUEUE, 10, FWS, 0, 0);
	ev(s, 5 * MS - 1, BT_A_ISSUE, 0, BT_TC_FLUSH, 0, 0);
	ev(s, 5 * MS, BT_A_COMPLETE, 0, BT_TC_FLUSH, 0, 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.ep[0].flags, BT_SYNC_SELF | BT_SYNC_INVALID);
	/* a sync write after the flush was asked for also invalidates */
	ev(s, 6 * MS, BT_A_QUEUE, 10, FWS, 0, 0);
	ev(s, 6 * MS + 1, BT_A_QUEUE, 10, WS, 300, 4096);
	ev(s, 7 * MS - 1, BT_A_ISSUE, 0, BT_TC_FLUSH, 0, 0);
	ev(s, 7 * MS, BT_A_COMPLETE, 0, BT_TC_FLUSH, 0, 0);
	assert_int_equal(g.n, 2);
	assert_true(g.ep[1].flags & BT_SYNC_INVALID);
	bt_sync_free(s);
}

static void test_sync_flush_only_and_censored(void **state)
{
	struct got g;
	struct bt_sync *s = mk(&g, 0);

	(void)state;
	/* fdatasync with nothing dirty: just the flush */
	ev(s, 1 * MS, BT_A_QUEUE, 10, FWS, 0, 0);
	ev(s, 2 * MS - 1, BT_A_ISSUE, 0, BT_TC_FLUSH, 0, 0);
	ev(s, 2 * MS, BT_A_COMPLETE, 0, BT_TC_FLUSH, 0, 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.ep[0].data, 0);
	assert_int_equal(g.ep[0].flush, 1 * MS);
	ev(s, 3 * MS, BT_A_QUEUE, 12, WS, 100, 4096);
	bt_sync_finish(s);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.ep[1].flags, BT_SYNC_CENSORED);
	assert_int_equal(g.ep[1].pid, 12);
	bt_sync_free(s);
}

static void test_sync_any_flush_and_journal_pid(void **state)
{
	struct got g;
	struct bt_sync *s = mk(&g, 1);
	uint32_t jp = 55;
	struct bt_sync_opts o = { .episode = collect, .arg = &g,
				  .journal_pids = &jp, .njournal = 1 };

	(void)state;
	ev(s, 1 * MS, BT_A_QUEUE, 10, WS, 100, 4096);
	ev(s, 2 * MS, BT_A_COMPLETE, 0, WS, 100, 4096);
	ev(s, 3 * MS, BT_A_QUEUE, 33, FWS, 0, 0);	/* someone else */
	ev(s, 4 * MS - 1, BT_A_ISSUE, 0, BT_TC_FLUSH, 0, 0);
	ev(s, 4 * MS, BT_A_COMPLETE, 0, BT_TC_FLUSH, 0, 0);
	/* pid 33's own flush-only episode and pid 10's, closed by 33 */
	assert_int_equal(g.n, 2);
	for (size_t i = 0; i < 2; i++)
		if (g.ep[i].pid == 10) {
			assert_int_equal(g.ep[i].flags, BT_SYNC_JOURNAL);
			assert_int_equal(g.ep[i].closer, 33);
		}
	bt_sync_free(s);

	assert_int_equal(bt_sync_new(&s, &o), 0);
	memset(&g, 0, sizeof(g));
	ev(s, 1 * MS, BT_A_QUEUE, 10, WS, 100, 4096);
	ev(s, 2 * MS, BT_A_COMPLETE, 0, WS, 100, 4096);
	ev(s, 3 * MS, BT_A_QUEUE, 33, FWS, 0, 0);	/* not a journal */
	ev(s, 3 * MS + 5, BT_A_QUEUE, 55, FWS, 0, 0);	/* --journal-pid */
	ev(s, 4 * MS - 1, BT_A_ISSUE, 0, BT_TC_FLUSH, 0, 0);
	ev(s, 4 * MS, BT_A_COMPLETE, 0, BT_TC_FLUSH, 0, 0);
	/* pid 10's, 33's own and the journal pid's own commit */
	assert_int_equal(g.n, 3);
	for (size_t i = 0; i < 3; i++) {
		if (g.ep[i].pid == 10)
			assert_int_equal(g.ep[i].closer, 55);
		if (g.ep[i].pid == 55)
			assert_int_equal(g.ep[i].flags, BT_SYNC_JOURNAL);
	}
	bt_sync_free(s);
}

static void test_sync_barrier_trace(void **state)
{
	struct got g;
	struct bt_sync *s = mk(&g, 0);

	(void)state;
	/* 2.6.3x: kjournald's commit is a barrier write (FLUSH bit) */
	ev(s, 1 * MS, BT_A_QUEUE, 10, WS, 100, 4096);
	ev(s, 2 * MS, BT_A_COMPLETE, 0, WS, 100, 4096);
	{
		struct bt_event e;

		memset(&e, 0, sizeof(e));
		e.time = 3 * MS;
		e.action = BT_A_QUEUE;
		e.category = BT_TC_FLUSH | BT_TC_WRITE;
		e.pid = 400;
		e.sector = 800;
		e.bytes = 4096;
		e.dev = DEV;
		assert_int_equal(bt_sync_feed(s, &e, "kjournald"), 0);
	}
	ev(s, 9 * MS, BT_A_COMPLETE, 0, BT_TC_FLUSH | BT_TC_WRITE, 800, 4096);
	/* pid 10's and kjournald's own commit */
	assert_int_equal(g.n, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(g.ep[i].flags, BT_SYNC_JOURNAL);
		assert_int_equal(g.ep[i].lat, g.ep[i].pid == 10 ? 8 * MS : 6 * MS);
	}
	bt_sync_free(s);
}

/* A flush in flight before a process's own flush is queued. */
static void flush_in_flight_before(struct bt_sync *s, const struct got *g)
{
	ev(s, 1 * MS, BT_A_ISSUE, 0, BT_TC_FLUSH, 0, 0);	/* someone's */
	ev(s, 2 * MS, BT_A_QUEUE, 10, FWS, 0, 0);
	ev(s, 3 * MS, BT_A_COMPLETE, 0, BT_TC_FLUSH, 0, 0);
	assert_int_equal(g->n, 0);
	/* blk-flush made ours wait for the next flush */
	ev(s, 4 * MS, BT_A_ISSUE, 0, BT_TC_FLUSH, 0, 0);
	ev(s, 6 * MS, BT_A_COMPLETE, 0, BT_TC_FLUSH, 0, 0);
	assert_int_equal(g->n, 1);
	assert_int_equal(g->ep[0].lat, 4 * MS);
}

static void test_sync_flush_in_flight_before_does_not_count(void **state)
{
	struct got g;
	struct bt_sync *s = mk(&g, 0);

	(void)state;
	flush_in_flight_before(s, &g);
	bt_sync_free(s);
}

/*
 * Completions on 64 other devices first: they take no place of the 64 for
 * devices' flush dispatches, so the flush in flight is still known.
 */
static void test_sync_completions_take_no_flush_place(void **state)
{
	struct got g;
	struct bt_sync *s = mk(&g, 0);
	struct bt_event e;

	(void)state;
	for (uint32_t i = 0; i < 64; i++) {
		memset(&e, 0, sizeof(e));
		e.time = 100 + i;
		e.action = BT_A_COMPLETE;
		e.category = BT_TC_WRITE;
		e.sector = 8;
		e.bytes = 4096;
		e.dev = BT_DEV_MAKE(9, i);
		assert_int_equal(bt_sync_feed(s, &e, NULL), 0);
	}
	flush_in_flight_before(s, &g);
	bt_sync_free(s);
}

static void test_sync_no_cache_device(void **state)
{
	struct got g;
	struct bt_sync *s = mk(&g, 0);

	(void)state;
	/* no volatile cache: no flush request, the empty one just ends */
	ev(s, 1 * MS, BT_A_QUEUE, 10, WS, 100, 4096);
	ev(s, 2 * MS, BT_A_COMPLETE, 0, WS, 100, 4096);
	ev(s, 3 * MS, BT_A_QUEUE, 10, FWS, 0, 0);
	ev(s, 3 * MS + 50, BT_A_COMPLETE, 0, WS, 0, 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.ep[0].flags, BT_SYNC_SELF);
	assert_int_equal(g.ep[0].flush, 1 * MS + 50);
	bt_sync_free(s);
}

static void test_sync_is_journal_names(void **state)
{
	(void)state;
	assert_true(bt_sync_is_journal("jbd2/sda1-8"));
	assert_true(bt_sync_is_journal("kjournald"));
	assert_true(bt_sync_is_journal("kjournald2"));
	assert_false(bt_sync_is_journal("jbd2"));
	assert_false(bt_sync_is_journal("postgres"));
	assert_false(bt_sync_is_journal(NULL));
}

static void test_sync_new_rejects_bad_opts(void **state)
{
	struct bt_sync *s;
	struct bt_sync_opts o = { 0 };

	(void)state;
	assert_int_equal(bt_sync_new(&s, NULL), -EINVAL);
	assert_int_equal(bt_sync_new(&s, &o), -EINVAL);
	assert_null(s);
}

/* ------------------------------------ a reader setting actions aside */

struct eps {
	struct bt_sync_ep *ep;
	size_t n, cap;
};

static void collect_all(const struct bt_sync_ep *ep, void *arg)
{
	struct eps *g = arg;

	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 64;
		g->ep = realloc(g->ep, g->cap * sizeof(*g->ep));
		assert_non_null(g->ep);
	}
	g->ep[g->n++] = *ep;
}

/*
 * A random trace of sync writes, flushes, FUA writes, journal commits and
 * other I/O from a few processes, with every event of their requests (Q
 * M G I D C), now and then a jump back in time longer than the flush
 * wait after an event set aside, so that its time matters, and pass-
 * through commands stamped ahead, which the caller does not feed.
 */
static void build_syncs(struct tb *t, uint32_t seed)
{
	static const uint32_t cats[] = { WS, FWS, FWFS, BT_TC_FLUSH,
					 BT_TC_WRITE, BT_TC_READ, BT_TC_READ,
					 BT_TC_WRITE, BT_TC_READ, BT_TC_READ,
					 BT_TC_WRITE };
	static const uint32_t acts[] = { BT_A_BACKMERGE, BT_A_GETRQ,
					 BT_A_INSERT, BT_A_ISSUE,
					 BT_A_COMPLETE };
	struct bt_event e;
	uint64_t time = MS;
	uint32_t seq = 1, x = seed;

	tb_init(t, 0, 0);
	e = tb_note(1, JBD, "jbd2/sda1-8");
	tb_add(t, &e);
	for (int i = 0; i < 600; i++) {
		x = x * 1103515245u + 12345u;
		uint32_t r = x >> 8, cat = cats[r % 11];
		uint64_t sector = 1000 + 8 * (r / 11 % 16);

		time += r % 3 ? r % (2 * MS) : 0;
		if (r % 7 == 0) {
			/* A pass-through command, stamped well ahead. */
			e = tb_ev(time + 12 * MS, seq++, BT_A_ISSUE,
				  BT_TC_PC | BT_TC_WRITE, 0);
			e.dev = DEV;
			tb_add(t, &e);
		}
		e = tb_ev(time, seq++, BT_A_QUEUE, cat,
			  cat == BT_TC_FLUSH ? 0 : 4096);
		e.pid = r % 53 == 0 ? JBD : 10 + r % 4;
		e.sector = sector;
		e.dev = DEV;
		tb_add(t, &e);
		for (size_t k = 0; k < 5; k++) {
			if (k == 0 && r % 2)
				continue;	/* no back merge */
			/*
			 * Now and then one never dispatched, and time jumps
			 * back after it: its newest time is an I set aside.
			 */
			if (k == 3 && r % 9 == 0) {
				time -= 12 * MS;
				break;
			}
			time += 1000 * (k + 1) + r % 777;
			e.time = time;
			e.sequence = seq++;
			e.action = acts[k];
			tb_add(t, &e);
		}
	}
	/* Last, a sync write that never completes: censored at the I. */
	e = tb_ev(time + MS, seq++, BT_A_QUEUE, WS, 4096);
	e.pid = 10;
	e.dev = DEV;
	tb_add(t, &e);
	for (size_t k = 1; k < 3; k++) {
		e.time += MS;
		e.sequence = seq++;
		e.action = acts[k];
		tb_add(t, &e);
	}
}

/* The episodes of one trace: every event fed, or following the reader. */
static void run_syncs(const struct tb *t, int follow, struct eps *g)
{
	struct bt_sync_opts o = { .episode = collect_all, .arg = g,
				  .noflush_ns = 5 * MS };
	struct bt_reader *r;
	struct bt_sync *s;
	struct bt_event e;
	int rc;

	memset(g, 0, sizeof(*g));
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, t->buf, t->len, "s.bin"), 0);
	o.follow = follow ? r : NULL;
	assert_int_equal(bt_sync_new(&s, &o), 0);
	while ((rc = bt_reader_next(r, &e)) == 1) {
		/* As btsync: pass-through commands are no one's I/O. */
		if (bt_event_is_note(&e) || (e.category & BT_TC_PC))
			continue;
		assert_int_equal(bt_sync_feed(s, &e, bt_sync_wants_comm(&e) ?
					      bt_reader_comm(r, e.pid) : NULL),
				 0);
	}
	assert_int_equal(rc, 0);
	bt_sync_finish(s);
	bt_sync_free(s);
	bt_reader_free(r);
}

/*
 * What opts.follow lets a reader set aside changes nothing: the
 * same episodes in the same order, on traces where both narrow and wide
 * stretches come, episodes close by flush, by waiting too long and at the
 * end.
 */
static void test_sync_actions_set_aside_change_nothing(void **state)
{
	size_t flushes = 0, noflush = 0, censored = 0;

	(void)state;
	for (uint32_t seed = 1; seed <= 40; seed++) {
		struct tb t;
		struct eps a, b;

		build_syncs(&t, seed);
		run_syncs(&t, 0, &a);
		run_syncs(&t, 1, &b);
		assert_int_equal(a.n, b.n);
		for (size_t i = 0; i < a.n; i++) {
			assert_memory_equal(&a.ep[i], &b.ep[i], sizeof(a.ep[i]));
			if (a.ep[i].flags & BT_SYNC_NOFLUSH)
				noflush++;
			else if (a.ep[i].flags & BT_SYNC_CENSORED)
				censored++;
			else
				flushes++;
		}
		free(a.ep);
		free(b.ep);
		tb_free(&t);
	}
	assert_true(flushes > 100 && noflush > 20 && censored > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sync_merged_writes_then_self_flush),
		cmocka_unit_test(test_sync_journal_flush_shared_by_two),
		cmocka_unit_test(test_sync_journal_flush_before_data_done_skipped),
		cmocka_unit_test(test_sync_journal_commit_is_its_own_episode),
		cmocka_unit_test(test_sync_fua_write_closes_itself),
		cmocka_unit_test(test_sync_no_flush_closes_at_data),
		cmocka_unit_test(test_sync_other_io_invalidates),
		cmocka_unit_test(test_sync_flush_only_and_censored),
		cmocka_unit_test(test_sync_any_flush_and_journal_pid),
		cmocka_unit_test(test_sync_barrier_trace),
		cmocka_unit_test(test_sync_flush_in_flight_before_does_not_count),
		cmocka_unit_test(test_sync_completions_take_no_flush_place),
		cmocka_unit_test(test_sync_no_cache_device),
		cmocka_unit_test(test_sync_is_journal_names),
		cmocka_unit_test(test_sync_new_rejects_bad_opts),
		cmocka_unit_test(test_sync_actions_set_aside_change_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
