// SPDX-License-Identifier: MIT
/*
 * slice.c - slice waits: how long a process (or a scheduler queue) waited
 * for the device while others were served.  Two sources are followed at
 * once, so a tool can pick per device afterwards: the scheduler's own
 * messages (CFQ, BFQ) when the trace has them, and the events alone, which
 * every kernel and scheduler produce.  Device-wide counters (bytes
 * dispatched, time with nothing in flight) are running sums, so an
 * episode's share of them is a difference of two snapshots and nothing is
 * kept per episode but the snapshots.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "btkit.h"
#include "internal.h"

#define RING		1024	/* recent dispatches kept per device for top_other */
#define TOP_SLOTS	16	/* distinct pids weighed when finding top_other */
#define DEFAULT_TAU	8000000ull

struct disp {
	uint64_t time;		/* ns */
	uint64_t bytes;
	int32_t pid;		/* owner, -1 unknown */
};

struct device {
	uint32_t dev;
	uint32_t inflight;	/* requests at the driver */
	uint64_t idle_since;	/* ns: when inflight last became 0 */
	uint64_t cum_idle;	/* ns with nothing in flight, up to idle_since */
	uint64_t disp_bytes;	/* bytes dispatched so far */
	uint8_t has_messages;
	uint8_t sched;		/* enum bt_sched_name last seen */
	uint8_t has_active;
	uint64_t active_key;	/* queue in service (has_active) */
	struct disp ring[RING];
	uint32_t ring_pos, ring_n;
};

/* An owner (events) or a scheduler queue (messages), by device and key. */
struct ent {
	uint64_t key;
	uint32_t dev;
	/* episode in progress */
	uint8_t open;
	uint8_t has_i;
	uint64_t start;		/* ns */
	uint64_t snap_idle;	/* device cum idle at start */
	uint64_t snap_disp;	/* device bytes dispatched at start */
	uint64_t snap_own;	/* own bytes dispatched at start */
	/* owner state */
	int32_t pending;	/* requests got or inserted, not dispatched */
	int32_t inflight;	/* requests dispatched, not completed */
	uint64_t last_c;	/* ns, UINT64_MAX before the first */
	uint64_t own_disp;	/* bytes this owner dispatched */
	/* queue state */
	uint8_t on_rr;
	uint8_t active;
	uint8_t queue;		/* enum bt_slice_queue */
	uint8_t sched;
	int32_t pid;
};

/*
 * Entries in the order they came, indexed by (key, dev).  Entries are
 * never removed, so an entry number once found stays valid: a small
 * direct-mapped cache of them in front of the index answers most lookups
 * (a few processes' requests interleave) without hashing or probing.
 */
struct table {
	struct ent *e;
	size_t cap, n;
	struct bt_map idx;
	struct bt_map_hints hints;	/* in front of idx */
};

struct bt_slice {
	struct bt_slice_opts o;
	struct device *devs;
	size_t ndevs, capdevs;
	size_t lastdev;
	struct table owners;	/* key: pid */
	struct table queues;	/* key: see queue_key() */
	uint64_t now;		/* ns: latest event time */
	struct bt_done_link next;	/* the tracker's callback before ours */
};

__attribute__((noinline))
static struct ent *table_lookup(struct table *t, uint32_t dev, uint64_t key)
{
	uint32_t i = bt_map_get(&t->idx, key, dev);

	if (!i)
		return NULL;
	bt_map_hint_note(&t->hints, key, dev, i);
	return &t->e[i - 1];
}

static inline struct ent *table_find(struct table *t, uint32_t dev,
				     uint64_t key)
{
	uint32_t i = bt_map_hint_find(&t->hints, key, dev);

	return i ? &t->e[i - 1] : table_lookup(t, dev, key);
}

/* (dev, key) added zeroed; NULL on ENOMEM. */
__attribute__((noinline))
static struct ent *table_add(struct table *t, uint32_t dev, uint64_t key)
{
	struct ent *e;

