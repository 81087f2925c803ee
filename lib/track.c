// SPDX-License-Identifier: MIT
/*
 * track.c - the request tracker: folds the per-bio and per-request events
 * of a trace back into requests (Q..M/F..G..I..D..C) and hands each
 * finished request to the caller with all its timestamps.  Requests live
 * in a fixed pool (a slab: entries reused from a free list, so the
 * requests in flight stay in few cache lines) indexed by two of the
 * library's hash maps (lib/map.c) keyed by (device, sector): one by start
 * sector, where G, I, D, C and R arrive, and one by end sector for
 * requests still open to merges, where a back merge's bio lands.  Several
 * requests may share a key (a write rewritten while the first is in
 * flight, flushes at sector 0): the map holds one of them and the others
 * hang off it on a chain through the pool, which in practice is one entry
 * long, and lookups score every entry with the key and take the best,
 * oldest first.  A new bio alone at its sector waits outside the start
 * map until its M or G, or anything else that needs that sector, comes:
 * a merged bio then never enters it.  Entries sit on a list ordered by
 * their last event, so the oldest is found in O(1) when it expires or
 * when the pool is full.  That store is lib/track_int.h; this file is
 * what each event does to a request.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "track_int.h"

#define DEFAULT_EXPIRE	30000000000ull	/* ns */
#define DEFAULT_CAP	32768u
#define MIN_CAP		4u		/* a split needs room for two */
#define MAX_CAP		(1u << 24)
/*
 * A request that has waited this long without an event where a newer
 * request at its sector takes a G, I or D lost its own events: it is
 * replaced, not matched (1 s of trace time; schedulers dispatch far
 * sooner, and two requests for one sector waiting together are rare and
 * short-lived).
 */
#define STALE_NS	1000000000ull

static uint8_t class_of(const struct bt_event *ev);

/* op_of() for discards, zone commands and flushes. */
static char op_of_rest(uint32_t category, uint32_t bytes)
{
	if (category & BT_TC_DISCARD)
		return 'D';
	/* Version 8: an append writes data, a zone command moves no data. */
	if (category & BT_TC_ZONE_APPEND)
		return 'W';
	if (category & BT_TC_ZONE_MGMT)
		return 'N';
	if ((category & BT_TC_FLUSH) && bytes == 0)
		return 'F';
	return "NRWW"[((category & BT_TC_WRITE) ? 2 : 0) | (bytes != 0)];
}

/*
 * A request's op, for hooks as well as at its end: kept current where
 * its category or bytes change (set_rwbs(), merges, splits), not worked
 * out again at every event.  Inline for plain reads and writes.
 */
static inline char op_of(uint32_t category, uint32_t bytes)
{
	/*
	 * Most requests are plain reads and writes: one test for them.  They
	 * interleave: an index, not a branch to mispredict.
	 */
	if (!(category & (BT_TC_DISCARD | BT_TC_ZONE_APPEND | BT_TC_ZONE_MGMT |
			  BT_TC_FLUSH)))
		return "NRWW"[((category & BT_TC_WRITE) ? 2 : 0) | (bytes != 0)];
	return op_of_rest(category, bytes);
}

/* x leaves tr->pend and the maps. */
__attribute__((noinline))
static void release_keys(struct bt_tracker *tr, struct ent *x)
{
	if (x->pend)
		forget_pend(tr, x);
	unindex(tr, x);
}

/*
 * Inline: most entries released are in neither map nor tr->pend (a bio
 * just folded into its request, a request its C took out), so the test
 * of the three is all of it but the age list and the free list.
 */
static inline __attribute__((always_inline)) void
release(struct bt_tracker *tr, struct ent *x)
{
	if (x->pend | x->in_start | x->in_end)
		release_keys(tr, x);
	age_unlink(tr, x);
	x->next = tr->free;
	tr->free = x;
	tr->st.inflight--;
}

/*
 * Hand x to the caller (marks and lone bio fragments are not requests).
 * Inline in on_complete(), which finishes most; finish() is the called
 * copy for the rest.
 */
static inline __attribute__((always_inline)) struct bt_request *
finish_ent(struct bt_tracker *tr, struct ent *x, uint32_t flags)
{
	struct bt_request *rq = &x->rq;

	/*
	 * Handed over in place: a released entry is only written again
	 * when a later event allocates it, so the request stays valid
	 * until the next call, and no 320-byte copy is made per request.
	 */
	release(tr, x);
	rq->flags |= flags;
	rq->state = BT_RQS_DONE;
	/* rq->op is current: kept so wherever category or bytes change. */
	if (tr->o.reader && !rq->comm[0]) {
		const char *c = bt_reader_comm(tr->o.reader, rq->pid);

		/*
		 * comm is all zero until now (alloc_ent): strncpy's padding
		 * would only write zeros again, a call for a few bytes.
		 */
		for (size_t i = 0; c && i < sizeof(rq->comm) - 1 && c[i]; i++)
			rq->comm[i] = c[i];
	}
	if (tr->o.done)
		tr->o.done(rq, tr->o.arg);
	return rq;
}

__attribute__((noinline))
static struct bt_request *finish(struct bt_tracker *tr, struct ent *x,
				 uint32_t flags)
{
	return finish_ent(tr, x, flags);
}

