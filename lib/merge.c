// SPDX-License-Identifier: MIT
/*
 * merge.c - merge ratios (btkit(7) "Merge ratio") per device and op (R, W,
 * all), optionally per owner process: bios queued, back and front merges,
 * requests dispatched, bios per request, and the block counts of
 * completions.  q, d, ratio and blk_* follow btt's "Device Merge
 * Information" (#Q, #D, Ratio, BLKmin/avg/max, Total): Q and D events with
 * bytes, requeues counted as Qs, #Q raised to #D, blocks from completions
 * averaged over #D, and nothing of a device counted before its first Q or
 * A, because btt drops those events.  Unlike btt, cgroup-flagged events
 * count.  Bios per request come from the tracker's finished requests.
 */
#include <errno.h>
#include <stdlib.h>
#include "btkit.h"
#include "internal.h"

enum { OP_R, OP_W, OP_ALL, NOPS };
static const char *const op_name[NOPS] = { "R", "W", "all" };

enum what { Q, BACK, FRONT, D, BLK, BIOS };

struct mstat {
	union {
		struct {
			uint64_t q, back, front, d;
		};
		uint64_t n[BLK];	/* the same, indexed by enum what */
	};
	uint64_t blk_n, blk_min, blk_max, blk_total;	/* 512-byte blocks */
	uint64_t rqs, bios;	/* completed requests with bytes, their bios */
};

/* st[OP_ALL] stays zero: the `all` row is summed from R and W when listed. */
struct grp {
	struct mstat st[NOPS];
};

struct devst {
	uint8_t live;		/* a Q or A was seen (btt's culling) */
};

struct bt_merge {
	struct bt_merge_opts o;
	struct bt_group *g;	/* struct grp by dev and owner */
	struct bt_group *devs;	/* struct devst by dev */
	int err;		/* -ENOMEM met in the done callback */
	struct bt_done_link next;	/* the tracker's callback before ours */
	/*
	 * Most events are one device's and one owner's as the last: a device
	 * once live stays so, and the last row is valid until a row is added
	 * (which only add() does, and remembers) or the rows are sorted.
	 */
	uint32_t live_dev;	/* a device known live, if has_live */
	uint8_t has_live;
	uint8_t by_dev;		/* no per_pid, no has_pid: rows by device */
	struct grp *last;	/* row of (last_dev, last_pid), or NULL */
	uint32_t last_dev, last_pid;
	/*
	 * With rows by device, last_dev while last is set, else NO_ROW,
	 * which no 32-bit dev_t equals: bt_merge_feed()'s one compare for
	 * an event of the last row's device.
	 */
	uint64_t dev_row;
};

#define NO_ROW	UINT64_MAX

/*
 * Inline at each add(): a plain count is one increment at its index, not
 * a switch (an indirect jump, which the interleaved actions mispredict).
 */
static inline __attribute__((always_inline)) void
count(struct mstat *s, enum what w, uint64_t v)
{
	if (w < BLK) {
		s->n[w]++;
	} else if (w == BLK) {
		if (!s->blk_n || v < s->blk_min)
			s->blk_min = v;
		if (!s->blk_n || v > s->blk_max)
			s->blk_max = v;
		s->blk_n++;
		s->blk_total += v;
	} else {
		s->rqs++;
		s->bios += v;
	}
}

/* The row of (dev, pid) when it is not the last one: found or added. */
__attribute__((noinline))
static struct grp *row_other(struct bt_merge *m, uint32_t dev, uint32_t pid)
{
	struct grp *g = bt_group_get(m->g, dev, pid, 0);

	m->last = g;
	m->last_dev = dev;
	m->last_pid = pid;
	m->dev_row = g && m->by_dev ? dev : NO_ROW;
	return g;
}

static struct mstat *op_of(struct grp *g, uint32_t category)
{
	size_t op = (category & BT_TC_WRITE) ? OP_W : OP_R;

	return &g->st[op];
}

/* w counted in the row of (dev, pid) when it is not the last one. */
__attribute__((noinline))
static int add_other(struct bt_merge *m, uint32_t dev, uint32_t pid,
		     uint32_t category, enum what w, uint64_t v)
{
	struct grp *g = row_other(m, dev, pid);

	if (!g)
		return -ENOMEM;
	count(op_of(g, category), w, v);
	return 0;
}

/*
 * Inline at its callers: the common case, the last row again, is then a
 * few compares and an increment, with no call or register saves.
 */
static inline __attribute__((always_inline)) int
add(struct bt_merge *m, uint32_t dev, uint32_t pid, uint32_t category,
    enum what w, uint64_t v)
{
	if (m->o.has_pid && pid != m->o.pid)
		return 0;
	if (!m->o.per_pid)
		pid = 0;
	if (!m->last || m->last_dev != dev || m->last_pid != pid)
		return add_other(m, dev, pid, category, w, v);
	count(op_of(m->last, category), w, v);
	return 0;
}

