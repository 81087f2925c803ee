// SPDX-License-Identifier: MIT
/*
 * sync.c - fdatasync/fsync episodes: from a process's first sync write (or
 * flush) to the completion of the flush that made its data durable.  The
 * flush is often not the process's own: ext4 and ext3 hand the commit to a
 * journal thread (jbd2/sda1-8, kjournald), whose commit block carries
 * PREFLUSH and FUA and closes every episode waiting on that device; the
 * journal thread's own commits are its episodes, flagged journal.  Data
 * writes are followed as sector ranges rather than requests, because they
 * are merged into other requests (even other processes'), split, and
 * completed in pieces; a range is done when completions covered it.
 * Before 2.6.37 the FLUSH category bit meant BARRIER: a barrier write is a
 * data-bearing flush and is treated as one.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "btkit.h"
#include "internal.h"

#define MAX_RANGES	64	/* outstanding write ranges per episode */
#define MAX_DEVS	64	/* devices whose last flush dispatch is kept */
#define DEFAULT_NOFLUSH	5000000000ull

struct range {
	uint64_t sector;	/* 512-byte sectors */
	uint64_t end;		/* 512-byte sectors, exclusive */
	uint64_t left;		/* bytes not yet completed */
};

struct episode {
	uint32_t dev, pid;
	uint64_t open;		/* ns */
	uint64_t data_done;	/* ns */
	uint64_t data_bytes;
	uint32_t flags;		/* BT_SYNC_* gathered so far */
	uint32_t nr;		/* ranges in use */
	/* the flush that will close the episode */
	uint8_t has_cand;
	uint32_t cand_flags;	/* BT_SYNC_SELF / JOURNAL / FUA */
	uint32_t closer;
	uint64_t cand_q;	/* ns */
	uint64_t cand_sector;
	uint32_t cand_bytes;
	struct range r[MAX_RANGES];	/* last: not cleared on reuse */
};

struct bt_sync {
	struct bt_sync_opts o;
	uint32_t *journal;	/* copy of opts journal_pids */
	struct episode **ep;	/* open episodes (few at a time) */
	size_t nep, capep;
	struct episode *spare;	/* freed episodes kept for reuse */
	uint64_t now;
	/*
	 * opts.follow: the reader delivers only what can open an episode
	 * (narrow) while none is open, from the second event fed on
	 * (following), so that the first event is the caller's origin.
	 */
	uint8_t following, narrow;
	/* per device: when the last empty flush request was dispatched */
	uint32_t fdev[MAX_DEVS];
	uint64_t fd_time[MAX_DEVS];	/* ns */
	size_t nfdev;
};

/* The device's last flush dispatch, NULL when it has no place (yet). */
static uint64_t *flush_d_find(struct bt_sync *s, uint32_t dev)
{
	for (size_t i = 0; i < s->nfdev; i++)
		if (s->fdev[i] == dev)
			return &s->fd_time[i];
	return NULL;
}

/* The same, with a place made for a flush dispatched. */
static uint64_t *flush_d(struct bt_sync *s, uint32_t dev)
{
	uint64_t *fd = flush_d_find(s, dev);

	if (fd || s->nfdev == MAX_DEVS)
		return fd;
	s->fdev[s->nfdev] = dev;
	s->fd_time[s->nfdev] = 0;
	return &s->fd_time[s->nfdev++];
}

/*
 * Does completion ev finish the flush an episode waits for?  A data-bearing
 * flush completes at its sector.  An empty one completes with the first
 * flush request (C FN) dispatched after it was queued: blk-flush makes a
 * preflush that arrives while a flush is in flight wait for the next one.
 * A device without a volatile cache gets no flush request at all; then
 * the completion of the empty request itself (C WS 0) is the end.
 */
static int closes(const struct episode *e, const struct bt_event *ev,
		  uint64_t last_fd)
{
	uint64_t cs = ev->sector, ce = ev->sector + ev->bytes / 512;

	if (ev->time < e->cand_q)
		return 0;
	if (e->cand_bytes)
		return ev->bytes > 0 && cs <= e->cand_sector &&
		       e->cand_sector < ce;
	if (ev->bytes)
		return 0;
	if (ev->category & BT_TC_FLUSH)
		return last_fd >= e->cand_q;
	return (ev->category & BT_TC_WRITE) && last_fd < e->cand_q;
}

