// SPDX-License-Identifier: MIT
/*
 * stats.c - distributions for latency and size reports.  The first
 * BT_DIST_EXACT samples are kept as they are, so small traces get exact
 * nearest-rank percentiles; past that the samples move into log-linear
 * buckets (64 per power of two, values below 128 exact), which bounds the
 * memory of a distribution whatever the trace length.  A quantile is then
 * the middle of the bucket holding the nearest-rank sample: at most half
 * a bucket width, 2^(e-7) for values in [2^e, 2^(e+1)), from it, so the
 * relative error stays under 1/128.  Power-of-two histograms are for
 * biolatency-style size charts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "btkit.h"
#include "internal.h"
#include "stats_int.h"

/* Smallest value of bucket b and its width. */
static void bucket_range(unsigned b, uint64_t *lo, uint64_t *width)
{
	unsigned e, s;

	if (b < BT_DIST_LINEAR) {
		*lo = b;
		*width = 1;
		return;
	}
	e = (b - BT_DIST_LINEAR) / BT_DIST_SUB + BT_DIST_SUB_BITS + 1;
	s = (b - BT_DIST_LINEAR) % BT_DIST_SUB;
	*width = (uint64_t)1 << (e - BT_DIST_SUB_BITS);
	*lo = ((uint64_t)1 << e) + s * *width;
}

void bt_dist_init(struct bt_dist *d)
{
	memset(d, 0, sizeof(*d));
}

static int spill(struct bt_dist *d)
{
	d->buckets = calloc(BT_DIST_NBUCKETS, sizeof(*d->buckets));
	if (!d->buckets)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->nexact; i++)
		d->buckets[bt_dist_bucket_of(d->exact[i])]++;
	free(d->exact);
	d->exact = NULL;
	d->nexact = 0;
	d->sorted = 0;
	return 0;
}

/* n and the saturating sum after n more samples of v. */
static inline void note_n_sum(struct bt_dist *d, uint64_t v, uint64_t n)
{
	uint64_t add, sum;

	d->n += n;
	if (__builtin_mul_overflow(v, n, &add) ||
	    __builtin_add_overflow(d->sum, add, &sum))
		sum = UINT64_MAX;
	d->sum = sum;
}

/* min, max, n and sum after n more samples of v. */
static inline void note(struct bt_dist *d, uint64_t v, uint64_t n)
{
	if (!d->n || v < d->min)
		d->min = v;
	if (!d->n || v > d->max)
		d->max = v;
	note_n_sum(d, v, n);
}

/* As note(), for a bucketed distribution: it has samples, so min and max. */
static inline void note_more(struct bt_dist *d, uint64_t v, uint64_t n)
{
	if (v < d->min)
		d->min = v;
	if (v > d->max)
		d->max = v;
	note_n_sum(d, v, n);
}

/* Still exact: keep the sample, or move them all into buckets. */
__attribute__((noinline))
static int add_exact(struct bt_dist *d, uint64_t v)
{
	if (d->nexact < BT_DIST_EXACT) {
		if (!d->exact) {
			d->exact = malloc(BT_DIST_EXACT * sizeof(*d->exact));
			if (!d->exact)
				return -ENOMEM;
		}
		d->exact[d->nexact++] = v;
		d->sorted = 0;
	} else {
		if (spill(d) < 0)
			return -ENOMEM;
		d->buckets[bt_dist_bucket_of(v)]++;
	}
	note(d, v, 1);
	return 0;
}

/* Buckets are the common case past the first samples: kept short. */
int bt_dist_add(struct bt_dist *d, uint64_t v)
{
	if (!d->buckets)
		return add_exact(d, v);
	bt_dist_add_bucketed(d, v);
	return 0;
}

/* The first samples, one at a time until the distribution spills. */
__attribute__((noinline))
static int add_n_exact(struct bt_dist *d, uint64_t v, uint64_t n)
{
	for (; n && !d->buckets; n--)
		if (add_exact(d, v) < 0)
			return -ENOMEM;
	if (n) {
		d->buckets[bt_dist_bucket_of(v)] += n;
		note_more(d, v, n);
	}
	return 0;
}

/* As bt_dist_add(): the bucketed case a leaf that saves no registers. */
int bt_dist_add_n(struct bt_dist *d, uint64_t v, uint64_t n)
{
	if (!d->buckets || !n)
		return n ? add_n_exact(d, v, n) : 0;
	d->buckets[bt_dist_bucket_of(v)] += n;
	note_more(d, v, n);
	return 0;
}