	if (t->n >= UINT32_MAX - 1 ||
	    bt_array_room(&t->e, &t->cap, t->n, sizeof(*t->e), 64) < 0)
		return NULL;
	if (bt_map_put(&t->idx, key, dev, (uint32_t)(t->n + 1)) < 0)
		return NULL;
	e = &t->e[t->n++];
	bt_map_hint_note(&t->hints, key, dev, (uint32_t)t->n);
	memset(e, 0, sizeof(*e));
	e->key = key;
	e->dev = dev;
	e->last_c = UINT64_MAX;
	e->pid = (int32_t)key;
	return e;
}

/* The entry of (dev, key), added zeroed when new; NULL on ENOMEM. */
static inline struct ent *table_get(struct table *t, uint32_t dev,
				    uint64_t key)
{
	struct ent *e = table_find(t, dev, key);

	return e ? e : table_add(t, dev, key);
}

__attribute__((noinline))
static struct device *device_other(struct bt_slice *s, uint32_t dev,
				   uint64_t now)
{
	struct device *d;

	for (size_t i = 0; i < s->ndevs; i++) {
		if (s->devs[i].dev == dev) {
			s->lastdev = i;
			return &s->devs[i];
		}
	}
	if (bt_array_room(&s->devs, &s->capdevs, s->ndevs, sizeof(*s->devs),
			  4) < 0)
		return NULL;
	d = &s->devs[s->ndevs];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	d->idle_since = now;
	s->lastdev = s->ndevs++;
	return d;
}

static inline struct device *device_get(struct bt_slice *s, uint32_t dev,
					uint64_t now)
{
	if (s->lastdev < s->ndevs && s->devs[s->lastdev].dev == dev)
		return &s->devs[s->lastdev];
	return device_other(s, dev, now);
}

static uint64_t idle_now(const struct device *d, uint64_t t)
{
	if (d->inflight == 0 && t > d->idle_since)
		return d->cum_idle + (t - d->idle_since);
	return d->cum_idle;
}

static uint64_t own_disp(struct bt_slice *s, uint32_t dev, int32_t pid)
{
	const struct ent *o;

	if (pid < 0)
		return 0;
	o = table_find(&s->owners, dev, (uint32_t)pid);
	return o ? o->own_disp : 0;
}

static void snapshot(struct bt_slice *s, struct ent *e,
		     const struct device *d, int32_t pid, uint64_t t)
{
	e->start = t;
	e->snap_idle = idle_now(d, t);
	e->snap_disp = d->disp_bytes;
	e->snap_own = own_disp(s, d->dev, pid);
}

static int32_t top_other(const struct device *d, uint64_t start, int32_t pid)
{
	int32_t pids[TOP_SLOTS];
	uint64_t bytes[TOP_SLOTS];
	size_t n = 0, best = 0;

	for (uint32_t k = 0; k < d->ring_n; k++) {
		const struct disp *x = &d->ring[(d->ring_pos + RING - 1 - k) % RING];
		size_t i;

		if (x->time < start)
			break;
		if (x->pid == pid || x->pid < 0)
			continue;
		for (i = 0; i < n && pids[i] != x->pid; i++)
			;
		if (i == n) {
			if (n == TOP_SLOTS)
				continue;
			pids[n] = x->pid;
			bytes[n++] = 0;
		}
		bytes[i] += x->bytes;
	}
	if (!n)
		return -1;
	for (size_t i = 1; i < n; i++)
		if (bytes[i] > bytes[best])
			best = i;
	return pids[best];
}

