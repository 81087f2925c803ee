// SPDX-License-Identifier: MIT
/*
 * diff_rows.c - the results of btdiff's engine (diff.c gathers them): one
 * cell per group, metric and recording, rows in group order with the
 * ratio of the last recording to the first, the table bt_diff_print()
 * writes, and the one-line verdict.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "diff_int.h"

static struct gstat *stat_at(const struct bt_diff *d, size_t ri, size_t gi)
{
	const struct rec *r = &d->rec[ri];

	return gi < r->ng && r->g[gi].present ? &r->g[gi] : NULL;
}

static void set_count(struct bt_diff_cell *c, uint64_t u)
{
	c->kind = BT_DIFF_COUNT;
	c->u = u;
	c->v = (double)u;
}

static void set_ns(struct bt_diff_cell *c, uint64_t ns)
{
	c->kind = BT_DIFF_NS;
	c->u = ns;
	c->v = (double)ns;
}

static void set_real(struct bt_diff_cell *c, double v, int decimals)
{
	c->kind = BT_DIFF_REAL;
	c->v = v;
	c->decimals = (uint8_t)decimals;
}

static void set_quantile(struct bt_diff_cell *c, struct bt_dist *x, double q)
{
	if (x->n)
		set_ns(c, bt_dist_quantile(x, q));
}

/* Cell of metric m for group g of recording r; left empty when none. */
static void fill(struct bt_diff_cell *c, unsigned m, const struct rec *r,
		 struct gstat *g, int src)
{
	double span = r->last > r->first && r->first != UINT64_MAX ?
		      (double)(r->last - r->first) / 1e9 : 0;

	memset(c, 0, sizeof(*c));
	if (!g)
		return;
	switch (m) {
	case BT_DIFF_IOS:
		set_count(c, g->ios);
		break;
	case BT_DIFF_BYTES:
		set_count(c, g->bytes);
		break;
	case BT_DIFF_IOPS:
		if (span > 0)
			set_real(c, (double)g->ios / span, 3);
		break;
	case BT_DIFF_MB_S:
		if (span > 0)
			set_real(c, (double)g->bytes / 1e6 / span, 3);
		break;
	case BT_DIFF_FSYNC_EPISODES:
		set_count(c, g->fsync.n);
		break;
	case BT_DIFF_FSYNC_P50:
		set_quantile(c, &g->fsync, 0.50);
		break;
	case BT_DIFF_FSYNC_P99:
		set_quantile(c, &g->fsync, 0.99);
		break;
	case BT_DIFF_FSYNC_FLUSH_MEAN:
		if (g->fsync.n)
			set_real(c, (double)g->flush_sum /
				    (double)g->fsync.n / 1000.0, 3);
		break;
	case BT_DIFF_SLICE_P50:
		set_quantile(c, &g->slice[src], 0.50);
		break;
	case BT_DIFF_SLICE_P99:
		set_quantile(c, &g->slice[src], 0.99);
		break;
	case BT_DIFF_SLICE_SOURCE:
		c->kind = BT_DIFF_TEXT;
		c->text = src == BT_SLICE_MESSAGES ? "messages" : "events";
		break;
	case BT_DIFF_Q2C_P50:
		set_quantile(c, &g->q2c, 0.50);
		break;
	case BT_DIFF_Q2C_P99:
		set_quantile(c, &g->q2c, 0.99);
		break;
	case BT_DIFF_D2C_P50:
		set_quantile(c, &g->d2c, 0.50);
		break;
	case BT_DIFF_D2C_P99:
		set_quantile(c, &g->d2c, 0.99);
		break;
	case BT_DIFF_MERGE_RATIO:
		if (g->md)
			set_real(c, (double)g->mq / (double)g->md, 2);
		break;
	case BT_DIFF_RQ_BYTES_MEAN:
		if (g->ios)
			set_real(c, (double)g->bytes / (double)g->ios, 1);
		break;
	}
}

/* "all" first, then names in byte order, or pids and cgroups by number. */
struct ord {
	size_t gi;
	const struct dgroup *g;
};

static int cmp_group(const void *a, const void *b)
{
	const struct ord *x = a, *y = b;

	if (x->gi == ALL || y->gi == ALL)
		return x->gi == ALL ? -1 : 1;
	if (x->g->order != y->g->order)
		return x->g->order < y->g->order ? -1 : 1;
	return strcmp(x->g->name, y->g->name);
}

