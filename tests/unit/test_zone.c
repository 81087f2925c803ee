// SPDX-License-Identifier: MIT
/*
 * test_zone.c - zoned devices in version 8, end to end in memory: v8
 * records built with trace_build.h, read back by the reader and fed to
 * the tracker.  A zone append's Q, G and D name the zone's start and its
 * C the sector the device wrote, with several appends to one zone in
 * flight at once; the kernel's extra record for the bio's new sector (a
 * C without the COMPLETE category) completes nothing; zone management
 * commands are 0-byte requests that move no data.  See btkit-format(5)
 * "Zoned devices (version 8)".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "btkit.h"
#include "trace_build.h"

#define US	1000ull		/* ns */
#define ZONE1	524288ull	/* sectors: start of the second 256 MiB zone */

/* What the kernel sets on each event of a zone append (REQ_SYNC bio). */
#define ZA	(BT_TC_WRITE | BT_TC_SYNC | BT_TC_ZONE_APPEND)
#define ZA_Q	(ZA | BT_TC_QUEUE)
#define ZA_D	(ZA | BT_TC_ISSUE | BT_TC_FS)
#define ZA_C	(ZA | BT_TC_COMPLETE | BT_TC_FS)
#define ZA_UPD	(ZA | BT_TC_FS)	/* BLK_TA_ZONE_APPEND: no COMPLETE bit */

struct got {
	struct bt_request rq[16];
	int n;
};

static void on_done(const struct bt_request *rq, void *arg)
{
	struct got *g = arg;

	if (g->n < 16)
		g->rq[g->n] = *rq;
	g->n++;
}

static void add(struct tb *b, uint32_t act, uint32_t cat, uint64_t t_us,
		uint64_t sector, uint32_t bytes, uint32_t pid)
{
	struct bt_event e = tb_ev(t_us * US, (uint32_t)t_us, act, cat, bytes);

	e.sector = sector;
	e.pid = pid;
	tb_add(b, &e);
}

/* Read b back and track it; the requests in g, the counters in st. */
static void run(struct tb *b, struct got *g, struct bt_tracker_stats *st)
{
	struct bt_tracker_opts o = { .done = on_done, .arg = g };
	struct bt_tracker *tr;
	struct bt_reader *r;
	struct bt_event e;
	int rc;

	memset(g, 0, sizeof(*g));
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, b->buf, b->len, "zoned"), 0);
	assert_int_equal(bt_tracker_new(&tr, &o), 0);
	while ((rc = bt_reader_next(r, &e)) == 1) {
		assert_int_equal(e.version, 8);
		assert_true(bt_tracker_feed(tr, &e, NULL) >= 0);
	}
	assert_int_equal(rc, 0);
	bt_tracker_flush(tr);
	bt_tracker_get_stats(tr, st);
	bt_tracker_free(tr);
	bt_reader_free(r);
}

/*
 * Two appends to one zone, 4 KiB by pid 10 and 8 KiB by pid 11, both
 * dispatched at the zone's start; the device writes the second one first
 * (at the start) and the first one after it.  Each C finds its request by
 * size, and each request ends up where the device put it.
 */
static void test_zone_append_takes_the_sector_of_its_completion(void **state)
{
	struct bt_tracker_stats st;
	struct got g;
	struct tb b;

	(void)state;
	tb_init(&b, BT_ENC_V8, 0);
	add(&b, BT_A_QUEUE, ZA_Q, 10, ZONE1, 4096, 10);
	add(&b, BT_A_GETRQ, ZA_Q, 11, ZONE1, 4096, 10);
	add(&b, BT_A_QUEUE, ZA_Q, 12, ZONE1, 8192, 11);
	add(&b, BT_A_GETRQ, ZA_Q, 13, ZONE1, 8192, 11);
	add(&b, BT_A_ISSUE, ZA_D, 14, ZONE1, 4096, 0);
	add(&b, BT_A_ISSUE, ZA_D, 15, ZONE1, 8192, 0);
	add(&b, BT_A_COMPLETE, ZA_C, 40, ZONE1, 8192, 0);
	add(&b, BT_A_COMPLETE, ZA_UPD, 41, ZONE1, 8192, 0);
	add(&b, BT_A_COMPLETE, ZA_C, 50, ZONE1 + 16, 4096, 0);
	add(&b, BT_A_COMPLETE, ZA_UPD, 51, ZONE1 + 16, 4096, 0);
	run(&b, &g, &st);

	assert_int_equal(st.completed, 2);
	assert_int_equal(st.unmatched, 0);
	assert_int_equal(st.open, 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.rq[0].pid, 11);
	assert_int_equal(g.rq[0].sector, ZONE1);
	assert_int_equal(g.rq[0].bytes, 8192);
	assert_int_equal(g.rq[0].q, 12 * US);
	assert_int_equal(g.rq[0].d, 15 * US);
	assert_int_equal(g.rq[0].c, 40 * US);
	assert_int_equal(g.rq[1].pid, 10);
	assert_int_equal(g.rq[1].sector, ZONE1 + 16);
	assert_int_equal(g.rq[1].q, 10 * US);
	assert_int_equal(g.rq[1].d, 14 * US);
	assert_int_equal(g.rq[1].c, 50 * US);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(g.rq[i].op, 'W');
		assert_string_equal(g.rq[i].rwbs, "ZAS");
		assert_true(g.rq[i].flags & BT_RQ_ZONE_APPEND);
		assert_false(g.rq[i].flags & BT_RQ_NOQ);
	}
	tb_free(&b);
}