int bt_dist_merge(struct bt_dist *d, const struct bt_dist *from)
{
	uint64_t sum;

	if (!from->n)
		return 0;
	/*
	 * The state n adds of from's samples would leave: exact while the
	 * total fits (the samples in another order, and quantiles sort),
	 * else the counts of their buckets.
	 */
	if (!d->buckets && d->n + from->n <= BT_DIST_EXACT) {
		if (!d->exact) {
			d->exact = malloc(BT_DIST_EXACT * sizeof(*d->exact));
			if (!d->exact)
				return -ENOMEM;
		}
		memcpy(d->exact + d->nexact, from->exact,
		       from->nexact * sizeof(*from->exact));
		d->nexact += from->nexact;
		d->sorted = 0;
	} else {
		if (!d->buckets && spill(d) < 0)
			return -ENOMEM;
		if (from->buckets)
			for (unsigned b = 0; b < BT_DIST_NBUCKETS; b++)
				d->buckets[b] += from->buckets[b];
		else
			for (uint32_t i = 0; i < from->nexact; i++)
				d->buckets[bt_dist_bucket_of(from->exact[i])]++;
	}
	if (!d->n || from->min < d->min)
		d->min = from->min;
	if (!d->n || from->max > d->max)
		d->max = from->max;
	d->n += from->n;
	/* Both sums saturate: so does theirs exactly when the samples' does. */
	if (__builtin_add_overflow(d->sum, from->sum, &sum))
		sum = UINT64_MAX;
	d->sum = sum;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

uint64_t bt_nearest_rank(double q, uint64_t n)
{
	double want = q * (double)n;
	uint64_t rank = (uint64_t)want;

	/*
	 * The smallest rank with at least q*n samples at or below it: a
	 * ceiling, but q*n is rounded (0.07 * 100 = 7.000000000000001), so a
	 * fraction within rounding error is no fraction.
	 */
	if (want - (double)rank > 1e-9 * (want > 1 ? want : 1))
		rank++;
	if (rank < 1)
		rank = 1;
	return rank > n ? n : rank;
}

uint64_t bt_dist_quantile(struct bt_dist *d, double q)
{
	uint64_t rank, seen = 0, lo, width, v;

	if (!d->n)
		return 0;
	if (!(q > 0))		/* also NaN */
		q = 0;
	if (q > 1)
		q = 1;
	rank = bt_nearest_rank(q, d->n);
	if (rank == 1)
		return d->min;
	if (rank == d->n)
		return d->max;
	if (!d->buckets) {
		if (!d->sorted) {
			qsort(d->exact, d->nexact, sizeof(*d->exact), cmp_u64);
			d->sorted = 1;
		}
		return d->exact[rank - 1];
	}
	for (unsigned b = 0; b < BT_DIST_NBUCKETS; b++) {
		seen += d->buckets[b];
		if (seen < rank)
			continue;
		bucket_range(b, &lo, &width);
		/* The middle of the bucket halves the worst error. */
		v = lo + (width - 1) / 2;
		if (v < d->min)
			v = d->min;
		if (v > d->max)
			v = d->max;
		return v;
	}
	return d->max;
}

double bt_dist_mean(const struct bt_dist *d)
{
	return d->n ? (double)d->sum / (double)d->n : 0.0;
}

void bt_dist_free(struct bt_dist *d)
{
	free(d->exact);
	free(d->buckets);
	bt_dist_init(d);
}

void bt_log2_add(struct bt_log2 *h, uint64_t v)
{
	unsigned k = v ? 64u - (unsigned)__builtin_clzll(v) : 0;

	h->count[k]++;
	h->total++;
}

void bt_log2_bounds(unsigned k, uint64_t *lo, uint64_t *hi)
{
	if (k == 0) {
		*lo = *hi = 0;
		return;
	}
	if (k > 64)
		k = 64;
	*lo = (uint64_t)1 << (k - 1);
	*hi = k == 64 ? UINT64_MAX : ((uint64_t)1 << k) - 1;
}

int bt_log2_span(const struct bt_log2 *h, unsigned *lo, unsigned *hi)
{
	unsigned k;

	if (!h->total)
		return 0;
	for (k = 0; !h->count[k]; k++)
		;
	*lo = k;
	for (k = 64; !h->count[k]; k--)
		;
	*hi = k;
	return 1;
}
