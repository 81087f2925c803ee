// SPDX-License-Identifier: MIT
/*
 * lat.c - latency distributions (btkit(7) "Latency") per device, owner
 * and op from the tracker's requests: q2c, q2d, d2c, q2g, g2i and i2d,
 * one sample per completed request, or weighted as btt 1.2.0 weights
 * them, so the means are its "All Devices" averages: q2c, q2d and d2c
 * once per bio contained in the request (not for a bio split across
 * requests, which btt never finds inside one), q2g, g2i and i2d as the
 * G, I and D events come, q2q, q2m and m2d per bio, requests without
 * data left out and a non-positive delta counted as 1 ns.  The analysis
 * takes the tracker's done callback (bt_lat_attach) and every event with
 * the request it touched (bt_lat_feed).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "btkit.h"
#include "internal.h"
#include "stats_int.h"

#define DEFAULT_GROUPS	1024		/* devices x processes with rows */

static const char op_names[BT_LAT_NOPS][4] = {
	"R", "W", "D", "F", "N", "all",
};
static const char metric_names[BT_LAT_NMETRICS][4] = {
	"q2c", "q2d", "d2c", "q2g", "g2i", "i2d", "q2q", "q2m", "m2d",
};

/*
 * m[BT_LAT_ALL] holds the union of the op rows, but is built from them
 * only when the rows are listed (bt_lat_rows): adding each sample twice
 * as it comes cost a third of the analysis.  q2q is the exception, fed
 * as it comes: its `all` row times each Q from the previous Q of any op.
 */
struct grp {
	struct bt_dist m[BT_LAT_NOPS][BT_LAT_NMETRICS];
	uint64_t last_q[BT_LAT_NOPS];	/* ns: latest Q of the row */
	uint32_t has_q;			/* bit 1 << op: last_q[op] is set */
};

/* The actions feed_btt() times. */
#define BTT_ACTIONS	(1u << BT_A_QUEUE | 1u << BT_A_BACKMERGE | \
			 1u << BT_A_FRONTMERGE | 1u << BT_A_GETRQ | \
			 1u << BT_A_INSERT | 1u << BT_A_ISSUE)

struct bt_lat {
	struct bt_lat_opts o;
	struct bt_group *g;	/* struct grp by dev and owner pid */
	struct bt_lat_stats st;	/* but the event counts, from acts */
	uint64_t acts[32];	/* events by action */
	/* BTT_ACTIONS with btt weighting and no per-request callback, else 0 */
	uint32_t btt_acts;
	/* the last row looked up: most events in a row are one owner's */
	struct grp *last;
	uint32_t last_dev, last_pid;
	int nomem;
};

const char *bt_lat_op_name(int op)
{
	return op >= 0 && op < BT_LAT_NOPS ? op_names[op] : NULL;
}

const char *bt_lat_metric_name(int metric)
{
	return metric >= 0 && metric < BT_LAT_NMETRICS ?
	       metric_names[metric] : NULL;
}

int bt_lat_new(struct bt_lat **out, const struct bt_lat_opts *opts)
{
	struct bt_lat *l;

	if (!out)
		return -EINVAL;
	*out = NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	if (opts)
		l->o = *opts;
	if (!l->o.max_groups)
		l->o.max_groups = DEFAULT_GROUPS;
	if (l->o.has_pid)
		l->o.per_pid = 1;
	l->btt_acts = l->o.btt && !l->o.request ? BTT_ACTIONS : 0;
	if (bt_group_new(&l->g, sizeof(struct grp)) < 0) {
		free(l);
		return -ENOMEM;
	}
	*out = l;
	return 0;
}

__attribute__((noinline))
static struct grp *grp_lookup(struct bt_lat *l, uint32_t dev, uint32_t pid)
{
	struct grp *x;

	/* A row is up to 20 KB: past max_groups, one row for the rest. */
	if (bt_group_count(l->g) >= l->o.max_groups && pid != BT_LAT_OTHERS &&
	    !bt_group_find(l->g, dev, pid, 0))
		pid = BT_LAT_OTHERS;
	x = bt_group_get(l->g, dev, pid, 0);
	if (!x)
		l->nomem = 1;
	/* Adding a group may move the others: remember only this one. */
	l->last = x;
	l->last_dev = dev;
	l->last_pid = pid;
	return x;
}

/* Most events in a row are one owner's: that row, inline. */
static inline struct grp *grp_get(struct bt_lat *l, uint32_t dev,
				  uint32_t pid)
{
	if (!l->o.per_pid)
		pid = 0;
	if (__builtin_expect(l->last && l->last_dev == dev &&
			     l->last_pid == pid, 1))
		return l->last;
	return grp_lookup(l, dev, pid);
}