/* Give up on x: expired, evicted or open at the end. */
static void drop(struct bt_tracker *tr, struct ent *x, uint32_t flag)
{
	if (x->rq.state == RQS_MARK) {
		release(tr, x);
		return;
	}
	finish(tr, x, flag);
}

/*
 * Room in a map for n keys, so that no insert can fail later, in the
 * middle of an event.  The maps start small, so the few requests usually
 * in flight stay in cache, and double as more are in flight.  Each is
 * sized by its own keys: the start map holds every entry, the end map
 * only requests open to merges, which stay few when many requests wait
 * at the driver (there a map sized for the whole pool would add 1.5 MB).
 */
static inline int room(struct bt_tracker *tr, int which, size_t n)
{
	struct bt_map *m = &tr->idx[which];

	/* n >= 1, and a map without slots has mask 0: no test of slot. */
	if (n * 2 <= m->mask + 1)
		return 0;
	return bt_map_reserve(m, n);
}

/*
 * Room in the end map for a key more than it and tr->hot hold, and
 * tr->end_lim: while their sum is below it, the map with that key more is
 * at most half full, so room() would return at once ((mask + 1) / 2 keys,
 * 0 while the map has no slots).  The map only grows, so the bound stays
 * safe until the next call.
 */
__attribute__((noinline))
static int end_room(struct bt_tracker *tr)
{
	int rc = room(tr, END, tr->idx[END].n + tr->nhot + 1);

	tr->end_lim = (tr->idx[END].mask + 1) / 2;
	return rc;
}

/*
 * An entry more in the start map, kept at most a quarter full: most Qs
 * probe it at a sector where nothing is, and a miss walks the run of
 * slots from the key's home to a free one, whose compares mispredict
 * (perf at half full: 8.5% of bt_tracker_feed's samples in one such
 * loop).  That run is about 2.5 slots at half full, 1.4 at a quarter.
 */
static int reserve(struct bt_tracker *tr)
{
	int rc = room(tr, START, 2 * (tr->st.inflight + 1));
	size_t quarter = (tr->idx[START].mask + 1) / 4;

	/* The map only grows: a bound worked out now stays safe. */
	tr->roomy = quarter < tr->cap ? (uint32_t)quarter : tr->cap;
	return rc;
}

/*
 * The category bits that tell which kind of action traced an event (a D
 * has BT_TC_ISSUE where its Q had BT_TC_QUEUE): neither rwbs nor op
 * reads them.
 */
#define TRACED_BY	(BT_TC_QUEUE | BT_TC_REQUEUE | BT_TC_ISSUE | \
			 BT_TC_COMPLETE | BT_TC_FS | BT_TC_PC | BT_TC_NOTIFY)

/* x->rq.rwbs and x->rq.op when x has just taken ev's category and bytes. */
static inline void set_rwbs(struct ent *x, const struct bt_event *ev)
{
	bt_rwbs_put(ev, x->rq.rwbs);
	x->rwbs_nz = ev->bytes != 0;
	x->rq.op = op_of(ev->category, ev->bytes);
}

/*
 * A new entry for ev, in state.  Inline in on_queue(), which makes most
 * of them (a call and its register saves were a tenth of it);
 * alloc_ent() is the called copy for the rest.
 */
static inline __attribute__((always_inline)) struct ent *
new_ent(struct bt_tracker *tr, const struct bt_event *ev, uint8_t state)
{
	struct ent *x;

	/* Below tr->roomy neither the pool nor the start map is short. */
	if (tr->st.inflight >= tr->roomy) {
		int full = tr->st.inflight >= tr->cap;

		/* If the maps cannot grow, make room. */
		if (!full && reserve(tr) < 0)
			full = 1;
		if (full) {
			tr->st.evicted++;
			drop(tr, tr->head, BT_RQ_EXPIRED);
		}
	}
	if (tr->free) {
		x = tr->free;
		tr->free = x->next;
	} else {
		/* An entry keeps its index once handed out. */
		x = &tr->pool[tr->used];
		x->self = tr->used++;
	}
	/*
	 * Field by field, not a memset of the entry (a `rep stos`, a tenth
	 * of the tracker's time): qlist and mlist are read only below
	 * nqlist and nmlist, and comm only up to its NUL.
	 */
	x->rq.m_off_sum = 0;
	x->rq.nbios = x->rq.nqlist = x->rq.nmerged = x->rq.nmlist = 0;
	x->rq.nrequeue = x->rq.flags = 0;
	x->rq.error = 0;
	x->rq.qsplit = 0;
	memset(x->rq.comm, 0, sizeof(x->rq.comm));
	x->skey = x->end = x->d_sector = x->front_t = 0;
	x->link[START] = x->link[END] = 0;
	x->front_k = x->in_start = x->in_end = x->pend = 0;
	x->seq = tr->seq++;
	x->rq.sector = ev->sector;
	x->rq.origin_sector = ev->sector;
	x->rq.q = x->rq.g = x->rq.i = x->rq.d = x->rq.c = BT_TIME_NONE;
	x->rq.i_last = x->rq.d_first = x->rq.merged_q = BT_TIME_NONE;
	x->rq.last = ev->time;
	x->rq.q_off_sum = 0;
	x->rq.bytes = x->remaining = ev->bytes;
	x->rq.pid = ev->pid;
	x->rq.dev = x->rq.origin_dev = ev->dev;
	x->rq.category = ev->category;
	x->rq.cgroup = ev->has_cgroup ? ev->cgroup : 0;
	x->rq.state = state;
	x->cls = class_of(ev);
	set_rwbs(x, ev);
	age_append(tr, x);
	if (++tr->st.inflight > tr->st.peak)
		tr->st.peak = tr->st.inflight;
	return x;
}

