/* SPDX-License-Identifier: MIT */
/*
 * track_fixture.h - what the tracker's unit tests (test_track.c,
 * test_track_limits.c) build their cases with: a tracker whose finished
 * requests are collected, and events made and fed one line each.
 */
#ifndef BTKIT_TRACK_FIXTURE_H
#define BTKIT_TRACK_FIXTURE_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "btkit.h"
#include "event_fixture.h"

#define DEV	BT_DEV_MAKE(8, 0)
#define DM	BT_DEV_MAKE(253, 0)
#define PART	BT_DEV_MAKE(8, 1)

/* xorshift64: fixed seed, so a failure reproduces */
static uint64_t rng = 1;

static inline uint64_t rnd(void)
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

static inline void on_done(const struct bt_request *rq, void *arg)
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

static inline struct fx *fx_new(uint64_t expire_ns, uint32_t cap)
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

static inline void fx_free(struct fx *f)
{
	bt_tracker_free(f->tr);
	free(f);
}

/* Feed one event; returns the request it touched (or NULL). */
static inline const struct bt_request *feed(struct fx *f, uint32_t act, uint32_t cat,
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

static inline void put_be(unsigned char *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

static inline void feed_split(struct fx *f, uint64_t t_us, uint32_t dev,
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

static inline void feed_remap(struct fx *f, uint64_t t_us, uint32_t to,
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

#endif /* BTKIT_TRACK_FIXTURE_H */