static void emit(struct bt_slice *s, struct ent *e, const struct device *d,
		 int32_t pid, unsigned source, uint64_t end, int censored)
{
	struct bt_slice_ep ep;
	uint64_t idle = idle_now(d, end), own = own_disp(s, d->dev, pid);
	uint64_t disp = d->disp_bytes - e->snap_disp;

	memset(&ep, 0, sizeof(ep));
	ep.start = e->start;
	ep.end = end > e->start ? end : e->start;
	ep.wait = ep.end - ep.start;
	ep.dev_idle = idle > e->snap_idle ? idle - e->snap_idle : 0;
	if (ep.dev_idle > ep.wait)
		ep.dev_idle = ep.wait;
	own = own > e->snap_own ? own - e->snap_own : 0;
	ep.foreign_bytes = disp > own ? disp - own : 0;
	ep.dev = d->dev;
	ep.pid = pid;
	ep.top_other = s->o.top_other ? top_other(d, e->start, pid) : -1;
	ep.source = (uint8_t)source;
	ep.queue = source == BT_SLICE_MESSAGES ? e->queue : BT_SLICE_PROC;
	ep.sched = source == BT_SLICE_MESSAGES ? e->sched : BT_SCHED_NONE;
	ep.censored = (uint8_t)censored;
	e->open = 0;
	s->o.episode(&ep, s->o.arg);
}

/* A queue's identity: scheduler, sync letter, shared, pid. */
static uint64_t queue_key(unsigned sched, unsigned queue, int32_t pid)
{
	return (uint64_t)(uint32_t)pid | (uint64_t)queue << 32 |
	       (uint64_t)sched << 40;
}

static int feed_message(struct bt_slice *s, const struct bt_event *ev,
			struct device *d)
{
	struct bt_sched_msg m;
	struct ent *q, *a;
	unsigned queue;
	uint64_t t = ev->time;

	if (bt_sched_event(ev, &m) != 1)
		return 0;
	if (m.kind == BT_SCHED_SWITCH) {
		d->has_active = 0;
		return 0;
	}
	if (m.kind != BT_SCHED_QUEUE)
		return 0;
	d->has_messages = 1;
	d->sched = m.sched;
	queue = m.shared ? BT_SLICE_SHARED :
		(m.has_type && !m.sync) ? BT_SLICE_ASYNC : BT_SLICE_PROC;
	q = table_get(&s->queues, d->dev, queue_key(m.sched, queue, m.pid));
	if (!q)
		return -ENOMEM;
	q->queue = (uint8_t)queue;
	q->sched = m.sched;
	q->pid = m.shared ? -1 : m.pid;
	switch (m.mark) {
	case BT_SCHED_BACKLOG:
		q->on_rr = 1;
		if (q->active) {
			/* Backlogged while in service: it waited for nothing. */
			snapshot(s, q, d, q->pid, t);
			emit(s, q, d, q->pid, BT_SLICE_MESSAGES, t, 0);
		} else if (!q->open) {
			snapshot(s, q, d, q->pid, t);
			q->open = 1;
		}
		break;
	case BT_SCHED_LEAVE:
		q->on_rr = 0;
		q->open = 0;
		break;
	case BT_SCHED_START:
		/* A new queue in service ends the old one's service. */
		if (d->has_active && d->active_key != q->key) {
			a = table_find(&s->queues, d->dev, d->active_key);
			if (a && a->active) {
				a->active = 0;
				if (a->on_rr && !a->open) {
					snapshot(s, a, d, a->pid, t);
					a->open = 1;
				}
			}
		}
		if (q->open)
			emit(s, q, d, q->pid, BT_SLICE_MESSAGES, t, 0);
		q->active = 1;
		d->has_active = 1;
		d->active_key = q->key;
		break;
	case BT_SCHED_END:
		q->active = 0;
		if (d->has_active && d->active_key == q->key)
			d->has_active = 0;
		/* Still backlogged: waits again for its next turn. */
		if (q->on_rr && !q->open) {
			snapshot(s, q, d, q->pid, t);
			q->open = 1;
		}
		break;
	default:
		break;
	}
	return 0;
}

/*
 * Requests an owner waits for in the scheduler.  Empty flushes are not:
 * they bypass the scheduler, and blk-flush never dispatches the request of
 * an empty preflush bio (it sends its own flush request, D FN, and then
 * completes the original, C WS 0).
 */