__attribute__((noinline))
static struct ent *alloc_ent(struct bt_tracker *tr, const struct bt_event *ev,
			     uint8_t state)
{
	return new_ent(tr, ev, state);
}

/* Scores of entries for an event: 0 = not a candidate, higher is better. */
typedef int (*score_fn)(const struct ent *x, const struct bt_event *ev);

/*
 * Reads and writes never share a request: a lost D or C must not let a
 * request of the other direction at the same sector take over the old
 * one's times.  Every event of a request carries its direction bit.
 */
static inline int same_dir(const struct ent *x, const struct bt_event *ev)
{
	return !((x->rq.category ^ ev->category) & BT_TC_WRITE);
}

/* A lone queued bio, waiting for G, M, F, X or A. */
static inline __attribute__((always_inline)) int
score_bio(const struct ent *x, const struct bt_event *ev)
{
	if (x->rq.state != BT_RQS_QUEUED || x->rq.nbios > 1 ||
	    !same_dir(x, ev))
		return 0;
	return x->rq.bytes == ev->bytes ? 2 : 1;
}

static inline __attribute__((always_inline)) int
score_mark(const struct ent *x, const struct bt_event *ev)
{
	if (x->rq.state != RQS_MARK || !same_dir(x, ev))
		return 0;
	return x->rq.bytes == ev->bytes ? 2 : 1;
}

/* The rest of a split bio, queued again by kernels that trace its Q. */
static inline __attribute__((always_inline)) int
score_piece(const struct ent *x, const struct bt_event *ev)
{
	return x->rq.state == BT_RQS_QUEUED && (x->rq.qsplit & 1) &&
	       x->rq.nbios == 1 && x->rq.bytes == ev->bytes &&
	       same_dir(x, ev);
}


/* A request still open to merges. */
static inline __attribute__((always_inline)) int
score_merge_target(const struct ent *x, const struct bt_event *ev)
{
	return (x->rq.state == BT_RQS_GOT || x->rq.state == BT_RQS_INSERTED) &&
	       same_dir(x, ev);
}

/*
 * Data requests, requests without data (an empty preflush bio, "FWS"), and
 * blk-flush's own flush requests (a flush that is not a write, "FN"): the
 * flush request is issued for the empty preflush but is another request,
 * and neither ever matches data at the same sector.
 */
static uint8_t class_of(const struct bt_event *ev)
{
	if (ev->bytes)
		return 0;
	if ((ev->category & BT_TC_FLUSH) && !(ev->category & BT_TC_WRITE))
		return 2;
	return 1;
}

static inline int same_class(const struct ent *x, const struct bt_event *ev)
{
	return x->cls == class_of(ev) && same_dir(x, ev);
}

static inline __attribute__((always_inline)) int
score_insert(const struct ent *x, const struct bt_event *ev)
{
	if (!same_class(x, ev))
		return 0;
	switch (x->rq.state) {
	case BT_RQS_GOT:
	case BT_RQS_REQUEUED:
		return 3;
	case BT_RQS_QUEUED:
		return 2;
	default:
		return 0;
	}
}

/*
 * Among requests in the same state at a sector, the one of the D's size
 * (or, for a C, no larger than what remains) is the D's: another size is
 * a different request whose own events were lost.
 */
static inline __attribute__((always_inline)) int
score_issue(const struct ent *x, const struct bt_event *ev)
{
	int same = x->remaining == ev->bytes;

	if (!same_class(x, ev))
		return 0;
	switch (x->rq.state) {
	case BT_RQS_INSERTED:
		return 8 + same;
	case BT_RQS_GOT:
	case BT_RQS_REQUEUED:
		return 6 + same;
	case BT_RQS_QUEUED:
		return 4 + same;
	default:
		return 0;
	}
}

static inline __attribute__((always_inline)) int
score_complete(const struct ent *x, const struct bt_event *ev)
{
	int fits = ev->bytes <= x->remaining;

	if (!same_class(x, ev) || x->rq.state == RQS_MARK)
		return 0;
	return (x->rq.state == BT_RQS_ISSUED ? 4 : 2) + fits;
}

static inline __attribute__((always_inline)) int
score_requeue(const struct ent *x, const struct bt_event *ev)
{
	return x->rq.state == BT_RQS_ISSUED && same_dir(x, ev);
}

/*
 * Bio-level events (G, M, F, X, A) follow their Q closely: among equals
 * the newest entry is theirs, an older one is a leftover.  Request-level
 * events (I, D, C, R) go first in, first out.
 */
static inline int newest_first(score_fn score)
{
	return score == score_bio || score == score_mark ||
	       score == score_piece;
}

/*
 * Inlined at each call with its score, so that the scoring and the
 * newest-first choice compile to straight code: lookups run two or three
 * times an event.
 */