int bt_sync_is_journal(const char *comm)
{
	/* Every Q asks: the first letter rules out most names without a call. */
	if (!comm || (comm[0] != 'j' && comm[0] != 'k'))
		return 0;
	return strncmp(comm, "jbd2/", 5) == 0 ||
	       strncmp(comm, "kjournald", 9) == 0;
}

static int is_journal(const struct bt_sync *s, uint32_t pid, const char *comm)
{
	for (size_t i = 0; i < s->o.njournal; i++)
		if (s->journal[i] == pid)
			return 1;
	return bt_sync_is_journal(comm);
}

/*
 * No episode open (with opts.follow): the reader sets aside what cannot
 * open one, everything but the Q of a sync write or flush and a flush's
 * D (feed_event() returns at once for the others), and no pass-through
 * command, so that none of the events it sets aside is one the caller
 * would not have fed.
 */
static void narrow(struct bt_sync *s)
{
	struct bt_reader *r = s->o.follow;

	bt_reader_set_actions(r, 0);
	for (uint32_t a = 0; a < 32; a++)
		bt_reader_set_action(r, a, BT_TC_PC);
	bt_reader_set_action(r, BT_A_QUEUE, BT_TC_PC | BT_TC_FLUSH |
				 BT_TC_FUA | BT_TC_SYNC);
	bt_reader_set_action(r, BT_A_ISSUE, BT_TC_PC | BT_TC_FLUSH);
	s->narrow = 1;
}

/*
 * An episode opened: any event's time can now close it (expire()).  Fed,
 * the events set aside while none was open would only have moved the
 * time on.
 */
static void widen(struct bt_sync *s)
{
	uint64_t t = bt_reader_aside_time(s->o.follow);

	if (t > s->now)
		s->now = t;
	bt_reader_set_actions(s->o.follow, ~0u);
	s->narrow = 0;
}

static struct episode *find(const struct bt_sync *s, uint32_t dev,
			    uint32_t pid, size_t *idx)
{
	for (size_t i = 0; i < s->nep; i++) {
		if (s->ep[i]->dev == dev && s->ep[i]->pid == pid) {
			if (idx)
				*idx = i;
			return s->ep[i];
		}
	}
	return NULL;
}

static struct episode *open_ep(struct bt_sync *s, uint32_t dev, uint32_t pid,
			       uint64_t t)
{
	struct episode *e;

	if (s->nep == s->capep) {
		size_t cap = s->capep ? s->capep * 2 : 8;
		struct episode **n = realloc(s->ep, cap * sizeof(*n));

		if (!n)
			return NULL;
		s->ep = n;
		s->capep = cap;
	}
	if (s->spare) {
		e = s->spare;
		s->spare = NULL;
	} else {
		e = malloc(sizeof(*e));
		if (!e)
			return NULL;
	}
	memset(e, 0, offsetof(struct episode, r));
	e->dev = dev;
	e->pid = pid;
	e->open = t;
	e->data_done = t;
	s->ep[s->nep++] = e;
	if (s->narrow)
		widen(s);
	return e;
}

/* Close episode i at time close, hand it out, forget it. */
static void close_ep(struct bt_sync *s, size_t i, uint64_t close,
		     uint32_t flags)
{
	struct episode *e = s->ep[i];
	struct bt_sync_ep out;

	memset(&out, 0, sizeof(out));
	out.open = e->open;
	out.data_done = e->data_done < e->open ? e->open : e->data_done;
	out.close = close < out.data_done ? out.data_done : close;
	out.lat = out.close - out.open;
	out.data = out.data_done - out.open;
	out.flush = out.close - out.data_done;
	out.data_bytes = e->data_bytes;
	out.dev = e->dev;
	out.pid = e->pid;
	out.flags = e->flags | flags;
	if (!(flags & (BT_SYNC_NOFLUSH | BT_SYNC_CENSORED))) {
		out.closer = e->closer;
		out.flags |= e->cand_flags;
	}
	s->ep[i] = s->ep[--s->nep];
	if (!s->nep && s->following)
		narrow(s);
	if (!s->spare)
		s->spare = e;
	else
		free(e);
	s->o.episode(&out, s->o.arg);
}

static void add_range(struct episode *e, uint64_t sector, uint32_t bytes)
{
	uint64_t end = sector + bytes / 512;
	struct range *r;

	e->data_bytes += bytes;
	/* Contiguous bios (writeback of a file) coalesce into one range. */
	if (e->nr && e->r[e->nr - 1].end == sector) {
		e->r[e->nr - 1].end = end;
		e->r[e->nr - 1].left += bytes;
		return;
	}
	if (e->nr == MAX_RANGES) {
		/* Too scattered to follow: latency would be a guess. */
		e->flags |= BT_SYNC_INVALID;
		r = &e->r[e->nr - 1];
		if (sector < r->sector)
			r->sector = sector;
		if (end > r->end)
			r->end = end;
		r->left += bytes;
		return;
	}
	r = &e->r[e->nr++];
	r->sector = sector;
	r->end = end;
	r->left = bytes;
}