static int counted(const struct bt_request *rq)
{
	return rq && !(rq->flags & BT_RQ_NOQ) && rq->op != 'F' &&
	       !((rq->category & BT_TC_FLUSH) && rq->bytes == 0);
}

/* Owner got a new request (G, or I without G): maybe an episode opens. */
static void owner_new_request(struct bt_slice *s, struct ent *o,
			      const struct device *d, uint64_t t)
{
	if (!o->open && o->pending == 0 && o->inflight == 0 &&
	    (o->last_c == UINT64_MAX || t < o->last_c ||
	     t - o->last_c >= s->o.tau_ns)) {
		snapshot(s, o, d, o->pid, t);
		o->open = 1;
		o->has_i = 0;
	}
	o->pending++;
}

static void ring_push(struct device *d, uint64_t t, int32_t pid,
		      uint64_t bytes)
{
	struct disp *x = &d->ring[d->ring_pos];

	x->time = t;
	x->pid = pid;
	x->bytes = bytes;
	d->ring_pos = (d->ring_pos + 1) % RING;
	if (d->ring_n < RING)
		d->ring_n++;
}

static int feed_dispatch(struct bt_slice *s, const struct bt_event *ev,
			 const struct bt_request *rq, struct device *d)
{
	int32_t pid = -1;
	uint64_t t = ev->time;
	struct ent *o = NULL;

	if (counted(rq)) {
		pid = (int32_t)rq->pid;
		o = table_get(&s->owners, d->dev, rq->pid);
		if (!o)
			return -ENOMEM;
	}
	if (o) {
		/* A D ends the owner's wait, whichever request it is. */
		if (o->open)
			emit(s, o, d, pid, BT_SLICE_EVENTS, t, 0);
		if (rq->g != BT_TIME_NONE || rq->i != BT_TIME_NONE ||
		    rq->nrequeue > 0) {
			if (o->pending > 0)
				o->pending--;
		}
		o->inflight++;
	}
	/* Scheduler queues: a dispatch of the queue's own request ends its
	 * wait even without service start (BFQ injection). */
	if (pid >= 0 && d->has_messages) {
		struct ent *q = table_find(&s->queues, d->dev,
					   queue_key(d->sched, BT_SLICE_PROC,
						     pid));

		if (q && q->open && !q->active)
			emit(s, q, d, pid, BT_SLICE_MESSAGES, t, 0);
	}
	if (d->inflight == 0 && t > d->idle_since)
		d->cum_idle += t - d->idle_since;
	d->inflight++;
	d->disp_bytes += ev->bytes;
	if (o)
		o->own_disp += ev->bytes;
	ring_push(d, t, pid, ev->bytes);
	return 0;
}

static void device_complete(struct device *d, uint64_t t)
{
	if (d->inflight == 0)
		return;
	if (--d->inflight == 0)
		d->idle_since = t;
}