static inline __attribute__((always_inline)) struct ent *
best_of(struct bt_tracker *tr, int which, uint32_t k, score_fn score,
	const struct bt_event *ev)
{
	int newest = newest_first(score);
	struct ent *best = NULL;
	uint32_t n = 0;
	int bs = 0;

	/* Nearly always one entry at the key: it, if it scores at all. */
	if (k && !tr->pool[k - 1].link[which]) {
		best = &tr->pool[k - 1];
		tr->nsame = 1;
		return score(best, ev) > 0 ? best : NULL;
	}
	for (; k; k = tr->pool[k - 1].link[which]) {
		struct ent *x = &tr->pool[k - 1];
		int v;

		n++;
		v = score(x, ev);
		if (v > bs || (v == bs && v > 0 &&
				(newest ? x->seq > best->seq :
					  x->seq < best->seq))) {
			best = x;
			bs = v;
		}
	}
	tr->nsame = n;
	return best;
}

/* The best entry at the key for the event, NULL when none scores. */
static inline __attribute__((always_inline)) struct ent *
lookup(struct bt_tracker *tr, int which, uint32_t dev, uint64_t key,
       score_fn score, const struct bt_event *ev)
{
	struct bt_map_slot *s = which == START ? start_find(tr, dev, key) :
			       bt_map_find(&tr->idx[which], dev, key);

	return best_of(tr, which, s ? s->val : 0, score, ev);
}

static inline void add_q(struct ent *x, uint64_t t, int split)
{
	struct bt_request *rq = &x->rq;

	if (rq->q == BT_TIME_NONE || t < rq->q) {
		if (rq->q != BT_TIME_NONE) {
			rq->q_off_sum += (uint64_t)rq->nbios * (rq->q - t);
			rq->m_off_sum += (uint64_t)rq->nmerged * (rq->q - t);
		}
		rq->q = t;
	}
	rq->q_off_sum += t - rq->q;
	if (rq->nqlist < BT_RQ_QLIST) {
		if (split)
			rq->qsplit |= (uint8_t)(1u << rq->nqlist);
		rq->qlist[rq->nqlist++] = t;
	}
	rq->nbios++;
}

/*
 * A bio with a known Q merged into x at t.  The bio at the start of the
 * request when it is inserted is the one the I (and btt's i2d) is timed
 * on: a front merge before the I is remembered, so that the I can take
 * that bio out of the merges timed at D.
 */
static void note_merge(struct ent *x, uint64_t t, int front)
{
	struct bt_request *rq = &x->rq;
	int listed = rq->nmlist < BT_RQ_QLIST;

	if (listed)
		rq->mlist[rq->nmlist++] = t;
	if (front) {
		x->front_t = t;
		x->front_k = listed ? (uint8_t)rq->nmlist : UINT8_MAX;
	}
	rq->m_off_sum += t - rq->q;
	rq->nmerged++;
}

static void unnote_front(struct ent *x)
{
	struct bt_request *rq = &x->rq;

	if (!x->front_k)
		return;
	if (x->front_k != UINT8_MAX)
		rq->mlist[x->front_k - 1] = BT_TIME_NONE;
	rq->m_off_sum -= x->front_t - rq->q;
	rq->nmerged--;
	x->front_k = 0;
}

/* Fold the bio entry b into request x (a merge), then free b. */
static inline __attribute__((always_inline)) void
fold(struct bt_tracker *tr, struct ent *x, struct ent *b)
{
	struct bt_request *rq = &x->rq, *bq = &b->rq;
	uint32_t k;

	if (bq->q != BT_TIME_NONE && (rq->q == BT_TIME_NONE || bq->q < rq->q)) {
		rq->pid = bq->pid;
		rq->comm[0] = '\0';
	}
	/*
	 * Nearly always a bio of one Q (a merge's): its one time, without
	 * the loop, whose bound GCC loads again after every add_q() (x and
	 * b might be one), and with no bios beyond the list.
	 */
	if (bq->nqlist == 1 && bq->nbios == 1) {
		add_q(x, bq->qlist[0], bq->qsplit & 1);
	} else {
		for (k = 0; k < bq->nqlist; k++)
			add_q(x, bq->qlist[k], (bq->qsplit >> k) & 1);
		/* bios beyond the list: their offsets go in as a sum */
		if (bq->nbios > bq->nqlist && bq->q != BT_TIME_NONE) {
			uint32_t n = bq->nbios - bq->nqlist;
			uint64_t rest = bq->q_off_sum, base = bq->q;

			for (k = 0; k < bq->nqlist; k++)
				rest -= bq->qlist[k] - base;
			rq->q_off_sum += rest + (uint64_t)n * (base - rq->q);
			rq->nbios += n;
		}
	}
	rq->flags |= bq->flags & (BT_RQ_SPLIT | BT_RQ_REMAPPED);
	if (!rq->cgroup)
		rq->cgroup = bq->cgroup;
	release(tr, b);
}