static int is_live(const struct bt_merge *m, uint32_t dev)
{
	const struct devst *dv;

	if (m->has_live && dev == m->live_dev)
		return 1;
	dv = bt_group_find(m->devs, dev, 0, 0);
	return dv && dv->live;
}

/* The `all` row: R's and W's counts together. */
static void sum_ops(const struct grp *g, struct mstat *all)
{
	const struct mstat *r = &g->st[OP_R], *w = &g->st[OP_W];

	*all = *r;
	all->q += w->q;
	all->back += w->back;
	all->front += w->front;
	all->d += w->d;
	if (w->blk_n && (!r->blk_n || w->blk_min < r->blk_min))
		all->blk_min = w->blk_min;
	if (w->blk_n && (!r->blk_n || w->blk_max > r->blk_max))
		all->blk_max = w->blk_max;
	all->blk_n += w->blk_n;
	all->blk_total += w->blk_total;
	all->rqs += w->rqs;
	all->bios += w->bios;
}

static void on_done(const struct bt_request *rq, void *arg)
{
	struct bt_merge *m = arg;

	if (!(rq->flags & (BT_RQ_EXPIRED | BT_RQ_OPEN)) && rq->bytes) {
		if (is_live(m, rq->dev) &&
		    add(m, rq->dev, rq->pid, rq->category, BIOS, rq->nbios) < 0)
			m->err = -ENOMEM;
	}
	bt_done_next(&m->next, rq);
}

void bt_merge_attach(struct bt_merge *m, struct bt_tracker_opts *to)
{
	bt_done_chain(&m->next, to, on_done, m);
}

/*
 * What each action counts (enum what + 1; 0: nothing), and WITH_BYTES
 * when only an event with bytes counts: a table, not a switch, whose
 * indirect jump the interleaved actions of several streams mispredict.
 */
#define WITH_BYTES	0x80
static const uint8_t what_of[BT_A_INSERT + 1] = {
	[BT_A_QUEUE] = (Q + 1) | WITH_BYTES,
	[BT_A_REQUEUE] = Q + 1,
	[BT_A_BACKMERGE] = BACK + 1,
	[BT_A_FRONTMERGE] = FRONT + 1,
	[BT_A_ISSUE] = (D + 1) | WITH_BYTES,
	[BT_A_COMPLETE] = (BLK + 1) | WITH_BYTES,
};

/* What ev counts (*w), or 0 for nothing: no what_of, or no bytes. */
static inline __attribute__((always_inline)) int
what_counts(const struct bt_event *ev, enum what *w)
{
	unsigned k = ev->action < sizeof(what_of) ? what_of[ev->action] : 0;

	if (!k || (!ev->bytes && (k & WITH_BYTES)))
		return 0;
	*w = (enum what)((k & ~WITH_BYTES) - 1);
	return 1;
}

/* What ev counts in g, where a device's row has its counts. */
static inline __attribute__((always_inline)) void
count_event(struct grp *g, const struct bt_event *ev)
{
	enum what w;

	/* an event counts no bios: a plain count or a completion's blocks */
	if (what_counts(ev, &w))
		count(op_of(g, ev->category), w,
		      w == BLK ? ev->bytes >> 9 : 0);
}

static inline __attribute__((always_inline)) int
feed_live(struct bt_merge *m, const struct bt_event *ev,
	  const struct bt_request *rq)
{
	enum what w;

	if (!what_counts(ev, &w))
		return 0;
	if (m->by_dev)
		/* Without owners a row is a device's: no pid to pick. */
		return add_other(m, ev->dev, 0, ev->category, w,
				 w == BLK ? ev->bytes >> 9 : 0);
	if (w == BLK)
		/* C runs in interrupt context: its pid owns nothing. */
		return add(m, ev->dev, rq ? rq->pid : 0, ev->category, BLK,
			   ev->bytes >> 9);
	return add(m, ev->dev, rq ? rq->pid : ev->pid, ev->category, w, 0);
}

/* An event of a device other than the one known live. */
__attribute__((noinline))
static int feed_other_dev(struct bt_merge *m, const struct bt_event *ev,
			  const struct bt_request *rq)
{
	struct devst *dv = bt_group_get(m->devs, ev->dev, 0, 0);

	if (!dv)
		return -ENOMEM;
	if (ev->action == BT_A_QUEUE || ev->action == BT_A_REMAP)
		dv->live = 1;
	if (!dv->live)
		return 0;
	m->live_dev = ev->dev;
	m->has_live = 1;
	return feed_live(m, ev, rq);
}

/* An event with owners, or of a device other than the last row's. */
__attribute__((noinline))
static int feed_other(struct bt_merge *m, const struct bt_event *ev,
		      const struct bt_request *rq)
{
	if (!m->has_live || ev->dev != m->live_dev)
		return feed_other_dev(m, ev, rq);
	return feed_live(m, ev, rq);
}