/* Groups in output order; NULL on ENOMEM. */
static struct ord *group_order(const struct bt_diff *d)
{
	struct ord *ord = malloc(d->ngrp * sizeof(*ord));

	if (!ord)
		return NULL;
	for (size_t gi = 0; gi < d->ngrp; gi++) {
		ord[gi].gi = gi;
		ord[gi].g = &d->grp[gi];
	}
	qsort(ord, d->ngrp, sizeof(*ord), cmp_group);
	return ord;
}

/* Room for the cells and ratios of n recordings. */
static int row_room(struct bt_diff *d, size_t n)
{
	struct bt_diff_cell *c = realloc(d->cell, n * sizeof(*c));
	double *r;

	if (!c)
		return -ENOMEM;
	d->cell = c;
	r = realloc(d->ratio, n * sizeof(*r));
	if (!r)
		return -ENOMEM;
	d->ratio = r;
	return 0;
}

int bt_diff_rows(struct bt_diff *d,
		 void (*row)(const struct bt_diff_row *r, void *arg), void *arg)
{
	size_t n = d->nrec - (d->active ? 1 : 0);
	int src = bt_diff_slice_source(d);
	struct bt_diff_row out;
	struct ord *ord;

	if (!n)
		return 0;
	ord = row_room(d, n) ? NULL : group_order(d);
	if (!ord)
		return -ENOMEM;
	out.n = n;
	out.cell = d->cell;
	out.ratio = d->ratio;
	for (size_t k = 0; k < d->ngrp; k++) {
		size_t gi = ord[k].gi;

		out.group = d->grp[gi].name;
		for (size_t j = 0; j < d->nmetric; j++) {
			unsigned m = d->metric[j];

			/* One source for everyone: say it once. */
			if (m == BT_DIFF_SLICE_SOURCE && gi != ALL)
				continue;
			out.metric = bt_diff_metric_name(m);
			for (size_t i = 0; i < n; i++)
				fill(&d->cell[i], m, &d->rec[i],
				     stat_at(d, i, gi), src);
			for (size_t i = 0; i < n; i++) {
				const struct bt_diff_cell *a = &d->cell[0];
				const struct bt_diff_cell *b = &d->cell[i];

				d->ratio[i] = a->kind && a->kind != BT_DIFF_TEXT &&
					      b->kind && b->kind != BT_DIFF_TEXT &&
					      a->v != 0 ? b->v / a->v : NAN;
			}
			row(&out, arg);
		}
	}
	free(ord);
	return 0;
}

void bt_diff_put_cell(struct bt_table *t, const struct bt_diff_cell *c)
{
	switch (c->kind) {
	case BT_DIFF_COUNT:
		bt_table_u64(t, c->u);
		break;
	case BT_DIFF_NS:
		bt_table_us(t, c->u);
		break;
	case BT_DIFF_REAL:
		bt_table_double(t, c->v, c->decimals);
		break;
	case BT_DIFF_TEXT:
		bt_table_str(t, c->text);
		break;
	default:
		bt_table_str(t, "");
	}
}

void bt_diff_put_ratio(struct bt_table *t, double v)
{
	if (isnan(v))
		bt_table_str(t, "");
	else
		bt_table_double(t, v, 3);
}

static void print_row(const struct bt_diff_row *r, void *arg)
{
	struct bt_table *t = arg;

	bt_table_str(t, r->group);
	bt_table_str(t, r->metric);
	for (size_t i = 0; i < r->n; i++)
		bt_diff_put_cell(t, &r->cell[i]);
	bt_diff_put_ratio(t, r->ratio[r->n - 1]);
	for (size_t i = 1; r->n >= 3 && i < r->n; i++)
		bt_diff_put_ratio(t, r->ratio[i]);
	bt_table_end_row(t);
}

int bt_diff_table(struct bt_diff *d, struct bt_table *t)
{
	return bt_diff_rows(d, print_row, t);
}