static inline __attribute__((always_inline)) struct bt_request *
on_queue(struct bt_tracker *tr,
	 const struct bt_event *ev)
{
	int i = pend_find(tr, ev->dev, ev->sector);
	struct ent *m = NULL, *x;
	uint32_t k = 0;

	if (i >= 0) {
		/* Alone at the key: the one to take if it scores at all. */
		m = tr->pend[i].x;
		if (!score_mark(m, ev)) {
			m = NULL;
			unpend(tr, (uint32_t)i);
		}
	}
	if (!m) {
		/* One probe for both: a remap's mark, or a split bio's rest. */
		k = bt_map_get(&tr->idx[START], ev->dev, ev->sector);
		m = k ? best_of(tr, START, k, score_mark, ev) : NULL;
	}

	x = m || !k ? NULL : best_of(tr, START, k, score_piece, ev);
	if (x) {
		/* Its own Q from now on: btt counts it as a bio of its own. */
		x->rq.q = BT_TIME_NONE;
		x->rq.nbios = x->rq.nqlist = 0;
		x->rq.q_off_sum = 0;
		x->rq.qsplit = 0;
		touch(tr, x, ev->time);
	} else if (m) {
		/* A remap put a mark here: the bio keeps its origin and owner. */
		x = m;
		x->rq.state = BT_RQS_QUEUED;
		x->rq.bytes = x->remaining = ev->bytes;
		x->rq.category = ev->category;
		x->cls = class_of(ev);
		set_rwbs(x, ev);
		if (!x->rq.pid)
			x->rq.pid = ev->pid;
		if (ev->has_cgroup && !x->rq.cgroup)
			x->rq.cgroup = ev->cgroup;
		touch(tr, x, ev->time);
	} else {
		x = new_ent(tr, ev, BT_RQS_QUEUED);
		if (!k) {
			/* add_q() on a new entry, which has no Q yet */
			x->rq.q = x->rq.qlist[0] = ev->time;
			x->rq.nqlist = x->rq.nbios = 1;
			pend_push(tr, x);
			return &x->rq;
		}
	}
	add_q(x, ev->time, 0);
	/* A pending mark stays pending: the bio keeps its key and state. */
	if (!x->pend)
		reindex(tr, x);
	return &x->rq;
}

/*
 * For an M, F or G: the pending entry at its sector when score_bio
 * scores it (nothing else is at that key, so it is the best), else NULL
 * with the start map as it would be.
 */
static inline struct ent *take_pend(struct bt_tracker *tr,
				    const struct bt_event *ev)
{
	for (uint32_t i = 0; i < tr->npend; i++) {
		struct ent *x = tr->pend[i].x;

		if (tr->pend[i].sector != ev->sector ||
		    x->rq.dev != ev->dev)
			continue;
		if (!score_bio(x, ev)) {
			unpend(tr, i);
			return NULL;
		}
		pend_cut(tr, i);
		tr->nsame = 1;
		return x;
	}
	return NULL;
}

static inline __attribute__((always_inline)) struct bt_request *
on_merge(struct bt_tracker *tr,
	 const struct bt_event *ev, int back)
{
	struct ent *b = take_pend(tr, ev);
	struct ent *x;
	struct bt_map_slot *es = NULL;
	uint64_t nsec = ev->bytes >> 9, bio_q, end;

	if (!b)
		b = lookup(tr, START, ev->dev, ev->sector, score_bio, ev);

	if (back) {
		es = bt_map_find(&tr->idx[END], ev->dev, ev->sector);
		x = es ? best_of(tr, END, es->val, score_merge_target, ev) :
			 NULL;
		/*
		 * The held-out ones ending there weigh in as best_of()
		 * weighs the chain, whose order never decides.
		 */
		for (uint32_t i = 0; i < tr->nhot; i++) {
			struct ent *h = tr->hot[i];

			if (h->end == ev->sector && h->rq.dev == ev->dev &&
			    score_merge_target(h, ev) &&
			    (!x || h->seq < x->seq))
				x = h;
		}
	} else
		x = lookup(tr, START, ev->dev, ev->sector + nsec,
			   score_merge_target, ev);
	if (!x) {
		/* Merged into a request we never saw start: forget the bio. */
		tr->st.unmatched++;
		if (b)
			release(tr, b);
		return NULL;
	}
	/* Without the bio's Q (before the trace) only the bytes grow. */
	bio_q = b ? b->rq.q : BT_TIME_NONE;
	if (b)
		fold(tr, x, b);
	x->rq.merged_q = bio_q;
	if (bio_q != BT_TIME_NONE)
		note_merge(x, ev->time, !back && x->rq.state < BT_RQS_INSERTED);
	x->remaining += ev->bytes;
	/* op reads of the bytes only whether there are any. */
	if (!x->rq.bytes != !x->remaining)
		x->rq.op = op_of(x->rq.category, x->remaining);
	x->rq.bytes = x->remaining;
	if (!back) {
		x->rq.sector = ev->sector;
		if (x->rq.state < BT_RQS_INSERTED)
			x->rq.flags |= BT_RQ_FRONT;
	}
	touch(tr, x, ev->time);
	if (!back) {
		reindex(tr, x);
		return &x->rq;
	}
	/*
	 * Only the end moved.  Held out, x just takes it; else x leaves
	 * the end map from the slot its lookup found (the map is as the
	 * lookup left it: the bio was in the start map only) and is held
	 * out with the others, the oldest of which may go back in.
	 */
	end = x->rq.sector + (x->remaining >> 9);
	if (end != x->end) {
		if (x->in_end != 2) {
			idx_remove_at(tr, END, es, x);
			hot_push(tr, x);
		}
		x->end = end;
	}
	return &x->rq;
}