/* Out of line, so the events that pass through save no registers. */
__attribute__((noinline))
static int feed(struct bt_slice *s, const struct bt_event *ev,
		const struct bt_request *rq)
{
	struct device *d;
	struct ent *o;
	uint64_t t = ev->time;

	d = device_get(s, ev->dev, t);
	if (!d)
		return -ENOMEM;
	if (bt_event_is_note(ev))
		return feed_message(s, ev, d);
	switch (ev->action) {
	case BT_A_GETRQ:
	case BT_A_INSERT:
		if (!counted(rq))
			return 0;
		o = table_get(&s->owners, d->dev, rq->pid);
		if (!o)
			return -ENOMEM;
		if (ev->action == BT_A_GETRQ ||
		    (rq->g == BT_TIME_NONE && rq->nrequeue == 0)) {
			owner_new_request(s, o, d, t);
		}
		if (ev->action == BT_A_INSERT && o->open && !o->has_i) {
			/* The wait counts from the insert when there is one. */
			snapshot(s, o, d, o->pid, t);
			o->has_i = 1;
		}
		return 0;
	case BT_A_ISSUE:
		return feed_dispatch(s, ev, rq, d);
	case BT_A_REQUEUE:
		device_complete(d, t);
		if (counted(rq)) {
			o = table_find(&s->owners, d->dev, rq->pid);
			if (o && o->inflight > 0) {
				o->inflight--;
				o->pending++;
			}
		}
		return 0;
	case BT_A_COMPLETE:
		if (rq && rq->state != BT_RQS_DONE)
			return 0;	/* a partial completion */
		if (!rq || rq->d != BT_TIME_NONE)
			device_complete(d, t);
		if (counted(rq)) {
			o = table_find(&s->owners, d->dev, rq->pid);
			if (o) {
				if (rq->d == BT_TIME_NONE) {
					if (o->pending > 0)
						o->pending--;
				} else if (o->inflight > 0) {
					o->inflight--;
				}
				o->last_c = t;
			}
		}
		return 0;
	default:
		return 0;
	}
}

int bt_slice_feed(struct bt_slice *s, const struct bt_event *ev,
		  const struct bt_request *rq)
{
	if (ev->time > s->now)
		s->now = ev->time;
	if (bt_event_is_note(ev)) {
		if (ev->action != BT_N_MESSAGE)
			return 0;
	} else if (ev->action != BT_A_GETRQ && ev->action != BT_A_INSERT &&
		   ev->action != BT_A_ISSUE && ev->action != BT_A_REQUEUE &&
		   ev->action != BT_A_COMPLETE) {
		return 0;	/* Q, M, P, U, A, X...: nothing for slices */
	}
	return feed(s, ev, rq);
}

/*
 * Where a request was when the tracker gave up on it.  The tracker hands
 * it over in state DONE, so tell from its times: at the driver after a D,
 * unless a requeue came after that D (then back in the scheduler: its
 * last event is the R, or an I after it); in the scheduler after a G or I
 * without D; 0 for a bio never in a request.
 */
static enum bt_rq_state given_up_in(const struct bt_request *rq)
{
	if (rq->state != BT_RQS_DONE)
		return (enum bt_rq_state)rq->state;
	if (rq->d != BT_TIME_NONE &&
	    !(rq->nrequeue > 0 && rq->last > rq->d &&
	      !(rq->flags & BT_RQ_PARTIAL)))
		return BT_RQS_ISSUED;
	if (rq->g != BT_TIME_NONE || rq->i != BT_TIME_NONE || rq->nrequeue)
		return BT_RQS_INSERTED;
	return 0;
}

void bt_slice_forget(struct bt_slice *s, const struct bt_request *rq)
{
	enum bt_rq_state where;
	struct device *d;
	struct ent *o;

	if (!rq || !(rq->flags & BT_RQ_EXPIRED))
		return;
	where = given_up_in(rq);
	if (where == BT_RQS_ISSUED) {
		d = device_get(s, rq->dev, s->now);
		if (d)
			device_complete(d, s->now);
	}
	if (!counted(rq))
		return;
	o = table_find(&s->owners, rq->dev, rq->pid);
	if (!o)
		return;
	if (where == BT_RQS_ISSUED) {
		if (o->inflight > 0)
			o->inflight--;
	} else if (where == BT_RQS_GOT || where == BT_RQS_INSERTED ||
		   where == BT_RQS_REQUEUED) {
		if (o->pending > 0)
			o->pending--;
	}
}

/* The tracker's finished requests: only the ones it gave up on matter. */
static void on_done(const struct bt_request *rq, void *arg)
{
	struct bt_slice *s = arg;

	bt_slice_forget(s, rq);
	bt_done_next(&s->next, rq);
}

void bt_slice_attach(struct bt_slice *s, struct bt_tracker_opts *to)
{
	bt_done_chain(&s->next, to, on_done, s);
}

