// SPDX-License-Identifier: MIT
/*
 * btread.c - the reader alone, for `make bench`: every record of the
 * given traces through bt_reader_next() and nothing else, so the bench
 * can show what decoding costs beside `cat` and what each tool adds.
 *
 * With -p, also the least that any analysis rebuilding requests must do
 * (the floor under btlat, btmerge and btslice): a Q opens a request at
 * its (device, sector), its G opens the request's end to back merges, an
 * M moves that end and drops its own bio's Q, a C at the start closes the
 * request.  Two open-addressing tables and a fixed pool, nothing else:
 * no front merges, requeues, splits, remaps, expiry, owners or names, so
 * its answers are not any tool's, only its cost is a bound.  Requests
 * whose C never comes pile up; when the pool or the end table is full,
 * everything open is forgotten at once (counted as resets).
 *
 * Prints the events delivered (and with -p the requests closed, their
 * bios and the resets); exit 1 on a reader error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "btkit.h"

/* Slots per table (a power of two) and requests at once, -p. */
#define FLOOR_SLOTS	8192
#define FLOOR_POOL	(FLOOR_SLOTS / 2)

struct slot {
	uint64_t key;		/* device << 40 ^ sector */
	uint32_t rq;		/* index in pool */
	uint32_t used;
};

struct floor {
	struct slot start[FLOOR_SLOTS], end[FLOOR_SLOTS];
	struct {
		uint64_t end;	/* sectors */
		uint32_t bios;
	} pool[FLOOR_POOL];
	uint32_t free[FLOOR_POOL], nfree;
	uint32_t nend;		/* keys in end */
	uint64_t closed, bios, resets;
};

static inline uint32_t home(uint64_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 51);
}

static inline struct slot *find(struct slot *t, uint64_t key)
{
	uint32_t i = home(key);

	while (t[i].used && t[i].key != key)
		i = (i + 1) & (FLOOR_SLOTS - 1);
	return &t[i];
}

/* Backward-shift deletion, as lib/map.c does. */
static void del(struct slot *t, struct slot *s)
{
	uint32_t i = (uint32_t)(s - t), j;

	for (j = (i + 1) & (FLOOR_SLOTS - 1); t[j].used;
	     j = (j + 1) & (FLOOR_SLOTS - 1)) {
		uint32_t h = home(t[j].key);

		if (((j - h) & (FLOOR_SLOTS - 1)) >=
		    ((j - i) & (FLOOR_SLOTS - 1))) {
			t[i] = t[j];
			i = j;
		}
	}
	t[i].used = 0;
}

static inline void put(struct slot *s, uint64_t key, uint32_t rq)
{
	s->key = key;
	s->rq = rq;
	s->used = 1;
}

/* rq ends at key, unless a request ends there already. */
static inline void end_put(struct floor *f, uint64_t key, uint32_t rq)
{
	struct slot *e = find(f->end, key);

	if (!e->used) {
		put(e, key, rq);
		f->nend++;
	}
}

static inline void end_del(struct floor *f, struct slot *e)
{
	del(f->end, e);
	f->nend--;
}

/* Forget every open request: both tables empty, the pool all free. */
static void floor_reset(struct floor *f)
{
	memset(f->start, 0, sizeof(f->start));
	memset(f->end, 0, sizeof(f->end));
	f->nfree = f->nend = 0;
	for (uint32_t i = 0; i < FLOOR_POOL; i++)
		f->free[f->nfree++] = FLOOR_POOL - 1 - i;
	f->resets++;
}

/* Tables at most half full: a new request or end fits. */
static inline void floor_room(struct floor *f)
{
	if (!f->nfree || f->nend >= FLOOR_POOL)
		floor_reset(f);
}

static void floor_feed(struct floor *f, const struct bt_event *ev)
{
	uint64_t key = (uint64_t)ev->dev << 40 ^ ev->sector;
	uint64_t len = ev->bytes >> 9;
	struct slot *s, *e;
	uint32_t rq;

	switch (ev->action) {
	case BT_A_QUEUE:
		floor_room(f);
		s = find(f->start, key);
		if (s->used)
			return;
		rq = f->free[--f->nfree];
		f->pool[rq].end = ev->sector + len;
		f->pool[rq].bios = 1;
		put(s, key, rq);
		return;
	case BT_A_GETRQ:
		floor_room(f);
		s = find(f->start, key);
		if (s->used)
			end_put(f, key + len, s->rq);
		return;
	case BT_A_BACKMERGE:
		e = find(f->end, key);
		if (!e->used)
			return;
		rq = e->rq;
		end_del(f, e);
		f->pool[rq].end += len;
		f->pool[rq].bios++;
		s = find(f->start, key);
		if (s->used) {
			f->free[f->nfree++] = s->rq;
			del(f->start, s);
		}
		end_put(f, key + len, rq);
		return;
	case BT_A_COMPLETE:
		s = find(f->start, key);
		if (!s->used)
			return;
		rq = s->rq;
		del(f->start, s);
		e = find(f->end, (uint64_t)ev->dev << 40 ^ f->pool[rq].end);
		if (e->used && e->rq == rq)
			end_del(f, e);
		f->closed++;
		f->bios += f->pool[rq].bios;
		f->free[f->nfree++] = rq;
		return;
	default:
		return;
	}
}

static struct floor fl;

int main(int argc, char **argv)
{
	struct bt_reader *r;
	struct bt_event ev;
	const char *what, *file = NULL;
	uint64_t n = 0, off = 0;
	int rc, pair = argc > 1 && !strcmp(argv[1], "-p");

	if (argc < 2 + pair) {
		fprintf(stderr, "usage: btread [-p] TRACE...\n");
		return 2;
	}
	if (bt_reader_new(&r) < 0)
		return 1;
	for (int i = 1 + pair; i < argc; i++)
		if (bt_reader_add(r, argv[i]) < 0) {
			fprintf(stderr, "btread: %s: cannot open\n", argv[i]);
			return 1;
		}
	floor_reset(&fl);
	fl.resets = 0;
	while ((rc = bt_reader_next(r, &ev)) > 0) {
		n++;
		if (pair)
			floor_feed(&fl, &ev);
	}
	if (rc < 0) {
		what = bt_reader_error(r, &file, &off);
		fprintf(stderr, "btread: %s: offset %" PRIu64 ": %s\n",
			file ? file : "-", off, what ? what : "error");
	}
	printf("%" PRIu64 " events\n", n);
	if (pair)
		printf("%" PRIu64 " requests closed, %" PRIu64 " bios, %"
		       PRIu64 " resets\n", fl.closed, fl.bios, fl.resets);
	bt_reader_free(r);
	return rc < 0;
}