static inline __attribute__((always_inline)) struct ent *
get_or_new(struct bt_tracker *tr, const struct bt_event *ev, score_fn score,
	   uint8_t state)
{
	struct ent *x = score == score_bio ? take_pend(tr, ev) : NULL;

	if (!x)
		x = lookup(tr, START, ev->dev, ev->sector, score, ev);
	tr->others = x ? tr->nsame - 1 : tr->nsame;
	if (x) {
		touch(tr, x, ev->time);
		return x;
	}
	/* Nothing queued here: a blk-flush flush, or begun before the trace. */
	x = alloc_ent(tr, ev, state);
	x->rq.flags |= BT_RQ_NOQ;
	return x;
}

/*
 * x has just taken a G, I or D at its start sector: an older request of
 * its class there that has shown nothing for STALE_NS lost its own D or
 * C (a CPU file missing, events lost).  Left in place, it would take the
 * next D or C at that sector with its old Q time, so give it up now, as
 * an expired one.  Whatever its direction: it can no longer be matched.
 */
static void replace_stale(struct bt_tracker *tr, struct ent *x, uint64_t now)
{
	/* get_or_new() saw no other request at the key: nothing to scan */
	if (!tr->others)
		return;
	for (;;) {
		struct ent *old = NULL;
		struct bt_map_slot *s = start_find(tr, x->rq.dev, x->skey);
		uint32_t k = s ? s->val : 0;

		/* The oldest (first made) stale one first. */
		for (; k; k = tr->pool[k - 1].link[START]) {
			struct ent *y = &tr->pool[k - 1];

			if (y == x || y->rq.state == RQS_MARK ||
			    y->cls != x->cls || y->seq > x->seq ||
			    y->rq.last >= now || now - y->rq.last <= STALE_NS ||
			    (old && old->seq < y->seq))
				continue;
			old = y;
		}
		if (!old)
			return;
		tr->st.replaced++;
		drop(tr, old, BT_RQ_EXPIRED);
	}
}

static inline __attribute__((always_inline)) struct bt_request *
on_getrq(struct bt_tracker *tr,
	 const struct bt_event *ev)
{
	struct ent *x = get_or_new(tr, ev, score_bio, BT_RQS_GOT);

	x->rq.state = BT_RQS_GOT;
	if (x->rq.g == BT_TIME_NONE)
		x->rq.g = ev->time;
	reindex(tr, x);
	replace_stale(tr, x, ev->time);
	return &x->rq;
}

static inline __attribute__((always_inline)) struct bt_request *
on_insert(struct bt_tracker *tr,
	  const struct bt_event *ev)
{
	struct ent *x = get_or_new(tr, ev, score_insert, BT_RQS_INSERTED);

	if (x->rq.i == BT_TIME_NONE)
		unnote_front(x);
	x->rq.state = BT_RQS_INSERTED;
	if (x->rq.i == BT_TIME_NONE)
		x->rq.i = ev->time;
	x->rq.i_last = ev->time;
	reindex(tr, x);
	replace_stale(tr, x, ev->time);
	return &x->rq;
}

static inline __attribute__((always_inline)) struct bt_request *
on_issue(struct bt_tracker *tr,
	 const struct bt_event *ev)
{
	struct ent *x = get_or_new(tr, ev, score_issue, BT_RQS_ISSUED);

	if (x->rq.i == BT_TIME_NONE)
		x->rq.flags |= BT_RQ_DIRECT;
	x->rq.state = BT_RQS_ISSUED;
	x->rq.d = ev->time;
	if (x->rq.d_first == BT_TIME_NONE)
		x->rq.d_first = ev->time;
	x->d_sector = ev->sector;
	/*
	 * The driver's view wins: bytes and flags as dispatched.  Usually
	 * they are as queued: then rwbs stands (it is made of the category
	 * and whether there are bytes), and so does op unless the bytes
	 * come or go.
	 */
	if (((ev->category ^ x->rq.category) & ~TRACED_BY) ||
	    (ev->bytes != 0) != x->rwbs_nz)
		set_rwbs(x, ev);
	else if (!ev->bytes != !x->rq.bytes)
		x->rq.op = op_of(ev->category, ev->bytes);
	x->rq.category = ev->category;
	x->rq.bytes = x->remaining = ev->bytes;
	reindex(tr, x);
	replace_stale(tr, x, ev->time);
	return &x->rq;
}

static inline __attribute__((always_inline)) struct bt_request *
on_complete(struct bt_tracker *tr,
	    const struct bt_event *ev)
{
	struct bt_map_slot *s;
	struct ent *x;

	s = start_find(tr, ev->dev, ev->sector);
	x = s ? best_of(tr, START, s->val, score_complete, ev) : NULL;
	if (!x) {
		tr->st.unmatched++;
		return NULL;
	}
	x->rq.c = ev->time;
	if (ev->error) {
		x->rq.flags |= BT_RQ_ERROR;
		x->rq.error = ev->error;
	}
	if (ev->bytes && ev->bytes < x->remaining) {
		/* A partial completion: the rest goes on from further up. */
		x->rq.flags |= BT_RQ_PARTIAL;
		x->remaining -= ev->bytes;
		x->rq.sector += ev->bytes >> 9;
		touch(tr, x, ev->time);
		reindex(tr, x);
		return &x->rq;
	}
	x->rq.last = ev->time;
	tr->st.completed++;
	/* Out of the start map from the slot the lookup found: one probe. */
	idx_remove_at(tr, START, s, x);
	x->in_start = 0;
	if (x->rq.flags & BT_RQ_PARTIAL) {
		/* Report where it started, not where the last piece began. */
		unindex(tr, x);
		x->rq.sector = x->d_sector;
	}
	return finish_ent(tr, x, 0);
}