/*
 * Appends of one size in flight in two zones: a C belongs to the zone
 * whose start is the nearest at or below the written sector, and among
 * appends to one zone the oldest dispatched goes first.
 */
static void test_zone_append_completes_in_its_own_zone(void **state)
{
	struct bt_tracker_stats st;
	struct got g;
	struct tb b;

	(void)state;
	tb_init(&b, BT_ENC_V8, 0);
	add(&b, BT_A_QUEUE, ZA_Q, 10, 0, 4096, 20);
	add(&b, BT_A_ISSUE, ZA_D, 11, 0, 4096, 20);
	add(&b, BT_A_QUEUE, ZA_Q, 12, ZONE1, 4096, 21);
	add(&b, BT_A_ISSUE, ZA_D, 13, ZONE1, 4096, 21);
	add(&b, BT_A_QUEUE, ZA_Q, 14, ZONE1, 4096, 22);
	add(&b, BT_A_ISSUE, ZA_D, 15, ZONE1, 4096, 22);
	add(&b, BT_A_COMPLETE, ZA_C, 30, ZONE1 + 800, 4096, 0);
	add(&b, BT_A_COMPLETE, ZA_C, 31, 72, 4096, 0);
	add(&b, BT_A_COMPLETE, ZA_C, 32, ZONE1 + 808, 4096, 0);
	run(&b, &g, &st);

	assert_int_equal(st.completed, 3);
	assert_int_equal(st.unmatched, 0);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.rq[0].pid, 21);
	assert_int_equal(g.rq[0].sector, ZONE1 + 800);
	assert_int_equal(g.rq[1].pid, 20);
	assert_int_equal(g.rq[1].sector, 72);
	assert_int_equal(g.rq[2].pid, 22);
	assert_int_equal(g.rq[2].sector, ZONE1 + 808);
	tb_free(&b);
}

/*
 * The kernel's record for the bio's new sector completes nothing, even
 * with another append to the same zone in flight, and is no orphan; a C
 * below every dispatched append is one.
 */
static void test_zone_append_update_record_completes_nothing(void **state)
{
	struct bt_tracker_stats st;
	struct got g;
	struct tb b;

	(void)state;
	tb_init(&b, BT_ENC_V8, 0);
	add(&b, BT_A_QUEUE, ZA_Q, 10, ZONE1, 4096, 30);
	add(&b, BT_A_ISSUE, ZA_D, 11, ZONE1, 4096, 30);
	add(&b, BT_A_QUEUE, ZA_Q, 12, ZONE1, 4096, 31);
	add(&b, BT_A_ISSUE, ZA_D, 13, ZONE1, 4096, 31);
	add(&b, BT_A_COMPLETE, ZA_C, 20, ZONE1, 4096, 0);
	add(&b, BT_A_COMPLETE, ZA_UPD, 21, ZONE1, 4096, 0);
	add(&b, BT_A_COMPLETE, ZA_C, 22, 64, 4096, 0);
	run(&b, &g, &st);

	assert_int_equal(st.completed, 1);
	assert_int_equal(st.unmatched, 1);
	assert_int_equal(st.open, 1);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.rq[0].pid, 30);
	assert_int_equal(g.rq[0].c, 20 * US);
	assert_int_equal(g.rq[1].pid, 31);
	assert_true(g.rq[1].flags & BT_RQ_OPEN);
	assert_int_equal(g.rq[1].c, BT_TIME_NONE);
	tb_free(&b);
}

/*
 * Zone management commands: no data, sector the zone's start, their C at
 * that same sector.  Each is a request of its own, "N" for the analyses
 * although the kernel marks reset and close as writes.
 */
