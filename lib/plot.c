// SPDX-License-Identifier: MIT
/*
 * plot.c - the data behind btplot's pictures, binned as it streams by:
 * a grid of fixed size per picture whose time columns merge pairwise when
 * a time falls past the last one (and, for sectors, whose rows do the same
 * when a sector falls past the top), so neither memory nor the picture
 * grows with the trace.  Every grid starts at 1 us per column, so widths
 * are 1 us times a power of two and any two grids can be brought to one
 * width.  What each kind bins: heatmap, a request's latency at its
 * completion (or an episode's at its end) in log2 buckets; offset, a
 * request's start sector at its dispatch per comm group and direction;
 * iops, requests and bytes at completion per op; depth, the time each
 * request spent between I and D and between D and C, per column (so a
 * column holds the mean number in flight); waits, the time each process
 * spent in an fdatasync episode, a slice wait, or with a request at the
 * driver, per column.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "plot_int.h"

#define START_WIDTH	1000u		/* ns: first column width */

int bt_bins_init(struct bt_bins *b, uint32_t ncols, uint32_t nrows,
		 uint64_t origin, uint64_t width, uint64_t rwidth)
{
	memset(b, 0, sizeof(*b));
	if (ncols < 2 || ncols % 2 || !nrows || !width ||
	    (rwidth && nrows % 2) || ncols > (1u << 20) || nrows > (1u << 20))
		return -EINVAL;
	b->cell = calloc((size_t)ncols * nrows, sizeof(*b->cell));
	if (!b->cell)
		return -ENOMEM;
	b->origin = origin;
	b->width = width;
	b->rwidth = rwidth;
	b->ncols = ncols;
	b->nrows = nrows;
	return 0;
}

void bt_bins_free(struct bt_bins *b)
{
	free(b->cell);
	b->cell = NULL;
}

static void merge_cols(struct bt_bins *b)
{
	uint32_t half = b->ncols / 2, r = b->nrows;

	for (uint32_t c = 0; c < half; c++) {
		uint64_t *to = b->cell + (size_t)c * r;
		const uint64_t *a = b->cell + (size_t)2 * c * r, *e = a + r;

		for (uint32_t k = 0; k < r; k++)
			to[k] = a[k] + e[k];
	}
	memset(b->cell + (size_t)half * r, 0,
	       (size_t)half * r * sizeof(*b->cell));
	b->width *= 2;
	b->used = (b->used + 1) / 2;
}

static void merge_rows(struct bt_bins *b)
{
	uint32_t half = b->nrows / 2;

	for (uint32_t c = 0; c < b->ncols; c++) {
		uint64_t *col = b->cell + (size_t)c * b->nrows;

		for (uint32_t k = 0; k < half; k++)
			col[k] = col[2 * k] + col[2 * k + 1];
		memset(col + half, 0, half * sizeof(*col));
	}
	b->rwidth *= 2;
	b->rused = (b->rused + 1) / 2;
}

uint32_t bt_bins_col(struct bt_bins *b, uint64_t t)
{
	uint64_t rel = t > b->origin ? t - b->origin : 0;
	uint32_t c;

	/* No overflow: width * ncols passes any u64 before width passes 2^63. */
	while (rel / b->width >= b->ncols)
		merge_cols(b);
	c = (uint32_t)(rel / b->width);
	if (c + 1 > b->used)
		b->used = c + 1;
	return c;
}

uint32_t bt_bins_row(struct bt_bins *b, uint64_t v)
{
	uint32_t r;

	if (!b->rwidth)
		return v < b->nrows ? (uint32_t)v : b->nrows - 1;
	while (v / b->rwidth >= b->nrows)
		merge_rows(b);
	r = (uint32_t)(v / b->rwidth);
	if (r + 1 > b->rused)
		b->rused = r + 1;
	return r;
}

void bt_bins_add(struct bt_bins *b, uint64_t t, uint32_t row, uint64_t v)
{
	uint32_t c = bt_bins_col(b, t);

	if (row < b->nrows)
		b->cell[(size_t)c * b->nrows + row] += v;
}