static void set_cand(struct episode *e, const struct bt_event *ev,
		     uint32_t flags)
{
	e->has_cand = 1;
	e->cand_flags = flags;
	e->closer = ev->pid;
	e->cand_q = ev->time;
	e->cand_sector = ev->sector;
	e->cand_bytes = ev->bytes;
}

static int is_flush(const struct bt_event *ev)
{
	return (ev->category & (BT_TC_FLUSH | BT_TC_FUA)) != 0;
}

/*
 * Out of line, as feed_complete(): bt_sync_feed() then saves no registers
 * for the G, M, I and D events, which pass through it doing nothing.
 */
__attribute__((noinline))
static int feed_queue(struct bt_sync *s, const struct bt_event *ev,
		      const char *comm)
{
	size_t i;
	struct episode *e;
	/* only a flush asks who queued it */
	int flush = is_flush(ev), journal = flush && is_journal(s, ev->pid, comm);

	if (flush && (journal || s->o.any_flush)) {
		/* Offer the flush to every episode whose data is done. */
		for (i = 0; i < s->nep; i++) {
			e = s->ep[i];
			if (e->dev == ev->dev && e->pid != ev->pid &&
			    !e->has_cand && e->nr == 0)
				set_cand(e, ev, BT_SYNC_JOURNAL);
		}
	}
	/*
	 * The journal thread's own commit (journal blocks, then the commit
	 * block with PREFLUSH and FUA) is an episode of its own, flagged
	 * journal: on ext4 it is the durability latency there is to see
	 * when nobody else flushes.
	 */
	e = find(s, ev->dev, ev->pid, &i);
	if (flush) {
		if (!e && !(e = open_ep(s, ev->dev, ev->pid, ev->time)))
			return -ENOMEM;
		if (e->has_cand)
			return 0;	/* a second flush: the first one counts */
		if (ev->bytes > 0) {
			set_cand(e, ev, journal ? BT_SYNC_JOURNAL : BT_SYNC_FUA);
			e->data_bytes += ev->bytes;	/* it carries data */
		}
		else if (e->nr == 0)
			set_cand(e, ev, journal ? BT_SYNC_JOURNAL : BT_SYNC_SELF);
		/* an empty flush before the data completed does not count */
		return 0;
	}
	if ((ev->category & BT_TC_WRITE) && (ev->category & BT_TC_SYNC) &&
	    !(ev->category & BT_TC_DISCARD) && ev->bytes > 0) {
		if (e && !e->has_cand && e->nr == 0 && e->data_bytes > 0) {
			/* Data done, no flush asked: O_DIRECT or O_SYNC
			 * writes without fdatasync.  Next write, next episode. */
			close_ep(s, i, e->data_done, BT_SYNC_NOFLUSH);
			e = NULL;
		}
		if (!e && !(e = open_ep(s, ev->dev, ev->pid, ev->time)))
			return -ENOMEM;
		if (e->has_cand)
			e->flags |= BT_SYNC_INVALID;
		add_range(e, ev->sector, ev->bytes);
		return 0;
	}
	if (e)
		e->flags |= BT_SYNC_INVALID;	/* reads, async writes meanwhile */
	return 0;
}

__attribute__((noinline))
static int feed_complete(struct bt_sync *s, const struct bt_event *ev)
{
	uint64_t cs = ev->sector, ce = ev->sector + ev->bytes / 512;
	/*
	 * Looked up, not made: a device that never dispatched a flush has
	 * none (0) to look at, and completions do not take the places of
	 * devices whose flushes come later.  With no episode open, a
	 * completion then changes nothing (narrow()).
	 */
	const uint64_t *fd = flush_d_find(s, ev->dev);
	uint64_t last_fd = fd ? *fd : 0;
	size_t i = 0;

	while (i < s->nep) {
		struct episode *e = s->ep[i];
		int closed = 0;

		if (e->dev != ev->dev) {
			i++;
			continue;
		}
		if (ev->bytes > 0 && (ev->category & BT_TC_WRITE)) {
			for (uint32_t k = 0; k < e->nr;) {
				struct range *r = &e->r[k];
				uint64_t lo = cs > r->sector ? cs : r->sector;
				uint64_t hi = ce < r->end ? ce : r->end;
				uint64_t b = hi > lo ? (hi - lo) * 512 : 0;

				if (!b) {
					k++;
					continue;
				}
				r->left = r->left > b ? r->left - b : 0;
				if (r->left == 0) {
					e->r[k] = e->r[--e->nr];
					e->data_done = ev->time;
				} else {
					k++;
				}
			}
		}
		if (e->has_cand && closes(e, ev, last_fd)) {
			close_ep(s, i, ev->time, 0);
			closed = 1;
		}
		if (!closed)
			i++;
	}
	return 0;
}