int bt_diff_print(struct bt_diff *d, FILE *fp, enum bt_table_fmt fmt,
		  int header)
{
	size_t n = d->nrec - (d->active ? 1 : 0), ncols = 0;
	size_t extra = n >= 3 ? n - 1 : 0;
	const char **cols = calloc(n + 3 + extra, sizeof(*cols));
	char **names = calloc(extra + 1, sizeof(*names));
	struct bt_table *t = NULL;
	int rc = -ENOMEM;

	if (!cols || !names)
		goto out;
	cols[ncols++] = "group";
	cols[ncols++] = "metric";
	for (size_t i = 0; i < n; i++)
		cols[ncols++] = d->rec[i].label;
	cols[ncols++] = "ratio";
	for (size_t i = 0; i < extra; i++) {
		if (asprintf(&names[i], "ratio_%s", d->rec[i + 1].label) < 0) {
			names[i] = NULL;
			goto out;
		}
		cols[ncols++] = names[i];
	}
	rc = bt_table_new(&t, fp, fmt, header, cols, ncols);
	if (rc < 0)
		goto out;
	rc = bt_diff_rows(d, print_row, t);
	if (bt_table_free(t) < 0 && !rc)
		rc = -EIO;
out:
	for (size_t i = 0; names && i < extra; i++)
		free(names[i]);
	free(names);
	free(cols);
	return rc;
}

/* Among the recordings where x(r) is defined, the lowest and highest. */
struct span { int lo, hi, n; double vlo, vhi; };

static void span_add(struct span *s, int i, double v)
{
	if (!s->n || v < s->vlo) {
		s->lo = i;
		s->vlo = v;
	}
	if (!s->n || v > s->vhi) {
		s->hi = i;
		s->vhi = v;
	}
	s->n++;
}

/* pre, "highest throughput LABEL (...)" of group gi, when it has a rate. */
static void verdict_mb_s(struct bt_diff *d, FILE *fp, size_t gi, size_t n,
			 const char *pre)
{
	struct span t = { 0 };
	struct bt_diff_cell c;

	for (size_t i = 0; i < n; i++) {
		fill(&c, BT_DIFF_MB_S, &d->rec[i], stat_at(d, i, gi), 0);
		if (c.kind)
			span_add(&t, (int)i, c.v);
	}
	if (!t.n)
		return;
	fprintf(fp, "%shighest throughput %s (%.3f MB/s", pre,
		d->rec[t.hi].label, t.vhi);
	if (t.n < 2)
		fputs(", the only recording with a rate)", fp);
	else if (t.vlo == t.vhi)
		fputs(", the same in every recording)", fp);
	else if (t.vlo > 0)
		fprintf(fp, ", %.2fx %s)", t.vhi / t.vlo, d->rec[t.lo].label);
	else
		fprintf(fp, "; %s %.3f MB/s)", d->rec[t.lo].label, t.vlo);
}

/* "NAME: lowest fsync p99 LABEL (...)"; 0 when gi has no episodes. */
static int verdict_fsync(struct bt_diff *d, FILE *fp, size_t gi, size_t n,
			 int any)
{
	struct span f = { 0 };

	for (size_t i = 0; i < n; i++) {
		struct gstat *g = stat_at(d, i, gi);

		if (g && g->fsync.n)
			span_add(&f, (int)i,
				 (double)bt_dist_quantile(&g->fsync, 0.99));
	}
	if (!f.n)
		return 0;
	fprintf(fp, "%s%s: lowest fsync p99 %s (%.3f us", any ? "; " : "",
		d->grp[gi].name, d->rec[f.lo].label, f.vlo / 1000.0);
	if (f.n < 2)
		fputs(", the only recording with episodes)", fp);
	else if (f.vlo == f.vhi)
		fputs(", the same in every recording)", fp);
	else if (f.vlo > 0)
		fprintf(fp, ", %.2fx lower than %s)", f.vhi / f.vlo,
			d->rec[f.hi].label);
	else
		fprintf(fp, "; %s %.3f us)", d->rec[f.hi].label, f.vhi / 1000.0);
	return 1;
}

int bt_diff_verdict(struct bt_diff *d, FILE *fp)
{
	size_t n = d->nrec - (d->active ? 1 : 0);
	struct ord *ord = group_order(d);
	int any = 0;

	if (!ord)
		return -ENOMEM;
	fputs("verdict: ", fp);
	for (size_t k = 0; k < d->ngrp; k++) {
		if (!verdict_fsync(d, fp, ord[k].gi, n, any))
			continue;
		any = 1;
		verdict_mb_s(d, fp, ord[k].gi, n, ", ");
	}
	if (!any) {
		fputs("no fdatasync episodes in any recording", fp);
		verdict_mb_s(d, fp, ALL, n, "; all: ");
	}
	fputc('\n', fp);
	free(ord);
	return ferror(fp) ? -EIO : 0;
}