void bt_bins_span(struct bt_bins *b, uint64_t from, uint64_t to,
		  uint32_t row)
{
	uint32_t c, last;
	uint64_t lo, hi;

	if (from < b->origin)
		from = b->origin;
	if (to <= from || row >= b->nrows)
		return;
	/* The end first: merging may move from's column. */
	last = bt_bins_col(b, to - 1);
	c = bt_bins_col(b, from);
	for (; c <= last; c++) {
		lo = b->origin + (uint64_t)c * b->width;
		/* The last column of a grid near 2^64 ns ends past it. */
		hi = lo > UINT64_MAX - b->width ? UINT64_MAX : lo + b->width;
		b->cell[(size_t)c * b->nrows + row] +=
			(to < hi ? to : hi) - (from > lo ? from : lo);
	}
}

void bt_bins_coarsen(struct bt_bins *b, uint64_t w)
{
	while (b->width < w && b->width <= UINT64_MAX / 2)
		merge_cols(b);
}

void bt_bins_coarsen_rows(struct bt_bins *b, uint64_t w)
{
	while (b->rwidth && b->rwidth < w && b->rwidth <= UINT64_MAX / 2)
		merge_rows(b);
}

unsigned bt_plot_lat_bucket(uint64_t ns)
{
	uint64_t us = ns / 1000;
	unsigned k = 0;

	while (us >= 2 && k < BT_PLOT_LAT_ROWS - 1) {
		us >>= 1;
		k++;
	}
	return k;
}

double bt_plot_log2(double x)
{
	double r = 0, f = 0.5;

	if (!(x > 1))
		return 0;
	while (x >= 2) {
		x /= 2;
		r += 1;
	}
	/* Fraction bits by squaring: x in [1, 2). */
	for (int i = 0; i < 10; i++, f /= 2) {
		x *= x;
		if (x >= 2) {
			x /= 2;
			r += f;
		}
	}
	return r;
}

double bt_plot_tick_step(double max, unsigned want)
{
	static const double mult[3] = { 1, 2, 5 };
	double p = 1e-9, step;

	if (!(max > 0))
		return 1;
	if (!want)
		want = 1;
	for (;;) {
		for (int i = 0; i < 3; i++) {
			step = p * mult[i];
			if (max / step <= want)
				return step;
		}
		p *= 10;
	}
}

/* ------------------------------------------------------------ the plots */

static uint32_t kind_cols(const struct bt_plot_opts *o)
{
	switch (o->kind) {
	case BT_PLOT_HEATMAP: return 256;
	case BT_PLOT_OFFSET: return 160;
	case BT_PLOT_WAITS: return 256;
	/* --bin: the width asked for is kept up to 2048 columns */
	default: return o->bin_ns ? 2048 : 256;
	}
}

