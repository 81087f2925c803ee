// SPDX-License-Identifier: MIT
/*
 * btlat - latency distributions per device and op from the rebuilt
 * requests: q2c, q2d, d2c, q2g, g2i and i2d (with --btt also q2q, q2m
 * and m2d) with count, mean and percentiles.  By default every completed request is one sample.  --btt
 * weights as btt does, so the means match its averages: q2c, q2d and d2c
 * once per bio contained in the request (so not for a bio split across
 * requests, which btt never finds inside one), q2g, g2i and i2d once
 * per request, requests without data left out, and a non-positive delta
 * counted as 1 ns.  -e prints one line per request instead, as requests
 * complete, for plotting.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"

#define MAX_GROUPS	1024		/* devices x processes with rows */
#define OTHERS		UINT32_MAX	/* pid of the row for the rest */

/* OP_ALL holds every request of the device again, as btt's averages do. */
enum { OP_R, OP_W, OP_D, OP_F, OP_N, OP_ALL, NOPS };
static const char op_name[NOPS][4] = { "R", "W", "D", "F", "N", "all" };
enum { M_Q2C, M_Q2D, M_D2C, M_Q2G, M_G2I, M_I2D, M_Q2Q, M_Q2M, M_M2D,
       NMET };
static const char met_name[NMET][4] = {
	"q2c", "q2d", "d2c", "q2g", "g2i", "i2d", "q2q", "q2m", "m2d",
};

struct grp {
	struct bt_dist m[NOPS][NMET];
	uint64_t last_q[NOPS];	/* ns: latest Q of the row, 0 none (q2q) */
};

struct lat {
	struct bt_opts o;
	bool per_pid, btt, each, has_pid;
	uint32_t want_pid;
	struct bt_group *g;	/* struct grp by dev and owner pid */
	struct bt_table *t;	/* -e: rows as requests complete */
	uint64_t first;		/* ns: first event, origin of -e times */
	int nomem;
};

static struct grp *grp_get(struct lat *l, uint32_t dev, uint32_t pid)
{
	struct grp *x;

	if (!l->per_pid)
		pid = 0;
	/* A distribution is up to 15 KB: past MAX_GROUPS, one row for the rest. */
	if (bt_group_count(l->g) >= MAX_GROUPS && pid != OTHERS &&
	    !bt_group_find(l->g, dev, pid, 0))
		pid = OTHERS;
	x = bt_group_get(l->g, dev, pid, 0);
	if (!x)
		bt_tool_nomem(&l->o);
	return x;
}

static int op_index(char op)
{
	switch (op) {
	case 'R': return OP_R;
	case 'W': return OP_W;
	case 'D': return OP_D;
	case 'F': return OP_F;
	default: return OP_N;
	}
}

static int have(uint64_t a, uint64_t b)
{
	return a != BT_TIME_NONE && b != BT_TIME_NONE;
}

/* btt's tdelta: a non-positive difference counts as 1 ns. */
static uint64_t delta(const struct lat *l, uint64_t from, uint64_t to)
{
	if (to > from)
		return to - from;
	return l->btt ? 1 : 0;
}

static void add(struct lat *l, struct bt_dist *d, uint64_t v, uint64_t n)
{
	while (n--)
		if (bt_dist_add(d, v) < 0)
			l->nomem = 1;
}

/*
 * One sample per bio of a request, from its time in list (Q or M) to
 * `to`: the kept times (BT_TIME_NONE: not a bio of the stage; bit k of
 * skip: kept out of the samples), then the bios past the list from the
 * sum of their offsets from q.
 */
static void add_spread(struct lat *l, struct bt_dist *d, uint64_t q,
		       const uint64_t *list, uint32_t nlist, uint32_t skip,
		       uint64_t total, uint64_t off_sum, uint64_t to)
{
	uint64_t rest = off_sum, n = total, base, rem;

	for (uint32_t k = 0; k < nlist; k++) {
		if (list[k] == BT_TIME_NONE)
			continue;
		if (!((skip >> k) & 1))
			add(l, d, delta(l, list[k], to), 1);
		rest -= list[k] - q;
		n--;
	}
	if (!n)
		return;
	/* Spread the remaining offsets so that the sum stays exact. */
	base = rest / n;
	rem = rest % n;
	add(l, d, delta(l, q + base + 1, to), rem);
	add(l, d, delta(l, q + base, to), n - rem);
}