/*
 * A zone append (version 8) is a write whose sector the device chooses:
 * its Q, G, I and D name the start of the zone, only its C the sector
 * written, and several appends to one zone are in flight at once under
 * that one start.  Its C is the oldest issued append on the device whose
 * D went to the zone holding the written sector, i.e. whose D sector is
 * the nearest at or below it; one of the same size wins over others, as
 * appends to one zone may complete out of order.  The request then takes
 * the written sector.  The record the kernel adds when it gives the bio
 * that sector (BLK_TA_ZONE_APPEND: a C without the COMPLETE category)
 * follows the request's own C and completes nothing.
 */
static struct bt_request *on_zone_append_complete(struct bt_tracker *tr,
						  const struct bt_event *ev)
{
	struct ent *best = NULL;

	if (!(ev->category & BT_TC_COMPLETE))
		return NULL;
	for (struct ent *x = tr->head; x; x = x->next) {
		if (x->rq.dev != ev->dev || x->rq.state != BT_RQS_ISSUED ||
		    !(x->rq.category & BT_TC_ZONE_APPEND) ||
		    x->d_sector > ev->sector)
			continue;
		if (best && x->d_sector == best->d_sector) {
			int xs = x->rq.bytes == ev->bytes;
			int bs = best->rq.bytes == ev->bytes;

			if (xs < bs || (xs == bs && x->rq.d >= best->rq.d))
				continue;
		} else if (best && x->d_sector < best->d_sector) {
			continue;
		}
		best = x;
	}
	if (!best) {
		tr->st.unmatched++;
		return NULL;
	}
	best->rq.c = best->rq.last = ev->time;
	if (ev->error) {
		best->rq.flags |= BT_RQ_ERROR;
		best->rq.error = ev->error;
	}
	best->rq.sector = ev->sector;
	tr->st.completed++;
	return finish(tr, best, BT_RQ_ZONE_APPEND);
}

static struct bt_request *on_requeue(struct bt_tracker *tr,
					   const struct bt_event *ev)
{
	struct ent *x = lookup(tr, START, ev->dev, ev->sector,
			       score_requeue, ev);

	if (!x) {
		tr->st.unmatched++;
		return NULL;
	}
	x->rq.state = BT_RQS_REQUEUED;
	x->rq.flags |= BT_RQ_REQUEUED;
	x->rq.nrequeue++;
	touch(tr, x, ev->time);
	reindex(tr, x);
	return &x->rq;
}

static struct bt_request *on_split(struct bt_tracker *tr,
					 const struct bt_event *ev)
{
	struct ent *x = lookup(tr, START, ev->dev, ev->sector, score_bio,
			       ev);
	struct ent *y;
	uint64_t at;
	uint32_t first;

	if (bt_event_split(ev, &at) < 0 || !x || at <= x->rq.sector ||
	    at >= x->end)
		return x ? &x->rq : NULL;
	first = (uint32_t)((at - x->rq.sector) << 9);
	touch(tr, x, ev->time);	/* so a full pool does not evict x */
	y = alloc_ent(tr, ev, BT_RQS_QUEUED);
	y->rq = x->rq;
	y->rwbs_nz = x->rwbs_nz;
	y->rq.sector = at;
	y->rq.bytes = y->remaining = x->remaining - first;
	y->rq.flags |= BT_RQ_SPLIT;
	y->rq.last = ev->time;
	x->rq.bytes = x->remaining = first;
	x->rq.flags |= BT_RQ_SPLIT;
	x->rq.op = op_of(x->rq.category, x->rq.bytes);
	y->rq.op = op_of(y->rq.category, y->rq.bytes);
	x->rq.qsplit = y->rq.qsplit = (uint8_t)((1u << x->rq.nqlist) - 1);
	reindex(tr, x);
	reindex(tr, y);
	return &x->rq;
}

static struct bt_request *on_remap(struct bt_tracker *tr,
					 const struct bt_event *ev)
{
	struct bt_remap rm;
	struct bt_request up;
	struct bt_map_slot *s;
	struct ent *b, *m;
	uint32_t k;

	if (bt_event_remap(ev, &rm) < 0)
		return NULL;
	/*
	 * The upper device's bio at the sector it came from, else a mark
	 * there (a remap of a remap): one probe for both.  The scores read
	 * only the event's direction and bytes, the same on both devices.
	 */
	s = start_find(tr, rm.dev_from, rm.sector_from);
	k = s ? s->val : 0;
	b = best_of(tr, START, k, score_bio, ev);
	if (!b)
		b = best_of(tr, START, k, score_mark, ev);
	if (b) {
		up = b->rq;
		tr->st.remapped++;
		release(tr, b);
	}
	m = alloc_ent(tr, ev, RQS_MARK);
	m->rq.flags |= BT_RQ_REMAPPED;
	m->rq.origin_dev = rm.dev_from;
	m->rq.origin_sector = rm.sector_from;
	if (b) {
		/* The upper device's bio moves down: keep who asked for it. */
		m->rq.pid = up.pid;
		if (up.cgroup)
			m->rq.cgroup = up.cgroup;
		if (up.flags & BT_RQ_REMAPPED) {
			m->rq.origin_dev = up.origin_dev;
			m->rq.origin_sector = up.origin_sector;
		}
	}
	unpend_key(tr, m->rq.dev, m->rq.sector);
	if (bt_map_get(&tr->idx[START], m->rq.dev, m->rq.sector))
		reindex(tr, m);
	else
		pend_push(tr, m);
	return NULL;
}

