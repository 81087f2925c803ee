/* SPDX-License-Identifier: MIT */
/*
 * stats_int.h - a distribution's log-linear buckets (lib/stats.c) and
 * the add of one sample to a distribution already bucketed, inline for
 * stats.c and for the analysis that adds millions of samples, lib/lat.c:
 * out of line, the call and the moves around it cost as much as the add.
 * Values below 128 are exact; each power of two above has 64 buckets.
 */
#ifndef BTKIT_STATS_INT_H
#define BTKIT_STATS_INT_H

#include <stddef.h>
#include <stdint.h>
#include "btkit.h"

#define BT_DIST_SUB_BITS	6			/* 64 sub-buckets */
#define BT_DIST_SUB		(1u << BT_DIST_SUB_BITS)
#define BT_DIST_LINEAR		(2 * BT_DIST_SUB)	/* 0..127 exact */
#define BT_DIST_NBUCKETS	(BT_DIST_LINEAR + \
				 (64 - BT_DIST_SUB_BITS - 1) * BT_DIST_SUB)

/*
 * Above 128, with s = e - 6 for v in [2^e, 2^(e+1)), the bucket
 * LINEAR + (e - 7) * SUB + ((v >> s) & (SUB - 1)) is (s << 6) + (v >> s),
 * since v >> s has its top bit, 64, set.  Or-ing 64 in makes s 0 below
 * 128, where the bucket is v: no branch.
 */
static inline size_t bt_dist_bucket_of(uint64_t v)
{
	unsigned s = (63u ^ (unsigned)__builtin_clzll(v | BT_DIST_SUB)) -
		     BT_DIST_SUB_BITS;

	return ((size_t)s << BT_DIST_SUB_BITS) + (size_t)(v >> s);
}

/*
 * bt_dist_add(d, v) once d->buckets is set (the caller tests it): it has
 * samples, so min and max are set.  The fields are read before the bucket
 * is written, which the compiler must otherwise assume they alias.
 */
static inline void bt_dist_add_bucketed(struct bt_dist *d, uint64_t v)
{
	uint64_t min = d->min, max = d->max, n = d->n, sum;

	if (__builtin_add_overflow(d->sum, v, &sum))
		sum = UINT64_MAX;
	d->buckets[bt_dist_bucket_of(v)]++;
	d->min = v < min ? v : min;
	d->max = v > max ? v : max;
	d->n = n + 1;
	d->sum = sum;
}

#endif