/*
 * The row of an op letter: a table lookup, where a switch took a range
 * check and a jump table's load.  Kept xor BT_LAT_N, so that the letters
 * not listed, zero in the table, come out as BT_LAT_N.
 */
static int op_index(char op)
{
	static const uint8_t rows[256] = {
		['R'] = BT_LAT_R ^ BT_LAT_N, ['W'] = BT_LAT_W ^ BT_LAT_N,
		['D'] = BT_LAT_D ^ BT_LAT_N, ['F'] = BT_LAT_F ^ BT_LAT_N,
	};

	return rows[(unsigned char)op] ^ BT_LAT_N;
}

static int have(uint64_t a, uint64_t b)
{
	return a != BT_TIME_NONE && b != BT_TIME_NONE;
}

uint64_t bt_lat_delta(const struct bt_lat *l, uint64_t from, uint64_t to)
{
	if (to > from)
		return to - from;
	/* btt's tdelta: a non-positive difference counts as 1 ns. */
	return l && l->o.btt ? 1 : 0;
}

static void add(struct bt_lat *l, struct bt_dist *d, uint64_t v, uint64_t n)
{
	if (bt_dist_add_n(d, v, n) < 0)
		l->nomem = 1;
}

/* One sample, the common case (a distribution past its exact ones) inline. */
static inline void add1(struct bt_lat *l, struct bt_dist *d, uint64_t v)
{
	if (d->buckets)
		bt_dist_add_bucketed(d, v);
	else if (bt_dist_add(d, v) < 0)
		l->nomem = 1;
}

/* bt_lat_delta() with btt's weighting. */
static inline uint64_t btt_delta(uint64_t from, uint64_t to)
{
	return to > from ? to - from : 1;
}

/*
 * The bios of a request past the times it kept, from the sum of their
 * offsets from q: n - rem of them at base and rem at base + 1 (ns), so
 * that the sum stays exact.  Rare: a request keeps BT_RQ_QLIST times.
 */
__attribute__((noinline))
static void add_rest(struct bt_lat *l, struct bt_dist *d, uint64_t q,
		     uint64_t rest, uint64_t n, uint64_t to)
{
	uint64_t base = q + rest / n, rem = rest % n;

	add(l, d, btt_delta(base + 1, to), rem);
	add(l, d, btt_delta(base, to), n - rem);
}

/*
 * btt's samples of one completed request: q2c and q2d per bio, from its
 * kept Q time (BT_TIME_NONE: not a bio; bit k of qsplit: a piece of a
 * split bio, which btt never finds inside one request) or past the list
 * from add_rest(), and d2c for the bios but the split ones.  One pass
 * over the list for both.
 */
static void add_request_btt(struct bt_lat *l, struct bt_dist *m,
			    const struct bt_request *rq)
{
	const int qc = have(rq->q, rq->c), qd = have(rq->q, rq->d);
	uint64_t rest = rq->q_off_sum, n = rq->nbios;

	for (uint32_t k = 0; k < rq->nqlist && (qc || qd); k++) {
		uint64_t t = rq->qlist[k];

		if (t == BT_TIME_NONE)
			continue;
		if (!((rq->qsplit >> k) & 1)) {
			if (qc)
				add1(l, &m[BT_LAT_Q2C], btt_delta(t, rq->c));
			if (qd)
				add1(l, &m[BT_LAT_Q2D], btt_delta(t, rq->d));
		}
		rest -= t - rq->q;
		n--;
	}
	if (n && qc)
		add_rest(l, &m[BT_LAT_Q2C], rq->q, rest, n, rq->c);
	if (n && qd)
		add_rest(l, &m[BT_LAT_Q2D], rq->q, rest, n, rq->d);
	if (have(rq->d, rq->c))
		/* split bios are rare: no popcount call for none */
		add(l, &m[BT_LAT_D2C], btt_delta(rq->d, rq->c),
		    rq->nbios - (rq->qsplit ? (uint32_t)
		    __builtin_popcount(rq->qsplit) : 0));
}