int bt_merge_feed(struct bt_merge *m, const struct bt_event *ev,
		  const struct bt_request *rq)
{
	if (bt_event_is_note(ev) || (ev->category & BT_TC_PC))
		return 0;
	/*
	 * Without owners a row is a device's, and one is added only for a
	 * device already live: an event of the last row's device is of a
	 * live device, and counts in that row with no other test.
	 */
	if (ev->dev == m->dev_row) {
		count_event(m->last, ev);
		return 0;
	}
	return feed_other(m, ev, rq);
}

int bt_merge_rows(struct bt_merge *m,
		  void (*row)(const struct bt_merge_row *r, void *arg), void *arg)
{
	struct bt_group_key key;
	const struct grp *g;
	struct bt_merge_row out;
	struct mstat all;

	if (m->err)
		return m->err;
	bt_group_sort(m->g, NULL);
	m->last = NULL;
	m->dev_row = NO_ROW;
	for (size_t i = 0; (g = bt_group_at(m->g, i, &key)); i++) {
		sum_ops(g, &all);
		for (int op = 0; op < NOPS; op++) {
			const struct mstat *s = op == OP_ALL ? &all : &g->st[op];

			if (!s->q && !s->d && !s->back && !s->front &&
			    !s->blk_n && op != OP_ALL)
				continue;
			out.dev = key.dev;
			out.pid = key.pid;
			out.op = op_name[op];
			out.q = s->q < s->d ? s->d : s->q;
			out.back = s->back;
			out.front = s->front;
			out.d = s->d;
			out.ratio = s->d ? (double)out.q / (double)s->d : 0;
			out.bios_per_rq = s->rqs ? (double)s->bios /
						   (double)s->rqs : 0;
			out.blk_min = s->blk_min;
			out.blk_avg = s->d ? s->blk_total / s->d : 0;
			out.blk_max = s->blk_max;
			out.blk_total = s->blk_total;
			row(&out, arg);
		}
	}
	return 0;
}

int bt_merge_new(struct bt_merge **out, const struct bt_merge_opts *opts)
{
	struct bt_merge *m;

	*out = NULL;
	if (!opts)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->o = *opts;
	m->by_dev = !m->o.per_pid && !m->o.has_pid;
	m->dev_row = NO_ROW;
	if (bt_group_new(&m->g, sizeof(struct grp)) < 0 ||
	    bt_group_new(&m->devs, sizeof(struct devst)) < 0) {
		bt_merge_free(m);
		return -ENOMEM;
	}
	*out = m;
	return 0;
}

void bt_merge_free(struct bt_merge *m)
{
	if (!m)
		return;
	bt_group_free(m->g);
	bt_group_free(m->devs);
	free(m);
}

/* btmerge's table, here so that btmerge and btplot's report print the same. */
static const char *const dev_cols[] = {
	"dev", "op", "q", "back_merges", "front_merges", "d", "ratio",
	"bios_per_rq", "blk_min", "blk_avg", "blk_max", "blk_total",
};
static const char *const pid_cols[] = {
	"dev", "pid", "comm", "op", "q", "back_merges", "front_merges",
	"d", "ratio", "bios_per_rq", "blk_min", "blk_avg", "blk_max",
	"blk_total",
};

struct merge_table {
	const struct bt_merge *m;
	struct bt_table *t;
	const struct bt_reader *r;
};

struct bt_table_cols bt_merge_cols(const struct bt_merge *m)
{
	if (m->o.per_pid)
		return (struct bt_table_cols){ pid_cols, BT_TABLE_NCOLS(pid_cols) };
	return (struct bt_table_cols){ dev_cols, BT_TABLE_NCOLS(dev_cols) };
}

static void put_row(const struct bt_merge_row *x, void *arg)
{
	const struct merge_table *mt = arg;
	struct bt_table *t = mt->t;

	bt_table_dev(t, x->dev);
	if (mt->m->o.per_pid) {
		bt_table_u64(t, x->pid);
		bt_table_comm(t, mt->r, x->pid);
	}
	bt_table_str(t, x->op);
	bt_table_u64(t, x->q);
	bt_table_u64(t, x->back);
	bt_table_u64(t, x->front);
	bt_table_u64(t, x->d);
	bt_table_double(t, x->ratio, 2);
	bt_table_double(t, x->bios_per_rq, 2);
	bt_table_u64(t, x->blk_min);
	bt_table_u64(t, x->blk_avg);
	bt_table_u64(t, x->blk_max);
	bt_table_u64(t, x->blk_total);
	bt_table_end_row(t);
}

int bt_merge_table(struct bt_merge *m, struct bt_table *t,
		   const struct bt_reader *r)
{
	struct merge_table mt = { m, t, r };

	return bt_merge_rows(m, put_row, &mt);
}