void bt_slice_finish(struct bt_slice *s)
{
	for (size_t i = 0; i < s->owners.n; i++) {
		struct ent *o = &s->owners.e[i];
		struct device *d;

		if (!o->open)
			continue;
		d = device_get(s, o->dev, s->now);
		if (d)
			emit(s, o, d, o->pid, BT_SLICE_EVENTS, s->now, 1);
	}
	for (size_t i = 0; i < s->queues.n; i++) {
		struct ent *q = &s->queues.e[i];
		struct device *d;

		if (!q->open)
			continue;
		d = device_get(s, q->dev, s->now);
		if (d)
			emit(s, q, d, q->pid, BT_SLICE_MESSAGES, s->now, 1);
	}
}

int bt_slice_has_messages(const struct bt_slice *s, uint32_t dev)
{
	for (size_t i = 0; i < s->ndevs; i++)
		if (s->devs[i].dev == dev)
			return s->devs[i].has_messages;
	return 0;
}

int bt_slice_new(struct bt_slice **out, const struct bt_slice_opts *opts)
{
	struct bt_slice *s;

	*out = NULL;
	if (!opts || !opts->episode)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->o = *opts;
	if (!s->o.tau_ns)
		s->o.tau_ns = DEFAULT_TAU;
	*out = s;
	return 0;
}

void bt_slice_free(struct bt_slice *s)
{
	if (!s)
		return;
	free(s->owners.e);
	free(s->queues.e);
	bt_map_free(&s->owners.idx);
	bt_map_free(&s->queues.idx);
	free(s->devs);
	free(s);
}

/*
 * btslice's tables, here so that btslice and btplot's report print the
 * same: one row per episode, and the summary per process or queue.
 */
static const char *const sum_cols[] = {
	"pid", "comm", "source", "episodes", "censored",
	"wait_total_us", "wait_mean_us", "wait_p50_us", "wait_p95_us",
	"wait_p99_us", "wait_max_us", "idle_share", "foreign_bytes",
};
static const char *const ep_cols[] = {
	"start_s", "pid", "comm", "wait_us", "dev_idle_us",
	"foreign_bytes", "top_other_pid",
};

struct sum_row {
	uint64_t episodes, censored;
	uint64_t total, idle, foreign;	/* ns, ns, bytes */
	struct bt_dist wait;		/* ns */
};

/* Rows are grouped by dev, pid (-1: none) and source and queue in sub. */
#define SUB(source, queue)	((uint32_t)(source) << 8 | (queue))
#define SUB_SOURCE(sub)		((sub) >> 8)
#define SUB_QUEUE(sub)		((sub) & 0xff)

struct bt_slice_sum {
	struct bt_group *rows;	/* struct sum_row */
};

int bt_slice_wanted(const struct bt_slice *s, int from, uint32_t dev,
		    unsigned source)
{
	switch (from) {
	case BT_SLICE_FROM_MESSAGES:
		return source == BT_SLICE_MESSAGES;
	case BT_SLICE_FROM_EVENTS:
		return source == BT_SLICE_EVENTS;
	default:
		return source == (bt_slice_has_messages(s, dev) ?
				  BT_SLICE_MESSAGES : BT_SLICE_EVENTS);
	}
}

static void put_comm(struct bt_table *t, const struct bt_reader *r,
		     int32_t pid, unsigned queue)
{
	if (queue == BT_SLICE_ASYNC)
		bt_table_str(t, "[async]");
	else if (queue == BT_SLICE_SHARED)
		bt_table_str(t, "[shared]");
	else if (pid < 0)
		bt_table_str(t, "-");
	else
		bt_table_comm(t, r, (uint32_t)pid);
}

static void put_pid(struct bt_table *t, int32_t pid)
{
	if (pid < 0)
		bt_table_str(t, "-");
	else
		bt_table_u64(t, (uint64_t)pid);
}