/* The samples of one completed request into the distributions m of a row. */
static void add_request(struct bt_lat *l, struct bt_dist *m,
			const struct bt_request *rq)
{
	if (have(rq->q, rq->c))
		add1(l, &m[BT_LAT_Q2C], bt_lat_delta(l, rq->q, rq->c));
	if (have(rq->q, rq->d))
		add1(l, &m[BT_LAT_Q2D], bt_lat_delta(l, rq->q, rq->d));
	if (have(rq->d, rq->c))
		add1(l, &m[BT_LAT_D2C], bt_lat_delta(l, rq->d, rq->c));
	if (have(rq->q, rq->g))
		add1(l, &m[BT_LAT_Q2G], bt_lat_delta(l, rq->q, rq->g));
	if (have(rq->g, rq->i))
		add1(l, &m[BT_LAT_G2I], bt_lat_delta(l, rq->g, rq->i));
	if (have(rq->i, rq->d))
		add1(l, &m[BT_LAT_I2D], bt_lat_delta(l, rq->i, rq->d));
}

static void on_done(const struct bt_request *rq, void *arg)
{
	struct bt_lat *l = arg;
	struct grp *g;

	if (l->o.has_pid && rq->pid != l->o.pid)
		return;
	if (rq->flags & (BT_RQ_EXPIRED | BT_RQ_OPEN))
		return;
	l->st.completed++;
	if (l->o.request) {
		struct bt_lat_req r = { .rq = rq };
		const uint64_t from[3] = { rq->q, rq->d, rq->q };
		const uint64_t to[3] = { rq->d, rq->c, rq->c };
		uint64_t *out[3] = { &r.q2d, &r.d2c, &r.q2c };

		r.start = rq->q != BT_TIME_NONE ? rq->q :
			  rq->g != BT_TIME_NONE ? rq->g :
			  rq->i != BT_TIME_NONE ? rq->i :
			  rq->d != BT_TIME_NONE ? rq->d : rq->c;
		for (int k = 0; k < 3; k++)
			*out[k] = have(from[k], to[k]) ?
				  bt_lat_delta(l, from[k], to[k]) :
				  BT_TIME_NONE;
		l->o.request(&r, l->o.arg);
		return;
	}
	/* btt ignores events without data and bios it never saw. */
	if (l->o.btt && (!rq->bytes || !rq->nbios))
		return;
	g = grp_get(l, rq->dev, rq->pid);
	if (!g)
		return;
	if (l->o.btt)
		add_request_btt(l, g->m[op_index(rq->op)], rq);
	else
		add_request(l, g->m[op_index(rq->op)], rq);
}

void bt_lat_attach(struct bt_lat *l, struct bt_tracker_opts *to)
{
	if (!l || !to)
		return;
	to->done = on_done;
	to->arg = l;
}

/*
 * m2d: one sample per bio merged into the request, from its kept M or F
 * time (BT_TIME_NONE: the front merge the I is timed on), then the
 * others past the list.
 */
static void add_m2d(struct bt_lat *l, struct bt_dist *d,
		    const struct bt_request *rq, uint64_t to)
{
	uint64_t rest = rq->m_off_sum, n = rq->nmerged;

	for (uint32_t k = 0; k < rq->nmlist; k++) {
		uint64_t t = rq->mlist[k];

		if (t == BT_TIME_NONE)
			continue;
		add1(l, d, btt_delta(t, to));
		rest -= t - rq->q;
		n--;
	}
	if (n)
		add_rest(l, d, rq->q, rest, n, to);
}

/*
 * btt times q2g, g2i and i2d as the events come, on the request's first
 * bio: once per G, once per I (a requeued request is inserted again, and
 * each I is timed from the one G) and once per D (from the latest I), so
 * a request that never completes still gives the stages it went through.
 * Each Q with data gives q2q, each merge of a bio it saw queued q2m, and
 * each D m2d for every bio merged into the request (but the one the I
 * is timed on).  It ignores events without data and requests whose
 * first bio it never saw queued.  Out of line, so that the checks every
 * event goes through in bt_lat_feed() stay cheap.
 */
/* The op's distributions in rq's row, or NULL without memory. */
static inline struct bt_dist *row_of(struct bt_lat *l,
				     const struct bt_request *rq)
{
	struct grp *g = grp_get(l, rq->dev, rq->pid);

	return g ? g->m[op_index(rq->op)] : NULL;
}