/* btt never finds a split bio inside one request. */
static void add_per_bio(struct lat *l, struct bt_dist *d,
			const struct bt_request *rq, uint64_t to)
{
	add_spread(l, d, rq->q, rq->qlist, rq->nqlist, rq->qsplit, rq->nbios,
		   rq->q_off_sum, to);
}

static void print_each(struct lat *l, const struct bt_request *rq)
{
	uint64_t t0 = rq->q != BT_TIME_NONE ? rq->q :
		      rq->g != BT_TIME_NONE ? rq->g :
		      rq->i != BT_TIME_NONE ? rq->i : rq->d;
	char op[2] = { rq->op, '\0' };
	const uint64_t pairs[3][2] = {
		{ rq->q, rq->d }, { rq->d, rq->c }, { rq->q, rq->c },
	};

	if (t0 == BT_TIME_NONE)
		t0 = rq->c;
	bt_table_s(l->t, t0 > l->first ? t0 - l->first : 0);
	bt_table_u64(l->t, rq->pid);
	bt_table_str(l->t, rq->comm[0] ? rq->comm : "-");
	bt_table_str(l->t, op);
	bt_table_u64(l->t, rq->sector);
	bt_table_u64(l->t, rq->bytes);
	for (int k = 0; k < 3; k++) {
		if (have(pairs[k][0], pairs[k][1]))
			bt_table_us(l->t, delta(l, pairs[k][0], pairs[k][1]));
		else
			bt_table_str(l->t, "-");
	}
	bt_table_end_row(l->t);
}

/* The samples of one request into the distributions m of one row. */
static void add_request(struct lat *l, struct bt_dist *m,
			const struct bt_request *rq)
{
	if (l->btt) {
		if (have(rq->q, rq->c))
			add_per_bio(l, &m[M_Q2C], rq, rq->c);
		if (have(rq->q, rq->d))
			add_per_bio(l, &m[M_Q2D], rq, rq->d);
		if (have(rq->d, rq->c))
			add(l, &m[M_D2C], delta(l, rq->d, rq->c), rq->nbios -
			    (uint32_t)__builtin_popcount(rq->qsplit));
		return;
	}
	if (have(rq->q, rq->c))
		add(l, &m[M_Q2C], delta(l, rq->q, rq->c), 1);
	if (have(rq->q, rq->d))
		add(l, &m[M_Q2D], delta(l, rq->q, rq->d), 1);
	if (have(rq->d, rq->c))
		add(l, &m[M_D2C], delta(l, rq->d, rq->c), 1);
	if (have(rq->q, rq->g))
		add(l, &m[M_Q2G], delta(l, rq->q, rq->g), 1);
	if (have(rq->g, rq->i))
		add(l, &m[M_G2I], delta(l, rq->g, rq->i), 1);
	if (have(rq->i, rq->d))
		add(l, &m[M_I2D], delta(l, rq->i, rq->d), 1);
}

static void on_done(const struct bt_request *rq, void *arg)
{
	struct lat *l = arg;
	struct grp *g;

	if (l->has_pid && rq->pid != l->want_pid)
		return;
	if (rq->flags & (BT_RQ_EXPIRED | BT_RQ_OPEN))
		return;
	if (l->each) {
		print_each(l, rq);
		return;
	}
	/* btt ignores events without data and bios it never saw. */
	if (l->btt && (!rq->bytes || !rq->nbios))
		return;
	g = grp_get(l, rq->dev, rq->pid);
	add_request(l, g->m[op_index(rq->op)], rq);
	add_request(l, g->m[OP_ALL], rq);
}

/* q2q: from the row's previous Q, per op and for the device. */
static void add_q2q(struct lat *l, struct grp *g, int op, uint64_t t)
{
	const int ops[2] = { op, OP_ALL };

	for (int j = 0; j < 2; j++) {
		if (g->last_q[ops[j]])
			add(l, &g->m[ops[j]][M_Q2Q],
			    delta(l, g->last_q[ops[j]], t), 1);
		g->last_q[ops[j]] = t ? t : 1;
	}
}