int bt_plot_new(struct bt_plot **out, const struct bt_plot_opts *o,
		const char *label)
{
	struct bt_plot *p;
	uint32_t rows;
	int rc;

	*out = NULL;
	if (!o || o->kind > BT_PLOT_WAITS || o->metric > BT_PLOT_SLICE)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->o = *o;
	if (!p->o.top)
		p->o.top = o->kind == BT_PLOT_OFFSET ? 7 : 12;
	snprintf(p->label, sizeof(p->label), "%s", label ? label : "");
	p->first = UINT64_MAX;
	switch (o->kind) {
	case BT_PLOT_HEATMAP: rows = BT_PLOT_OPS * BT_PLOT_LAT_ROWS; break;
	case BT_PLOT_IOPS: rows = 4 * 2; break;
	case BT_PLOT_DEPTH: rows = 2; break;
	case BT_PLOT_WAITS: rows = (BT_PLOT_LANES + 1) * BT_LANE_ROWS; break;
	default: rows = 0;
	}
	bt_map_init(&p->lane_map);
	rc = 0;
	if (o->kind == BT_PLOT_OFFSET) {
		p->groups = calloc(BT_PLOT_GROUPS + 1, sizeof(*p->groups));
		rc = p->groups ? 0 : -ENOMEM;
	} else if (o->kind == BT_PLOT_WAITS) {
		p->lanes = calloc(BT_PLOT_LANES + 1, sizeof(*p->lanes));
		rc = p->lanes ? 0 : -ENOMEM;
	}
	/* The origin is not known yet: set at the first event. */
	if (!rc && rows)
		rc = bt_bins_init(&p->bins, kind_cols(o), rows, 0,
				  o->bin_ns && o->kind != BT_PLOT_HEATMAP ?
				  o->bin_ns : START_WIDTH, 0);
	if (rc) {
		bt_plot_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void bt_plot_event(struct bt_plot *p, const struct bt_event *ev)
{
	if (p->first == UINT64_MAX) {
		p->first = ev->time;
		p->bins.origin = ev->time;
	}
	if (ev->time > p->last)
		p->last = ev->time;
}

static unsigned op_index(char op)
{
	switch (op) {
	case 'R': return 0;
	case 'W': return 1;
	case 'D': return 2;
	case 'F': return 3;
	default: return 4;
	}
}

static struct bt_plot_group *group_of(struct bt_plot *p, const char *comm)
{
	struct bt_plot_group *g;

	for (unsigned i = 0; i < p->ngroups; i++)
		if (!strcmp(p->groups[i].comm, comm))
			return &p->groups[i];
	if (p->ngroups == BT_PLOT_GROUPS) {
		g = &p->groups[BT_PLOT_GROUPS];
		snprintf(g->comm, sizeof(g->comm), "%s", "others");
	} else {
		g = &p->groups[p->ngroups++];
		snprintf(g->comm, sizeof(g->comm), "%s", comm);
	}
	if (!g->grid[0].cell) {
		for (int k = 0; k < 2; k++)
			if (bt_bins_init(&g->grid[k], kind_cols(&p->o), 40,
					 p->first, START_WIDTH, 1) < 0)
				return NULL;
	}
	return g;
}

static struct bt_plot_lane *lane_of(struct bt_plot *p, uint32_t pid,
				    const char *comm, unsigned *idx)
{
	uint32_t v = bt_map_get(&p->lane_map, pid, 0);
	struct bt_plot_lane *l;

	if (v) {
		*idx = v - 1;
		l = &p->lanes[v - 1];
	} else if (p->nlanes == BT_PLOT_LANES) {
		*idx = BT_PLOT_LANES;
		l = &p->lanes[BT_PLOT_LANES];
		snprintf(l->comm, sizeof(l->comm), "%s", "others");
		return l;
	} else {
		if (bt_map_put(&p->lane_map, pid, 0, p->nlanes + 1) < 0)
			return NULL;
		*idx = p->nlanes;
		l = &p->lanes[p->nlanes++];
		l->pid = pid;
	}
	/* The first name the trace gives the pid is kept. */
	if (!l->comm[0] && comm && *comm)
		snprintf(l->comm, sizeof(l->comm), "%s", comm);
	return l;
}

static void lane_add(struct bt_plot_lane *l, unsigned row, uint64_t v)
{
	l->total[row] += v;
	l->count[row]++;
	if (v > l->max[row])
		l->max[row] = v;
}

static int have(uint64_t a, uint64_t b)
{
	return a != BT_TIME_NONE && b != BT_TIME_NONE && b >= a;
}

static void heat_add(struct bt_plot *p, unsigned series, uint64_t at,
		     uint64_t lat)
{
	bt_bins_add(&p->bins, at, series * BT_PLOT_LAT_ROWS +
		    bt_plot_lat_bucket(lat), 1);
	p->samples++;
}

static int offset_add(struct bt_plot *p, const struct bt_request *rq)
{
	struct bt_plot_group *g;
	uint64_t at = rq->d != BT_TIME_NONE ? rq->d : rq->c;
	int w;

	if ((rq->op != 'R' && rq->op != 'W') || !rq->bytes)
		return 0;
	g = group_of(p, rq->comm[0] ? rq->comm : "-");
	if (!g)
		return -ENOMEM;
	w = rq->op == 'W';
	bt_bins_add(&g->grid[w], at, bt_bins_row(&g->grid[w], rq->sector), 1);
	g->ios[w]++;
	g->bytes[w] += rq->bytes;
	if (rq->sector + rq->bytes / 512 > p->max_sector)
		p->max_sector = rq->sector + rq->bytes / 512;
	p->samples++;
	return 0;
}

int bt_plot_request(struct bt_plot *p, const struct bt_request *rq)
{
	unsigned op = op_index(rq->op), idx;
	struct bt_plot_lane *l;

	if (rq->flags & (BT_RQ_EXPIRED | BT_RQ_OPEN) || rq->c == BT_TIME_NONE)
		return 0;
	switch (p->o.kind) {
	case BT_PLOT_HEATMAP:
		if (p->o.metric == BT_PLOT_Q2C && have(rq->q, rq->c))
			heat_add(p, op, rq->c, rq->c - rq->q);
		else if (p->o.metric == BT_PLOT_D2C && have(rq->d, rq->c))
			heat_add(p, op, rq->c, rq->c - rq->d);
		else if (p->o.metric == BT_PLOT_Q2D && have(rq->q, rq->d))
			heat_add(p, op, rq->d, rq->d - rq->q);
		return 0;
	case BT_PLOT_OFFSET:
		return offset_add(p, rq);
	case BT_PLOT_IOPS:
		if (op > 3)
			return 0;
		bt_bins_add(&p->bins, rq->c, op * 2, 1);
		bt_bins_add(&p->bins, rq->c, op * 2 + 1, rq->bytes);
		p->samples++;
		return 0;
	case BT_PLOT_DEPTH:
		/* A requeued request's first trip to the driver ends at its first D. */
		if (have(rq->i, rq->d_first))
			bt_bins_span(&p->bins, rq->i, rq->d_first, 0);
		if (have(rq->d, rq->c))
			bt_bins_span(&p->bins, rq->d, rq->c, 1);
		p->samples++;
		return 0;
	case BT_PLOT_WAITS:
		if (!have(rq->d, rq->c))
			return 0;
		l = lane_of(p, rq->pid, rq->comm, &idx);
		if (!l)
			return -ENOMEM;
		bt_bins_span(&p->bins, rq->d, rq->c,
			     idx * BT_LANE_ROWS + BT_LANE_SERVED);
		lane_add(l, BT_LANE_SERVED, rq->c - rq->d);
		return 0;
	}
	return 0;
}

int bt_plot_sync(struct bt_plot *p, const struct bt_sync_ep *ep,
		 const char *comm)
{
	struct bt_plot_lane *l;
	unsigned idx;

	if (ep->flags & (BT_SYNC_CENSORED | BT_SYNC_INVALID))
		return 0;
	if (p->o.kind == BT_PLOT_HEATMAP && p->o.metric == BT_PLOT_FSYNC) {
		heat_add(p, 0, ep->close, ep->lat);
		return 0;
	}
	if (p->o.kind != BT_PLOT_WAITS)
		return 0;
	l = lane_of(p, ep->pid, comm, &idx);
	if (!l)
		return -ENOMEM;
	bt_bins_span(&p->bins, ep->open, ep->close,
		     idx * BT_LANE_ROWS + BT_LANE_FSYNC);
	lane_add(l, BT_LANE_FSYNC, ep->lat);
	p->samples++;
	return 0;
}

int bt_plot_slice(struct bt_plot *p, const struct bt_slice_ep *ep,
		  const char *comm)
{
	unsigned row = ep->source == BT_SLICE_MESSAGES ? BT_LANE_SLICE_MSG :
			BT_LANE_SLICE_EV, idx;
	struct bt_plot_lane *l;

	if (ep->censored)
		return 0;
	if (ep->source == BT_SLICE_MESSAGES)
		p->has_msg = 1;
	if (p->o.kind == BT_PLOT_HEATMAP && p->o.metric == BT_PLOT_SLICE) {
		heat_add(p, ep->source == BT_SLICE_MESSAGES ? 0 : 1, ep->end,
			 ep->wait);
		return 0;
	}
	/* Async and shared queues are nobody's wait (btkit(7) "Slice wait"). */
	if (p->o.kind != BT_PLOT_WAITS || ep->queue != BT_SLICE_PROC ||
	    ep->pid < 0)
		return 0;
	l = lane_of(p, (uint32_t)ep->pid, comm, &idx);
	if (!l)
		return -ENOMEM;
	bt_bins_span(&p->bins, ep->start, ep->end, idx * BT_LANE_ROWS + row);
	lane_add(l, row, ep->wait);
	p->samples++;
	return 0;
}

uint64_t bt_plot_samples(const struct bt_plot *p)
{
	return p->samples;
}

void bt_plot_free(struct bt_plot *p)
{
	if (!p)
		return;
	bt_bins_free(&p->bins);
	if (p->groups)
		for (unsigned i = 0; i <= BT_PLOT_GROUPS; i++)
			for (int k = 0; k < 2; k++)
				bt_bins_free(&p->groups[i].grid[k]);
	free(p->groups);
	free(p->lanes);
	bt_map_free(&p->lane_map);
	free(p);
}