static void expire(struct bt_tracker *tr, uint64_t now)
{
	while (tr->head) {
		struct ent *x = tr->head;

		if (x->rq.last >= now || now - x->rq.last <= tr->o.expire_ns)
			break;
		if (x->rq.state != RQS_MARK)
			tr->st.expired++;
		drop(tr, x, BT_RQ_EXPIRED);
	}
}

int bt_tracker_new(struct bt_tracker **out, const struct bt_tracker_opts *opts)
{
	struct bt_tracker *tr;

	if (!out)
		return -EINVAL;
	*out = NULL;
	tr = calloc(1, sizeof(*tr));
	if (!tr)
		return -ENOMEM;
	if (opts)
		tr->o = *opts;
	if (!tr->o.expire_ns)
		tr->o.expire_ns = DEFAULT_EXPIRE;
	if (!tr->o.capacity)
		tr->o.capacity = DEFAULT_CAP;
	if (tr->o.capacity < MIN_CAP)
		tr->o.capacity = MIN_CAP;
	if (tr->o.capacity > MAX_CAP) {
		free(tr);
		return -EINVAL;
	}
	tr->cap = tr->o.capacity;
	tr->deadline = UINT64_MAX;
	/* calloc: pages of the pool are only touched as requests need them. */
	tr->pool = calloc(tr->cap, sizeof(*tr->pool));
	if (!tr->pool || reserve(tr) < 0 || room(tr, END, 1) < 0) {
		bt_tracker_free(tr);
		return -ENOMEM;
	}
	*out = tr;
	return 0;
}

/* The actions bt_tracker_feed() does not test for one by one. */
__attribute__((noinline))
static struct bt_request *on_rare(struct bt_tracker *tr,
				  const struct bt_event *ev)
{
	switch (ev->action) {
	case BT_A_FRONTMERGE:
		return on_merge(tr, ev, 0);
	case BT_A_REQUEUE:
		return on_requeue(tr, ev);
	case BT_A_SPLIT:
		return on_split(tr, ev);
	case BT_A_REMAP:
		return on_remap(tr, ev);
	default:
		return NULL;
	}
}

int bt_tracker_feed(struct bt_tracker *tr, const struct bt_event *ev,
		    const struct bt_request **rq)
{
	struct bt_request *r = NULL;
	uint32_t a;

	/* *rq is set once, at the end, but where an error returns. */
	if (!tr || !ev) {
		if (rq)
			*rq = NULL;
		return -EINVAL;
	}
	if (bt_event_is_note(ev) || (ev->category & BT_TC_PC))
		goto out;
	/*
	 * An event puts at most one request more in the end map, the
	 * held-out ones counted as in it (they may go in at any time).
	 */
	if (tr->idx[END].n + tr->nhot >= tr->end_lim && end_room(tr) < 0) {
		if (rq)
			*rq = NULL;
		return -ENOMEM;
	}
	if (ev->time > tr->deadline)
		expire(tr, ev->time);
	/*
	 * The common actions by a chain of compares, most frequent first,
	 * not a jump table: its one indirect jump mispredicts on the
	 * interleaved events of several streams (perf: the first
	 * instruction of the Q's handler, where those stalls land, had
	 * 4% of bt_tracker_feed's samples).  GCC would make the chain a
	 * jump table again: the Makefile builds this file with
	 * -fno-jump-tables.
	 */
	a = ev->action;
	if (a == BT_A_QUEUE)
		r = on_queue(tr, ev);
	else if (a == BT_A_BACKMERGE)
		r = on_merge(tr, ev, 1);
	else if (a == BT_A_GETRQ)
		r = on_getrq(tr, ev);
	else if (a == BT_A_INSERT)
		r = on_insert(tr, ev);
	else if (a == BT_A_ISSUE)
		r = on_issue(tr, ev);
	else if (a == BT_A_COMPLETE)
		r = ev->category & BT_TC_ZONE_APPEND ?
			    on_zone_append_complete(tr, ev) :
			    on_complete(tr, ev);
	else
		r = on_rare(tr, ev);
out:
	if (rq)
		*rq = r;
	return r != NULL;
}

void bt_tracker_flush(struct bt_tracker *tr)
{
	if (!tr)
		return;
	while (tr->head) {
		struct ent *x = tr->head;

		if (x->rq.state != RQS_MARK)
			tr->st.open++;
		drop(tr, x, BT_RQ_OPEN);
	}
}

void bt_tracker_get_stats(const struct bt_tracker *tr,
			  struct bt_tracker_stats *st)
{
	if (tr && st)
		*st = tr->st;
}

void bt_tracker_free(struct bt_tracker *tr)
{
	if (!tr)
		return;
	free(tr->pool);
	bt_map_free(&tr->idx[START]);
	bt_map_free(&tr->idx[END]);
	free(tr);
}