/* No flush within the window: close at the end of the data. */
static void expire(struct bt_sync *s, uint64_t now)
{
	size_t i = 0;

	while (i < s->nep) {
		struct episode *e = s->ep[i];
		uint64_t since = e->has_cand ? e->cand_q : e->data_done;

		if (e->nr == 0 && now > since && now - since > s->o.noflush_ns)
			close_ep(s, i, e->data_done, BT_SYNC_NOFLUSH);
		else
			i++;
	}
}

/* The event's own part, a leaf but for the tail calls of Q and C. */
static inline __attribute__((always_inline)) int
feed_event(struct bt_sync *s, const struct bt_event *ev, const char *comm)
{
	switch (ev->action) {
	case BT_A_QUEUE:
		/* With no episode open, only a flush or sync write can matter. */
		if (!s->nep &&
		    !(ev->category & (BT_TC_FLUSH | BT_TC_FUA | BT_TC_SYNC)))
			return 0;
		return feed_queue(s, ev, comm);
	case BT_A_ISSUE:
		if ((ev->category & BT_TC_FLUSH) && ev->bytes == 0) {
			uint64_t *fd = flush_d(s, ev->dev);

			if (fd)
				*fd = ev->time;
		}
		return 0;
	case BT_A_COMPLETE:
		return feed_complete(s, ev);
	default:
		return 0;
	}
}

/* Time moved on with episodes open: the expired ones first. */
__attribute__((noinline))
static int feed_after_expire(struct bt_sync *s, const struct bt_event *ev,
			     const char *comm)
{
	expire(s, s->now);
	return feed_event(s, ev, comm);
}

/* The first event fed, after which opts.follow is followed. */
__attribute__((noinline))
static int feed_first(struct bt_sync *s, const struct bt_event *ev,
		      const char *comm)
{
	int rc;

	s->following = 1;
	rc = bt_sync_feed(s, ev, comm);
	if (!s->nep)
		narrow(s);
	return rc;
}

int bt_sync_feed(struct bt_sync *s, const struct bt_event *ev,
		 const char *comm)
{
	if (bt_event_is_note(ev))
		return 0;
	if (__builtin_expect(s->o.follow && !s->following, 0))
		return feed_first(s, ev, comm);
	if (ev->time > s->now) {
		s->now = ev->time;
		if (s->nep)
			return feed_after_expire(s, ev, comm);
	}
	return feed_event(s, ev, comm);
}

void bt_sync_finish(struct bt_sync *s)
{
	expire(s, s->now);
	while (s->nep)
		close_ep(s, s->nep - 1, s->now, BT_SYNC_CENSORED);
}

int bt_sync_new(struct bt_sync **out, const struct bt_sync_opts *opts)
{
	struct bt_sync *s;

	*out = NULL;
	if (!opts || !opts->episode || (opts->njournal && !opts->journal_pids))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->o = *opts;
	if (!s->o.noflush_ns)
		s->o.noflush_ns = DEFAULT_NOFLUSH;
	if (opts->njournal) {
		s->journal = malloc(opts->njournal * sizeof(*s->journal));
		if (!s->journal) {
			free(s);
			return -ENOMEM;
		}
		memcpy(s->journal, opts->journal_pids,
		       opts->njournal * sizeof(*s->journal));
	}
	s->o.journal_pids = s->journal;
	*out = s;
	return 0;
}

void bt_sync_free(struct bt_sync *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nep; i++)
		free(s->ep[i]);
	free(s->ep);
	free(s->spare);
	free(s->journal);
	free(s);
}

/*
 * btsync's tables, here so that btsync and btplot's report print the same:
 * one row per episode, and the per-process summary of episodes.
 */
