/* SPDX-License-Identifier: MIT */
/*
 * track_int.h - the request tracker's store, for lib/track.c alone: the
 * pool of entries and the tracker object, and how an entry is found by
 * key -- the start and end maps with their chains of same-key entries,
 * the few new bios and merge targets held out of them while their next
 * events follow, and the age list the oldest entry is expired or evicted
 * from.  track.c holds what each event does to a request.  Its
 * functions are static, as in track.c, which alone includes it: the
 * compiler inlines them as it did there.
 */
#ifndef BTKIT_TRACK_INT_H
#define BTKIT_TRACK_INT_H

#include <stdint.h>
#include "internal.h"

/*
 * Qs waiting for their M or G outside the start map: with several
 * processes queueing at once, 96% of the bios' M or G come within three
 * events of their Q.
 */
#define NPEND		4
/*
 * Requests held out of the end map (tr->hot): with several processes
 * writing at once, back merges go round a few requests.
 */
#define NHOT		4

/* Internal state before BT_RQS_QUEUED: a remap (A) waiting for its Q. */
#define RQS_MARK	0

struct ent {
	struct bt_request rq;
	uint64_t skey;		/* sectors: key in the start index */
	uint64_t end;		/* sectors: key in the end index */
	uint64_t seq;		/* creation order, for oldest-first ties */
	uint64_t d_sector;	/* sectors: start when dispatched */
	uint64_t front_t;	/* ns: latest front merge before the I */
	uint32_t remaining;	/* bytes not yet completed */
	/*
	 * Its index in the pool, kept so that the maps, the chains and the
	 * pending bios get it with a load, not a pointer difference (a
	 * subtraction, shift and multiply: 400-byte entries).
	 */
	uint32_t self;
	/*
	 * Age list (NULL = none) and free list (next): addresses, as most
	 * events move an entry on the list, where index + 1 cost a
	 * subtraction, a multiply and an add at each neighbour's update.
	 */
	struct ent *prev, *next;
	uint32_t link[2];	/* next entry at the same start (0) or end (1)
				   key, index + 1, 0 = none */
	uint8_t front_k;	/* its mlist index + 1; 0 none, 255 past the list */
	uint8_t in_start;
	uint8_t in_end;		/* 1 in the end map, 2 held out (tr->hot) */
	uint8_t pend;		/* in tr->pend, not in the start map */
	uint8_t cls;		/* class_of() of the event that made it */
	uint8_t rwbs_nz;	/* rq.rwbs was written for an event with bytes
				   (and rq.category, which changes only then) */
};

struct bt_tracker {
	struct bt_tracker_opts o;
	struct ent *pool;
	uint32_t cap, used;	/* pool entries handed out at least once */
	/*
	 * An entry more fits while st.inflight is below this: the pool is
	 * not full and the start map has room for it at a quarter full
	 * (reserve()), one compare where a new entry tested both.
	 */
	uint32_t roomy;
	size_t end_lim;		/* see end_room() */
	struct ent *free;	/* free list through ent.next */
	struct bt_map idx[2];	/* (dev, start) and (dev, end) -> index + 1 */
	struct ent *head, *tail;	/* age list: oldest at head */
	/*
	 * ns: the head expires after this (its last + expire_ns, at most
	 * UINT64_MAX; UINT64_MAX when the list is empty), kept with the
	 * head so that an event tests one time, not the head entry.
	 */
	uint64_t deadline;
	uint64_t seq;
	/*
	 * Entries of the last Qs (and remaps' marks) that were alone at
	 * their sector, not yet in the start map, oldest first.  Their Q,
	 * M or G comes a few events later and takes them without a probe,
	 * and a merged bio never enters the map at all.  Anything else that
	 * looks at or puts an entry at such a sector first puts the pending
	 * one in, so every lookup sees the map it always saw.
	 */
	struct {
		uint64_t sector;
		/*
		 * The entry, whose rq.dev completes the key: a sector that
		 * matches is nearly always the entry sought, about to be
		 * read anyway.
		 */
		struct ent *x;
	} pend[NPEND];
	uint32_t npend;
	/*
	 * The last back merges' requests, oldest first, held
	 * out of the end map: their next bios, which usually merge into
	 * them too, move their ends without taking a key out of the map
	 * and putting it back.  A lookup at an end weighs the ones there
	 * with whatever the map holds at it, and a request taking a back
	 * merge while all are held puts the oldest in.
	 */
	struct ent *hot[NHOT];	/* pointers: the M's scan loads no index */
	uint32_t nhot;
	uint32_t nsame;		/* entries at the key of the last lookup */
	uint32_t others;	/* of them, besides get_or_new()'s request */
	struct bt_tracker_stats st;
};