__attribute__((noinline))
static int feed_btt(struct bt_lat *l, const struct bt_event *ev,
		    const struct bt_request *rq)
{
	const uint64_t t = ev->time;
	struct bt_dist *m;
	struct grp *g;
	uint64_t from;
	int op;

	if (!ev->bytes || !rq->nbios || rq->q == BT_TIME_NONE)
		return 0;
	if (l->o.has_pid && rq->pid != l->o.pid)
		return 0;
	/* each case finds its start before grp_get(), which may add a row */
	switch (ev->action) {
	case BT_A_QUEUE:
		/* q2q: from the row's previous Q, per op and for the device */
		g = grp_get(l, rq->dev, rq->pid);
		if (!g)
			return -ENOMEM;
		op = op_index(rq->op);
		/* a dump's first event is at time 0: no 0 sentinel here */
		if (g->has_q & 1u << op)
			add1(l, &g->m[op][BT_LAT_Q2Q],
			     btt_delta(g->last_q[op], t));
		if (g->has_q & 1u << BT_LAT_ALL)
			add1(l, &g->m[BT_LAT_ALL][BT_LAT_Q2Q],
			     btt_delta(g->last_q[BT_LAT_ALL], t));
		g->last_q[op] = t;
		g->last_q[BT_LAT_ALL] = t;
		g->has_q |= 1u << op | 1u << BT_LAT_ALL;
		break;
	case BT_A_BACKMERGE:
	case BT_A_FRONTMERGE:
		from = rq->merged_q;
		if (from == BT_TIME_NONE)
			return 0;
		if (!(m = row_of(l, rq)))
			return -ENOMEM;
		add1(l, &m[BT_LAT_Q2M], btt_delta(from, t));
		break;
	case BT_A_GETRQ:
		if (!(m = row_of(l, rq)))
			return -ENOMEM;
		add1(l, &m[BT_LAT_Q2G], btt_delta(rq->q, t));
		break;
	case BT_A_INSERT:
		/* timed on the first bio: none when a front merge came first */
		from = rq->g;
		if (rq->flags & BT_RQ_FRONT || from == BT_TIME_NONE)
			return 0;
		if (!(m = row_of(l, rq)))
			return -ENOMEM;
		add1(l, &m[BT_LAT_G2I], btt_delta(from, t));
		break;
	case BT_A_ISSUE:
		/* a D gives m2d even without an I */
		if (!(m = row_of(l, rq)))
			return -ENOMEM;
		add_m2d(l, &m[BT_LAT_M2D], rq, t);
		/* and a split first bio is never inside the D */
		from = rq->i_last;
		if (from != BT_TIME_NONE && !(rq->qsplit & 1))
			add1(l, &m[BT_LAT_I2D], btt_delta(from, t));
		break;
	default:
		return 0;
	}
	return l->nomem ? -ENOMEM : 0;
}

int bt_lat_feed(struct bt_lat *l, const struct bt_event *ev,
		const struct bt_request *rq)
{
	if (!l || !ev)
		return -EINVAL;
	if (ev->category & (BT_TC_NOTIFY | BT_TC_PC))
		return 0;
	if (ev->action >= 32)
		return 0;
	/* counted by action, summed into the stats when asked */
	l->acts[ev->action]++;
	if (!((l->btt_acts >> ev->action) & 1) || !rq)
		return 0;
	return feed_btt(l, ev, rq);
}

void bt_lat_get_stats(const struct bt_lat *l, struct bt_lat_stats *st)
{
	if (!l || !st)
		return;
	*st = l->st;
	st->q = l->acts[BT_A_QUEUE];
	st->m = l->acts[BT_A_BACKMERGE] + l->acts[BT_A_FRONTMERGE];
	st->g = l->acts[BT_A_GETRQ];
	st->i = l->acts[BT_A_INSERT];
	st->d = l->acts[BT_A_ISSUE];
	st->c = l->acts[BT_A_COMPLETE];
	st->rows = 0;
	for (size_t i = 0; i < bt_group_count(l->g); i++) {
		const struct grp *g = bt_group_at(l->g, i, NULL);

		for (int k = 0; k < BT_LAT_NMETRICS; k++) {
			uint64_t any = g->m[BT_LAT_ALL][k].n;

			for (int op = 0; op < BT_LAT_ALL; op++) {
				st->rows += g->m[op][k].n != 0;
				any |= g->m[op][k].n;
			}
			/* an `all` row not built yet has samples if an op has */
			st->rows += any != 0;
		}
	}
	st->nomem = l->nomem;
}

/* The `all` rows (but q2q's) from the op rows, again for each listing. */
static int build_all(struct grp *g)
{
	for (int k = 0; k < BT_LAT_NMETRICS; k++) {
		struct bt_dist *all = &g->m[BT_LAT_ALL][k];

		if (k == BT_LAT_Q2Q)
			continue;
		bt_dist_free(all);
		for (int op = 0; op < BT_LAT_ALL; op++)
			if (bt_dist_merge(all, &g->m[op][k]) < 0)
				return -ENOMEM;
	}
	return 0;
}