/*
 * btt times q2g, g2i and i2d as the events come, on the request's first
 * bio: once per G, once per I (a requeued request is inserted again, and
 * each I is timed from the one G) and once per D (from the latest I), so
 * a request that never completes still gives the stages it went through.
 * Each Q with data gives q2q, each merge of a bio it saw queued q2m, and
 * each D m2d for every bio merged into the request (but the one the I
 * is timed on).  It ignores events without data and requests whose
 * first bio it never saw queued.
 */
static void on_event(struct lat *l, const struct bt_event *ev,
		     const struct bt_request *rq)
{
	struct grp *g;
	uint64_t from;
	int k, op = op_index(rq->op);

	if (!ev->bytes || !rq->nbios || rq->q == BT_TIME_NONE)
		return;
	if (l->has_pid && rq->pid != l->want_pid)
		return;
	switch (ev->action) {
	case BT_A_QUEUE:
		g = grp_get(l, rq->dev, rq->pid);
		add_q2q(l, g, op, ev->time);
		return;
	case BT_A_BACKMERGE:
	case BT_A_FRONTMERGE:
		k = M_Q2M, from = rq->merged_q;
		break;
	case BT_A_GETRQ:
		k = M_Q2G, from = rq->q;
		break;
	case BT_A_INSERT:
		/* timed on the first bio: none when a front merge came first */
		if (rq->flags & BT_RQ_FRONT)
			return;
		k = M_G2I, from = rq->g;
		break;
	case BT_A_ISSUE:
		g = grp_get(l, rq->dev, rq->pid);
		for (int j = 0; j < 2; j++)
			add_spread(l, &g->m[j ? OP_ALL : op][M_M2D], rq->q,
				   rq->mlist, rq->nmlist, 0, rq->nmerged,
				   rq->m_off_sum, ev->time);
		/* and a split first bio is never inside the D */
		if (rq->qsplit & 1)
			return;
		k = M_I2D, from = rq->i_last;
		break;
	default:
		return;
	}
	if (from == BT_TIME_NONE)
		return;
	g = grp_get(l, rq->dev, rq->pid);
	add(l, &g->m[op][k], delta(l, from, ev->time), 1);
	add(l, &g->m[OP_ALL][k], delta(l, from, ev->time), 1);
}

static void print(struct lat *l, struct bt_table *t,
		  const struct bt_reader *r)
{
	static const double qs[4] = { 0.5, 0.9, 0.99, 0.999 };

	struct bt_group_key key;
	struct grp *g;

	bt_group_sort(l->g, NULL);
	for (size_t i = 0; (g = bt_group_at(l->g, i, &key)); i++) {

		for (int op = 0; op < NOPS; op++) {
			for (int k = 0; k < NMET; k++) {
				struct bt_dist *d = &g->m[op][k];

				if (!d->n)
					continue;
				bt_table_dev(t, key.dev);
				if (l->per_pid && key.pid == OTHERS) {
					bt_table_str(t, "-");
					bt_table_str(t, "(others)");
				} else if (l->per_pid) {
					bt_table_u64(t, key.pid);
					bt_table_str(t, bt_tool_comm(r, key.pid));
				}
				bt_table_str(t, op_name[op]);
				bt_table_str(t, met_name[k]);
				bt_table_u64(t, d->n);
				bt_table_double(t, bt_dist_mean(d) / 1000.0, 3);
				for (int j = 0; j < 4; j++)
					bt_table_us(t, bt_dist_quantile(d, qs[j]));
				bt_table_us(t, d->max);
				bt_table_end_row(t);
				bt_dist_free(d);
			}
		}
	}
}

static void usage(const char *prog)
{
	printf("Usage: %s [options] [TRACE...]\n"
	       "Latency distributions (q2c, q2d, d2c, q2g, g2i, i2d) per device\n"
	       "and op from rebuilt requests.  No TRACE or - reads stdin.\n\n"
	       "Options (-p PID selects the requests PID owns; implies -P):\n%s"
	       "      --btt              weight as btt: q2c, q2d, d2c per bio,\n"
	       "                         the others per request (default: one\n"
	       "                         sample per request); adds q2q, q2m\n"
	       "                         and m2d per bio\n"
	       "  -P, --per-process      rows per owner process\n"
	       "  -e, --each             one line per request instead\n",
	       prog, bt_common_usage);
}