static const char *const sum_cols[] = {
	"pid", "comm", "episodes", "lat_mean_us", "lat_p50_us",
	"lat_p95_us", "lat_p99_us", "lat_max_us", "data_mean_us",
	"flush_mean_us", "self", "journal", "fua", "noflush", "invalid",
};
static const char *const ep_cols[] = {
	"start_s", "pid", "comm", "lat_us", "data_us", "flush_us",
	"data_bytes", "kind",
};

struct sum_row {
	uint64_t self, journal, fua, noflush, invalid;
	uint64_t data, flush;	/* ns, sums over valid episodes */
	struct bt_dist lat;	/* ns */
};

struct bt_sync_sum {
	struct bt_group *rows;	/* struct sum_row by pid */
};

/* How an episode closed, "+invalid" when its pid did other I/O meanwhile. */
static const char *kind_name(uint32_t f)
{
	static const char *const names[2][5] = {
		{ "self", "journal", "fua", "noflush", "censored" },
		{ "self+invalid", "journal+invalid", "fua+invalid",
		  "noflush+invalid", "censored+invalid" },
	};
	int inv = (f & BT_SYNC_INVALID) != 0;

	if (f & BT_SYNC_CENSORED)
		return names[inv][4];
	if (f & BT_SYNC_NOFLUSH)
		return names[inv][3];
	if (f & BT_SYNC_FUA)
		return names[inv][2];
	if (f & BT_SYNC_JOURNAL)
		return names[inv][1];
	return names[inv][0];
}

struct bt_table_cols bt_sync_ep_cols(void)
{
	return (struct bt_table_cols){ ep_cols, BT_TABLE_NCOLS(ep_cols) };
}

void bt_sync_ep_row(struct bt_table *t, const struct bt_sync_ep *ep,
		    uint64_t origin, const struct bt_reader *r)
{
	bt_table_s(t, ep->open > origin ? ep->open - origin : 0);
	bt_table_u64(t, ep->pid);
	bt_table_comm(t, r, ep->pid);
	bt_table_us(t, ep->lat);
	bt_table_us(t, ep->data);
	bt_table_us(t, ep->flush);
	bt_table_u64(t, ep->data_bytes);
	bt_table_str(t, kind_name(ep->flags));
	bt_table_end_row(t);
}

int bt_sync_sum_new(struct bt_sync_sum **out)
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

int bt_sync_sum_add(struct bt_sync_sum *s, const struct bt_sync_ep *ep)
{
	struct sum_row *r;

	if (ep->flags & BT_SYNC_CENSORED)
		return 0;	/* never closed: no latency to report */
	r = bt_group_get(s->rows, 0, ep->pid, 0);
	if (!r)
		return -ENOMEM;
	if (ep->flags & BT_SYNC_INVALID) {
		r->invalid++;
		return 0;
	}
	if (ep->flags & BT_SYNC_NOFLUSH)
		r->noflush++;
	else if (ep->flags & BT_SYNC_FUA)
		r->fua++;
	else if (ep->flags & BT_SYNC_JOURNAL)
		r->journal++;
	else
		r->self++;
	r->data += ep->data;
	r->flush += ep->flush;
	return bt_dist_add(&r->lat, ep->lat);
}

struct bt_table_cols bt_sync_sum_cols(void)
{
	return (struct bt_table_cols){ sum_cols, BT_TABLE_NCOLS(sum_cols) };
}

int bt_sync_sum_table(struct bt_sync_sum *s, struct bt_table *t,
		      const struct bt_reader *r)
{
	struct bt_group_key k;
	struct sum_row *x;
	size_t i;

	bt_group_sort(s->rows, NULL);
	for (i = 0; (x = bt_group_at(s->rows, i, &k)); i++) {
		uint64_t ep = x->lat.n;

		bt_table_u64(t, k.pid);
		bt_table_comm(t, r, k.pid);
		bt_table_u64(t, ep);
		bt_table_dist(t, &x->lat);
		if (ep) {
			bt_table_double(t, (double)x->data / (double)ep / 1000.0, 3);
			bt_table_double(t, (double)x->flush / (double)ep / 1000.0, 3);
		} else {
			bt_table_empty(t, 2);
		}
		bt_table_u64(t, x->self);
		bt_table_u64(t, x->journal);
		bt_table_u64(t, x->fua);
		bt_table_u64(t, x->noflush);
		bt_table_u64(t, x->invalid);
		bt_table_end_row(t);
	}
	return (int)i;
}

void bt_sync_sum_free(struct bt_sync_sum *s)
{
	if (!s)
		return;
	bt_group_free_dists(s->rows, offsetof(struct sum_row, lat));
	free(s);
}