int bt_lat_rows(struct bt_lat *l,
		void (*row)(const struct bt_lat_row *r, void *arg), void *arg)
{
	struct bt_group_key key;
	struct grp *g;
	int n = 0;

	if (!l || !row)
		return -EINVAL;
	bt_group_sort(l->g, NULL);
	l->last = NULL;
	for (size_t i = 0; (g = bt_group_at(l->g, i, &key)); i++) {
		if (build_all(g) < 0)
			l->nomem = 1;
		for (int op = 0; op < BT_LAT_NOPS; op++) {
			for (int k = 0; k < BT_LAT_NMETRICS; k++) {
				struct bt_lat_row r = {
					.dev = key.dev, .pid = key.pid,
					.op = op, .metric = k,
					.d = &g->m[op][k],
				};

				if (!r.d->n)
					continue;
				row(&r, arg);
				n++;
			}
		}
	}
	return n;
}

void bt_lat_free(struct bt_lat *l)
{
	struct grp *g;

	if (!l)
		return;
	for (size_t i = 0; (g = bt_group_at(l->g, i, NULL)); i++)
		for (int op = 0; op < BT_LAT_NOPS; op++)
			for (int k = 0; k < BT_LAT_NMETRICS; k++)
				bt_dist_free(&g->m[op][k]);
	bt_group_free(l->g);
	free(l);
}

/*
 * btlat's tables, here so that btlat and btplot's report print the same:
 * the distributions per device (and owner), and one row per request.
 */
static const char *const dev_cols[] = {
	"dev", "op", "metric", "n", "mean_us", "p50_us", "p90_us",
	"p99_us", "p999_us", "max_us",
};
static const char *const pid_cols[] = {
	"dev", "pid", "comm", "op", "metric", "n", "mean_us", "p50_us",
	"p90_us", "p99_us", "p999_us", "max_us",
};
static const char *const req_cols[] = {
	"time_s", "pid", "comm", "op", "sector", "bytes", "q2d_us",
	"d2c_us", "q2c_us",
};

struct lat_table {
	const struct bt_lat *l;
	struct bt_table *t;
	const struct bt_reader *r;
};

struct bt_table_cols bt_lat_cols(const struct bt_lat *l)
{
	if (l->o.per_pid)
		return (struct bt_table_cols){ pid_cols, BT_TABLE_NCOLS(pid_cols) };
	return (struct bt_table_cols){ dev_cols, BT_TABLE_NCOLS(dev_cols) };
}

static void put_row(const struct bt_lat_row *row, void *arg)
{
	static const double qs[4] = { 0.5, 0.9, 0.99, 0.999 };
	const struct lat_table *x = arg;
	struct bt_table *t = x->t;

	bt_table_dev(t, row->dev);
	if (x->l->o.per_pid && row->pid == BT_LAT_OTHERS) {
		bt_table_none(t);
		bt_table_str(t, "(others)");
	} else if (x->l->o.per_pid) {
		bt_table_u64(t, row->pid);
		bt_table_comm(t, x->r, row->pid);
	}
	bt_table_str(t, bt_lat_op_name(row->op));
	bt_table_str(t, bt_lat_metric_name(row->metric));
	bt_table_u64(t, row->d->n);
	bt_table_double(t, bt_dist_mean(row->d) / 1000.0, 3);
	for (int j = 0; j < 4; j++)
		bt_table_us(t, bt_dist_quantile(row->d, qs[j]));
	bt_table_us(t, row->d->max);
	bt_table_end_row(t);
}

int bt_lat_table(struct bt_lat *l, struct bt_table *t,
		 const struct bt_reader *r)
{
	struct lat_table x = { l, t, r };

	return bt_lat_rows(l, put_row, &x);
}

struct bt_table_cols bt_lat_req_cols(void)
{
	return (struct bt_table_cols){ req_cols, BT_TABLE_NCOLS(req_cols) };
}

void bt_lat_req_row(struct bt_table *t, const struct bt_lat_req *e,
		    uint64_t origin)
{
	const struct bt_request *rq = e->rq;
	char op[2] = { rq->op, '\0' };
	const uint64_t v[3] = { e->q2d, e->d2c, e->q2c };

	bt_table_s(t, e->start > origin ? e->start - origin : 0);
	bt_table_u64(t, rq->pid);
	bt_table_str(t, rq->comm[0] ? rq->comm : "-");
	bt_table_str(t, op);
	bt_table_u64(t, rq->sector);
	bt_table_u64(t, rq->bytes);
	for (int k = 0; k < 3; k++) {
		if (v[k] != BT_TIME_NONE)
			bt_table_us(t, v[k]);
		else
			bt_table_none(t);
	}
	bt_table_end_row(t);
}