static void test_zone_commands_are_requests_without_data(void **state)
{
	static const struct {
		uint32_t cat;
		const char *rwbs;
	} t[] = {
		{ BT_TC_WRITE | BT_TC_SYNC | BT_TC_ZONE_RESET, "ZRS" },
		{ BT_TC_WRITE | BT_TC_SYNC | BT_TC_ZONE_RESET_ALL, "ZRAS" },
		{ BT_TC_SYNC | BT_TC_ZONE_FINISH, "ZFS" },
		{ BT_TC_SYNC | BT_TC_ZONE_OPEN, "ZOS" },
		{ BT_TC_WRITE | BT_TC_SYNC | BT_TC_ZONE_CLOSE, "ZCS" },
	};
	const int n = (int)(sizeof(t) / sizeof(t[0]));
	struct bt_tracker_stats st;
	struct got g;
	struct tb b;

	(void)state;
	tb_init(&b, BT_ENC_V8 | BT_ENC_SWAP, 0);
	for (int i = 0; i < n; i++) {
		uint64_t t0 = 100 * (uint64_t)(i + 1);
		uint64_t zone = ZONE1 * (uint64_t)i;

		add(&b, BT_A_QUEUE, t[i].cat | BT_TC_QUEUE, t0, zone, 0, 40);
		add(&b, BT_A_GETRQ, t[i].cat | BT_TC_QUEUE, t0 + 1, zone, 0,
		    40);
		add(&b, BT_A_ISSUE, t[i].cat | BT_TC_ISSUE | BT_TC_FS, t0 + 2,
		    zone, 0, 40);
		add(&b, BT_A_COMPLETE, t[i].cat | BT_TC_COMPLETE | BT_TC_FS,
		    t0 + 9, zone, 0, 0);
	}
	run(&b, &g, &st);

	assert_int_equal(st.completed, n);
	assert_int_equal(st.unmatched, 0);
	assert_int_equal(g.n, n);
	for (int i = 0; i < n; i++) {
		assert_int_equal(g.rq[i].sector, ZONE1 * (uint64_t)i);
		assert_int_equal(g.rq[i].bytes, 0);
		assert_int_equal(g.rq[i].op, 'N');
		assert_string_equal(g.rq[i].rwbs, t[i].rwbs);
		assert_int_equal(g.rq[i].c - g.rq[i].q, 9 * US);
		assert_false(g.rq[i].flags & BT_RQ_ZONE_APPEND);
	}
	tb_free(&b);
}

/*
 * Zone write plugging: ZP and ZU carry the bio's sector and bytes but are
 * no step of a request; the write they delay is tracked as any write.
 */
static void test_zone_plug_events_leave_the_write_alone(void **state)
{
	const uint32_t w = BT_TC_WRITE | BT_TC_SYNC;
	struct bt_tracker_stats st;
	struct got g;
	struct tb b;

	(void)state;
	tb_init(&b, BT_ENC_V8, 0);
	add(&b, BT_A_QUEUE, w | BT_TC_QUEUE, 10, ZONE1 + 8, 4096, 50);
	add(&b, BT_A_ZONE_PLUG, BT_TC_QUEUE | BT_TC_READ, 11, ZONE1 + 8,
	    4096, 50);
	add(&b, BT_A_ZONE_UNPLUG, BT_TC_QUEUE | BT_TC_READ, 20, ZONE1 + 8,
	    4096, 0);
	add(&b, BT_A_GETRQ, w | BT_TC_QUEUE, 21, ZONE1 + 8, 4096, 0);
	add(&b, BT_A_ISSUE, w | BT_TC_ISSUE | BT_TC_FS, 22, ZONE1 + 8, 4096,
	    0);
	add(&b, BT_A_COMPLETE, w | BT_TC_COMPLETE | BT_TC_FS, 30, ZONE1 + 8,
	    4096, 0);
	run(&b, &g, &st);

	assert_int_equal(st.completed, 1);
	assert_int_equal(st.unmatched, 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.rq[0].pid, 50);
	assert_int_equal(g.rq[0].q, 10 * US);
	assert_int_equal(g.rq[0].g, 21 * US);
	assert_int_equal(g.rq[0].op, 'W');
	tb_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zone_append_takes_the_sector_of_its_completion),
		cmocka_unit_test(test_zone_append_completes_in_its_own_zone),
		cmocka_unit_test(test_zone_append_update_record_completes_nothing),
		cmocka_unit_test(test_zone_commands_are_requests_without_data),
		cmocka_unit_test(test_zone_plug_events_leave_the_write_alone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