static void parse_args(struct lat *l, int argc, char **argv)
{
	static const struct option longopts[] = {
		BT_COMMON_LONGOPTS,
		{ "btt", no_argument, NULL, 'B' },
		{ "per-process", no_argument, NULL, 'P' },
		{ "each", no_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	bt_opts_init(&l->o, argv[0]);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, BT_COMMON_SHORTOPTS "Pe",
				 longopts, NULL)) != -1) {
		if (bt_opts_common(&l->o, ch, optarg))
			continue;
		switch (ch) {
		case 'h':
			usage(l->o.prog);
			exit(BT_EXIT_OK);
		case 'B':
			l->btt = true;
			break;
		case 'P':
			l->per_pid = true;
			break;
		case 'e':
			l->each = true;
			break;
		default:
			bt_opts_bad_option(&l->o, argv, "dpw");
		}
	}
	/* -p selects owners, not events: D and C run in other contexts. */
	l->has_pid = bt_opts_take_pid(&l->o, &l->want_pid);
	if (l->has_pid)
		l->per_pid = true;
}

int main(int argc, char **argv)
{
	static const char *const cols[] = {
		"dev", "op", "metric", "n", "mean_us", "p50_us", "p90_us",
		"p99_us", "p999_us", "max_us",
	};
	static const char *const pcols[] = {
		"dev", "pid", "comm", "op", "metric", "n", "mean_us", "p50_us",
		"p90_us", "p99_us", "p999_us", "max_us",
	};
	static const char *const ecols[] = {
		"time_s", "pid", "comm", "op", "sector", "bytes", "q2d_us",
		"d2c_us", "q2c_us",
	};
	static struct lat l;
	struct bt_tracker_opts to = { .done = on_done, .arg = &l };
	struct bt_tracker *tr;
	struct bt_tracker_stats st;
	const struct bt_request *rq;
	struct bt_reader *r;
	struct bt_event ev;
	uint64_t given_up;
	int rc, status = BT_EXIT_OK;

	parse_args(&l, argc, argv);
	r = bt_tool_open(&l.o, argc, argv);
	to.reader = r;
	l.first = UINT64_MAX;
	if (bt_tracker_new(&tr, &to) < 0 ||
	    bt_group_new(&l.g, sizeof(struct grp)) < 0)
		bt_tool_nomem(&l.o);
	if (l.each)
		l.t = bt_tool_table(&l.o, ecols, BT_NCOLS(ecols));
	while ((rc = bt_tool_next(&l.o, r, &ev, &l.first)) > 0)
		if (bt_tracker_feed(tr, &ev, &rq) > 0 && l.btt && !l.each)
			on_event(&l, &ev, rq);
	if (rc < 0)
		status = BT_EXIT_DATA;
	bt_tracker_flush(tr);
	bt_tracker_get_stats(tr, &st);
	given_up = st.expired + st.evicted + st.replaced;
	if (st.open + given_up)
		fprintf(stderr, "%s: warning: %" PRIu64 " requests never completed"
			" (%" PRIu64 " open at the end, %" PRIu64
			" given up): left out\n",
			l.o.prog, st.open + given_up, st.open, given_up);
	if (!l.each) {
		l.t = l.per_pid ? bt_tool_table(&l.o, pcols, BT_NCOLS(pcols)) :
				  bt_tool_table(&l.o, cols, BT_NCOLS(cols));
		print(&l, l.t, r);
	}
	if (bt_tool_table_done(&l.o, l.t))
		status = BT_EXIT_DATA;
	if (l.nomem) {
		fprintf(stderr, "%s: %s: percentiles incomplete\n", l.o.prog,
			strerror(ENOMEM));
		status = BT_EXIT_DATA;
	}
	bt_tool_warnings(&l.o, r);
	bt_tracker_free(tr);
	bt_reader_free(r);
	bt_group_free(l.g);
	return status;
}