enum { START, END };

static inline uint64_t ent_key(const struct ent *x, int which)
{
	return which == START ? x->skey : x->end;
}

/*
 * Put x at its key, ahead of the entries already there: one probe (room
 * was reserved: the start map for every entry, the end map for one key
 * more at each event).  Entries are passed, not indexes: the callers
 * hold them, and an index costs a multiply to turn back.
 */
static inline __attribute__((always_inline)) void
idx_insert(struct bt_tracker *tr, int which, uint32_t dev, uint64_t key,
	   struct ent *x)
{
	x->link[which] = bt_map_swap_reserved(&tr->idx[which], dev, key,
					      x->self + 1);
}

/* Take x out of the chain at slot s, the slot of its key. */
static inline __attribute__((always_inline)) void
idx_remove_at(struct bt_tracker *tr, int which, struct bt_map_slot *s,
	      struct ent *x)
{
	uint32_t next = x->link[which], e = x->self, *p;

	if (s->val == e + 1) {
		if (next)
			s->val = next;
		else
			bt_map_del_slot(&tr->idx[which], s);
		return;
	}
	for (p = &tr->pool[s->val - 1].link[which]; *p;
	     p = &tr->pool[*p - 1].link[which])
		if (*p == e + 1) {
			*p = next;
			return;
		}
}

__attribute__((noinline))
static void idx_remove(struct bt_tracker *tr, int which, uint32_t dev,
		       uint64_t key, struct ent *x)
{
	struct bt_map_slot *s = bt_map_find(&tr->idx[which], dev, key);

	if (s)
		idx_remove_at(tr, which, s, x);
}

static inline void reindex(struct bt_tracker *tr, struct ent *x);

/* Take pending entry i out of tr->pend. */
static void pend_cut(struct bt_tracker *tr, uint32_t i)
{
	tr->pend[i].x->pend = 0;
	tr->npend--;
	/* To the fixed end, as in hot_cut(): no call of memmove. */
	for (uint32_t j = 0; j + 1 < NPEND; j++)
		if (j >= i)
			tr->pend[j] = tr->pend[j + 1];
}

/* Put pending entry i in the start map, where it would have been. */
static void unpend(struct bt_tracker *tr, uint32_t i)
{
	struct ent *x = tr->pend[i].x;

	pend_cut(tr, i);
	reindex(tr, x);
}

/* The index in tr->pend of the pending entry at a key, or -1. */
static inline int pend_find(const struct bt_tracker *tr, uint32_t dev,
			    uint64_t key)
{
	for (uint32_t i = 0; i < tr->npend; i++)
		if (tr->pend[i].sector == key && tr->pend[i].x->rq.dev == dev)
			return (int)i;
	return -1;
}

/* Before the start map is read or written at a key: its pending entry. */
static inline void unpend_key(struct bt_tracker *tr, uint32_t dev,
			      uint64_t key)
{
	int i = pend_find(tr, dev, key);

	if (i >= 0)
		unpend(tr, (uint32_t)i);
}

/*
 * The start map's slot at a key, with the pending entry there, if any,
 * put in first.  A pending entry's key is never in the map (whatever
 * puts an entry at that key puts the pending one in before), so the
 * pending ones are looked at only when the map has nothing at the key:
 * the G, I, D and C of a request in the map skip them.
 */
static inline __attribute__((always_inline)) struct bt_map_slot *
start_find(struct bt_tracker *tr, uint32_t dev, uint64_t key)
{
	struct bt_map_slot *s = bt_map_find(&tr->idx[START], dev, key);
	int i;

	if (s || !tr->npend || (i = pend_find(tr, dev, key)) < 0)
		return s;
	unpend(tr, (uint32_t)i);
	return bt_map_find(&tr->idx[START], dev, key);
}

/*
 * x (a new Q's bio or a remap's mark) is alone at its start key: keep it
 * out of the start map until something else needs that key.
 */
static void pend_push(struct bt_tracker *tr, struct ent *x)
{
	if (tr->npend == NPEND)
		unpend(tr, 0);
	tr->pend[tr->npend].sector = x->rq.sector;
	tr->pend[tr->npend++].x = x;
	x->pend = 1;
}

static void forget_pend(struct bt_tracker *tr, const struct ent *x)
{
	for (uint32_t i = 0; i < tr->npend; i++)
		if (tr->pend[i].x == x) {
			pend_cut(tr, i);
			return;
		}
}