struct bt_table_cols bt_slice_ep_cols(void)
{
	return (struct bt_table_cols){ ep_cols, BT_TABLE_NCOLS(ep_cols) };
}

void bt_slice_ep_row(struct bt_table *t, const struct bt_slice_ep *ep,
		     uint64_t origin, const struct bt_reader *r)
{
	bt_table_s(t, ep->start > origin ? ep->start - origin : 0);
	put_pid(t, ep->pid);
	put_comm(t, r, ep->pid, ep->queue);
	bt_table_us(t, ep->wait);
	bt_table_us(t, ep->dev_idle);
	bt_table_u64(t, ep->foreign_bytes);
	put_pid(t, ep->top_other);
	bt_table_end_row(t);
}

int bt_slice_sum_new(struct bt_slice_sum **out)
{
	int rc = -ENOMEM;

	*out = calloc(1, sizeof(**out));
	if (*out && (rc = bt_group_new(&(*out)->rows,
				       sizeof(struct sum_row))) < 0) {
		free(*out);
		*out = NULL;
	}
	return *out ? 0 : rc;
}

int bt_slice_sum_add(struct bt_slice_sum *s, const struct bt_slice_ep *ep)
{
	struct sum_row *r = bt_group_get(s->rows, ep->dev, (uint32_t)ep->pid,
					 SUB(ep->source, ep->queue));

	if (!r)
		return -ENOMEM;
	if (ep->censored) {
		r->censored++;
		return 0;
	}
	r->episodes++;
	r->total += ep->wait;
	r->idle += ep->dev_idle;
	r->foreign += ep->foreign_bytes;
	return bt_dist_add(&r->wait, ep->wait);
}

struct bt_table_cols bt_slice_sum_cols(void)
{
	return (struct bt_table_cols){ sum_cols, BT_TABLE_NCOLS(sum_cols) };
}

/* Processes first, then async and shared queues; by pid, device, source. */
static int cmp_row(const void *a, const void *b)
{
	const struct bt_group_key *x = a, *y = b;
	int32_t xpid = (int32_t)x->pid, ypid = (int32_t)y->pid;

	if (SUB_QUEUE(x->sub) != SUB_QUEUE(y->sub))
		return SUB_QUEUE(x->sub) < SUB_QUEUE(y->sub) ? -1 : 1;
	if (xpid != ypid)
		return xpid < ypid ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return (int)SUB_SOURCE(x->sub) - (int)SUB_SOURCE(y->sub);
}

int bt_slice_sum_table(struct bt_slice_sum *s, struct bt_table *t,
		       const struct bt_slice *sl, int from,
		       const struct bt_reader *r)
{
	struct bt_group_key k;
	struct sum_row *x;
	int n = 0;

	bt_group_sort(s->rows, cmp_row);
	for (size_t i = 0; (x = bt_group_at(s->rows, i, &k)); i++) {
		int32_t pid = (int32_t)k.pid;
		unsigned source = SUB_SOURCE(k.sub);

		if (!bt_slice_wanted(sl, from, k.dev, source))
			continue;
		put_pid(t, pid);
		put_comm(t, r, pid, SUB_QUEUE(k.sub));
		bt_table_str(t, source == BT_SLICE_MESSAGES ? "messages" :
							      "events");
		bt_table_u64(t, x->episodes);
		bt_table_u64(t, x->censored);
		bt_table_us(t, x->total);
		bt_table_dist(t, &x->wait);
		if (x->episodes)
			bt_table_double(t, x->total ? (double)x->idle /
						      (double)x->total : 0.0, 3);
		else
			bt_table_empty(t, 1);	/* no wait: no share of it */
		bt_table_u64(t, x->foreign);
		bt_table_end_row(t);
		n++;
	}
	return n;
}

void bt_slice_sum_free(struct bt_slice_sum *s)
{
	if (!s)
		return;
	bt_group_free_dists(s->rows, offsetof(struct sum_row, wait));
	free(s);
}