/* Take held-out entry i out of tr->hot. */
static void hot_cut(struct bt_tracker *tr, uint32_t i)
{
	/*
	 * Every slot after i moves down, up to the fixed end: GCC makes the
	 * loop to nhot a call of memmove (57 K calls of 13 instructions).
	 */
	tr->nhot--;
	for (uint32_t j = 0; j + 1 < NHOT; j++)
		if (j >= i)
			tr->hot[j] = tr->hot[j + 1];
}

/* x leaves the end map, or stops being held out of it. */
static inline __attribute__((always_inline)) void
end_remove(struct bt_tracker *tr, struct ent *x)
{
	if (x->in_end == 2) {
		for (uint32_t i = 0; i < tr->nhot; i++)
			if (tr->hot[i] == x) {
				hot_cut(tr, i);
				break;
			}
	} else {
		idx_remove(tr, END, x->rq.dev, x->end, x);
	}
	x->in_end = 0;
}

/* x, just out of the end map, is held out in its place. */
static inline __attribute__((always_inline)) void
hot_push(struct bt_tracker *tr, struct ent *x)
{
	if (tr->nhot == NHOT) {
		/* The oldest goes into the end map, at its current end. */
		struct ent *h = tr->hot[0];

		idx_insert(tr, END, h->rq.dev, h->end, h);
		h->in_end = 1;
		hot_cut(tr, 0);
	}
	tr->hot[tr->nhot++] = x;
	x->in_end = 2;
}

static void unindex(struct bt_tracker *tr, struct ent *x)
{
	if (x->in_start)
		idx_remove(tr, START, x->rq.dev, x->skey, x);
	if (x->in_end)
		end_remove(tr, x);
	x->in_start = 0;
}

/*
 * (Re)index x by its current start and, while it can merge, its end; keys
 * are kept apart (skey, end) because callers move rq.sector first.  Most
 * events move no key: G, I and D of a request keep its place.
 */
static inline __attribute__((always_inline)) void
reindex(struct bt_tracker *tr, struct ent *x)
{
	int want_end = x->rq.state >= BT_RQS_GOT &&
		       x->rq.state <= BT_RQS_INSERTED;
	uint64_t end = x->rq.sector + (x->remaining >> 9);

	if (!x->in_start || x->skey != x->rq.sector) {
		if (x->in_start)
			idx_remove(tr, START, x->rq.dev, x->skey, x);
		unpend_key(tr, x->rq.dev, x->rq.sector);
		x->skey = x->rq.sector;
		idx_insert(tr, START, x->rq.dev, x->skey, x);
		x->in_start = 1;
	}
	/* A held-out end moves with no map work. */
	if (x->in_end && (!want_end || (x->end != end && x->in_end == 1)))
		end_remove(tr, x);
	x->end = end;
	/* A request opening to merges is held out first: its M comes soon. */
	if (want_end && !x->in_end)
		hot_push(tr, x);
}

/* When x's last event makes it expire (the sum, saturated). */
static inline uint64_t
deadline_of(const struct bt_tracker *tr, const struct ent *x)
{
	uint64_t last = x->rq.last;

	return last > UINT64_MAX - tr->o.expire_ns ? UINT64_MAX :
						    last + tr->o.expire_ns;
}

static inline __attribute__((always_inline)) void
age_unlink(struct bt_tracker *tr, struct ent *x)
{
	if (x->prev) {
		x->prev->next = x->next;
	} else {
		tr->head = x->next;
		tr->deadline = x->next ? deadline_of(tr, x->next) : UINT64_MAX;
	}
	if (x->next)
		x->next->prev = x->prev;
	else
		tr->tail = x->prev;
	x->prev = x->next = NULL;
}

static inline __attribute__((always_inline)) void
age_append(struct bt_tracker *tr, struct ent *x)
{
	x->prev = tr->tail;
	x->next = NULL;
	if (tr->tail) {
		tr->tail->next = x;
	} else {
		tr->head = x;
		tr->deadline = deadline_of(tr, x);
	}
	tr->tail = x;
}

static inline __attribute__((always_inline)) void
touch(struct bt_tracker *tr, struct ent *x, uint64_t t)
{
	x->rq.last = t;
	if (tr->tail != x) {
		age_unlink(tr, x);
		age_append(tr, x);
	} else if (tr->head == x) {
		/* Alone on the list: it stays the head, with a new time. */
		tr->deadline = deadline_of(tr, x);
	}
}

#endif /* BTKIT_TRACK_INT_H */
