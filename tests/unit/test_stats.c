// SPDX-License-Identifier: MIT
/*
 * test_stats.c - distributions and power-of-two histograms: exact
 * nearest-rank quantiles while the samples fit BT_DIST_EXACT, relative error
 * under 1/128 once they spill into buckets (checked against a sorted copy,
 * and on the worst samples of every power of two), count/sum/min/max kept
 * exactly, and log2 buckets holding their bounds.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "btkit.h"
#include "../../lib/internal.h"

/* A small deterministic generator (xorshift64*), so failures reproduce. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest rank over a sorted array, counted the slow obvious way. */
static uint64_t ref_quantile(const uint64_t *sorted, size_t n, double q)
{
	size_t rank = 1;

	while (rank < n && (double)rank < q * (double)n)
		rank++;
	return sorted[rank - 1];
}

static void test_stats_empty_dist_is_zero(void **state)
{
	struct bt_dist d;

	(void)state;
	bt_dist_init(&d);
	assert_int_equal(d.n, 0);
	assert_int_equal(bt_dist_quantile(&d, 0.5), 0);
	assert_true(bt_dist_mean(&d) == 0.0);
	bt_dist_free(&d);
}

static void test_stats_exact_quantiles_small(void **state)
{
	static const uint64_t v[] = { 50, 10, 40, 20, 30 };
	struct bt_dist d;

	(void)state;
	bt_dist_init(&d);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(bt_dist_add(&d, v[i]), 0);
	/* Nearest rank: ceil(q * 5)-th smallest. */
	assert_int_equal(bt_dist_quantile(&d, 0.0), 10);
	assert_int_equal(bt_dist_quantile(&d, 0.2), 10);
	assert_int_equal(bt_dist_quantile(&d, 0.21), 20);
	assert_int_equal(bt_dist_quantile(&d, 0.5), 30);
	assert_int_equal(bt_dist_quantile(&d, 0.99), 50);
	assert_int_equal(bt_dist_quantile(&d, 1.0), 50);
	assert_int_equal(d.min, 10);
	assert_int_equal(d.max, 50);
	assert_int_equal(d.sum, 150);
	assert_true(bt_dist_mean(&d) == 30.0);
	bt_dist_free(&d);
}

static void test_stats_exact_up_to_limit(void **state)
{
	uint64_t v[BT_DIST_EXACT], sorted[BT_DIST_EXACT];
	static const double qs[] = { 0.001, 0.1, 0.5, 0.9, 0.99, 0.999, 1.0 };
	struct bt_dist d;

	(void)state;
	bt_dist_init(&d);
	for (size_t i = 0; i < BT_DIST_EXACT; i++) {
		/* Values far apart, where a bucketed answer would be off. */
		v[i] = rnd() % 1000000007u;
		assert_int_equal(bt_dist_add(&d, v[i]), 0);
	}
	memcpy(sorted, v, sizeof(v));
	qsort(sorted, BT_DIST_EXACT, sizeof(sorted[0]), cmp_u64);
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
		assert_int_equal(bt_dist_quantile(&d, qs[i]),
				 ref_quantile(sorted, BT_DIST_EXACT, qs[i]));
	bt_dist_free(&d);
}

static void test_stats_rank_ignores_rounding_of_q_times_n(void **state)
{
	struct bt_dist d;

	(void)state;
	bt_dist_init(&d);
	for (uint64_t v = 1; v <= 100; v++)
		bt_dist_add(&d, v);
	/* In doubles 0.07 * 100 is 7.000000000000001: still rank 7. */
	assert_int_equal(bt_dist_quantile(&d, 0.07), 7);
	assert_int_equal(bt_dist_quantile(&d, 0.29), 29);
	assert_int_equal(bt_dist_quantile(&d, 0.57), 57);
	assert_int_equal(bt_dist_quantile(&d, 0.575), 58);
	bt_dist_free(&d);
}

static void test_stats_add_after_quantile_resorts(void **state)
{
	struct bt_dist d;

	(void)state;
	bt_dist_init(&d);
	bt_dist_add(&d, 5);
	bt_dist_add(&d, 7);
	bt_dist_add(&d, 9);
	assert_int_equal(bt_dist_quantile(&d, 0.5), 7);
	bt_dist_add(&d, 1);
	bt_dist_add(&d, 2);
	assert_int_equal(bt_dist_quantile(&d, 0.5), 5);
	bt_dist_free(&d);
}

static void check_bucketed(uint64_t (*gen)(void), size_t n)
{
	static const double qs[] = { 0.0, 0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 1.0 };
	uint64_t *v = malloc(n * sizeof(*v)), sum = 0, got, want, diff;
	struct bt_dist d;

	assert_non_null(v);
	bt_dist_init(&d);
	for (size_t i = 0; i < n; i++) {
		v[i] = gen();
		sum += v[i];
		assert_int_equal(bt_dist_add(&d, v[i]), 0);
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	assert_int_equal(d.n, n);
	assert_int_equal(d.min, v[0]);
	assert_int_equal(d.max, v[n - 1]);
	assert_int_equal(d.sum, sum);
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		got = bt_dist_quantile(&d, qs[i]);
		want = ref_quantile(v, n, qs[i]);
		diff = got > want ? got - want : want - got;
		/* relative error under 1/128 */
		if (diff * 128 >= want && diff) {
			fail_msg("q=%g: got %llu, want %llu", qs[i],
				 (unsigned long long)got, (unsigned long long)want);
		}
	}
	bt_dist_free(&d);
	free(v);
}

/* Latency-like: log-uniform from 1 ns to about 17 s. */
static uint64_t gen_latency(void)
{
	unsigned e = (unsigned)(rnd() % 34);

	return ((uint64_t)1 << e) + rnd() % ((uint64_t)1 << e);
}

/* Small values, where buckets must be exact. */
static uint64_t gen_small(void)
{
	return rnd() % 200;
}

/* The top of the range: no overflow in bucket arithmetic. */
static uint64_t gen_huge(void)
{
	return UINT64_MAX - rnd() % ((uint64_t)1 << 62);
}

static void test_stats_bucket_accuracy_beyond_exact(void **state)
{
	(void)state;
	check_bucketed(gen_latency, 200000);
}

static void test_stats_bucket_small_values(void **state)
{
	(void)state;
	check_bucketed(gen_small, 50000);
}

static void test_stats_bucket_huge_values(void **state)
{
	(void)state;
	/* Sum saturates; check quantiles only with a few samples per run. */
	struct bt_dist d;
	uint64_t v[3000], got, want, diff;

	bt_dist_init(&d);
	for (size_t i = 0; i < 3000; i++) {
		v[i] = gen_huge();
		assert_int_equal(bt_dist_add(&d, v[i]), 0);
	}
	assert_int_equal(d.sum, UINT64_MAX);
	qsort(v, 3000, sizeof(v[0]), cmp_u64);
	got = bt_dist_quantile(&d, 0.5);
	want = ref_quantile(v, 3000, 0.5);
	diff = got > want ? got - want : want - got;
	assert_true(diff < want / 128);
	bt_dist_free(&d);
}

/*
 * The bound the man pages state, on the worst samples there are: past
 * BT_DIST_EXACT samples a quantile is the middle of its log-linear bucket
 * (64 per power of two, width 2^(e-6) for values in [2^e, 2^(e+1)), values
 * below 128 exact), so the error is at most half a width, relative to the
 * true value under 2^(e-7) / 2^e = 1/128.  Worst cases: the top and the
 * bottom of the first bucket of each power of two, with far smaller and
 * larger samples around so the clamp to [min, max] cannot help.  The worst
 * error must also come near the bound (above 1/130), or the man pages
 * overstate it.
 */
static void test_stats_bucket_error_bound_adversarial(void **state)
{
	double worst = 0;

	(void)state;
	for (unsigned e = 7; e < 63; e++) {
		uint64_t width = (uint64_t)1 << (e - 6);
		uint64_t edge[2] = { ((uint64_t)1 << e) + width - 1,
				     (uint64_t)1 << e };

		for (int k = 0; k < 2; k++) {
			struct bt_dist d;
			uint64_t got, diff;
			double rel;

			bt_dist_init(&d);
			assert_int_equal(bt_dist_add(&d, 1), 0);
			assert_int_equal(bt_dist_add(&d, UINT64_MAX), 0);
			for (size_t i = 0; i < 2 * BT_DIST_EXACT; i++)
				assert_int_equal(bt_dist_add(&d, edge[k]), 0);
			assert_non_null(d.buckets);
			got = bt_dist_quantile(&d, 0.5);
			diff = got > edge[k] ? got - edge[k] : edge[k] - got;
			rel = (double)diff / (double)edge[k];
			if (diff * 128 >= edge[k] && diff)
				fail_msg("2^%u %s: got %llu for %llu (%.5f)", e,
					 k ? "bottom" : "top",
					 (unsigned long long)got,
					 (unsigned long long)edge[k], rel);
			if (rel > worst)
				worst = rel;
			bt_dist_free(&d);
		}
	}
	assert_true(worst > 1.0 / 130);
}

static void test_stats_memory_bounded_after_spill(void **state)
{
	struct bt_dist d;

	(void)state;
	bt_dist_init(&d);
	for (uint64_t i = 0; i <= BT_DIST_EXACT; i++)
		bt_dist_add(&d, i * 1000);
	/* Past the limit the exact samples are gone: buckets only. */
	assert_null(d.exact);
	assert_non_null(d.buckets);
	assert_int_equal(d.n, BT_DIST_EXACT + 1);
	bt_dist_free(&d);
	assert_null(d.buckets);
	assert_int_equal(d.n, 0);
}

/*
 * bt_dist_add_n(v, n) is n bt_dist_add(v): across the spill from exact
 * samples to buckets, and with a sum that saturates.
 */
static void test_stats_add_n_is_n_adds(void **state)
{
	static const uint64_t v[] = { 7, 1000, 123456789, 3, 1000, 99999 };
	static const uint64_t n[] = { 1, 600, 0, 700, 5, 2000 };
	struct bt_dist a, b;
	static const double q[] = { 0.01, 0.25, 0.5, 0.9, 0.999, 1 };

	(void)state;
	bt_dist_init(&a);
	bt_dist_init(&b);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		assert_int_equal(bt_dist_add_n(&a, v[i], n[i]), 0);
		for (uint64_t k = 0; k < n[i]; k++)
			assert_int_equal(bt_dist_add(&b, v[i]), 0);
		assert_int_equal(a.n, b.n);
		assert_int_equal(a.sum, b.sum);
		assert_int_equal(a.min, b.min);
		assert_int_equal(a.max, b.max);
	}
	assert_non_null(a.buckets);
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++)
		assert_int_equal(bt_dist_quantile(&a, q[i]),
				 bt_dist_quantile(&b, q[i]));
	assert_int_equal(bt_dist_add_n(&a, UINT64_MAX / 2, 3), 0);
	assert_int_equal(a.sum, UINT64_MAX);
	bt_dist_free(&a);
	bt_dist_free(&b);
}

/*
 * Merged distributions must equal the one fed every sample: btlat's
 * `all` rows are built so.  Parts that stay exact, that spill only when
 * merged, and bucketed into exact and back, with a saturating sum.
 */
static void test_stats_merge_is_adding_each_sample(void **state)
{
	static const uint32_t sizes[][3] = {
		{ 0, 0, 0 }, { 3, 0, 5 }, { 300, 500, 224 }, { 300, 500, 225 },
		{ 600, 600, 0 }, { 2000, 10, 1 }, { 10, 2000, 3000 },
		{ 1025, 1025, 1025 },
	};
	static const double q[] = { 0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 1 };
	struct bt_dist part[3], all, ref;

	(void)state;
	for (size_t c = 0; c < sizeof(sizes) / sizeof(sizes[0]); c++) {
		bt_dist_init(&all);
		bt_dist_init(&ref);
		for (int p = 0; p < 3; p++) {
			bt_dist_init(&part[p]);
			for (uint32_t i = 0; i < sizes[c][p]; i++) {
				uint64_t v = rnd() >> (rnd() % 64);

				if (c == 1 && p == 2)
					v = UINT64_MAX / 4;	/* sum saturates */
				assert_int_equal(bt_dist_add(&part[p], v), 0);
				assert_int_equal(bt_dist_add(&ref, v), 0);
			}
			/* a quantile sorts the part in place first */
			(void)bt_dist_quantile(&part[p], 0.5);
		}
		for (int p = 0; p < 3; p++)
			assert_int_equal(bt_dist_merge(&all, &part[p]), 0);
		assert_int_equal(all.n, ref.n);
		assert_int_equal(all.sum, ref.sum);
		assert_int_equal(all.min, ref.min);
		assert_int_equal(all.max, ref.max);
		assert_int_equal(all.buckets != NULL, ref.buckets != NULL);
		assert_int_equal(all.nexact, ref.nexact);
		for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++)
			assert_int_equal(bt_dist_quantile(&all, q[i]),
					 bt_dist_quantile(&ref, q[i]));
		for (int p = 0; p < 3; p++)
			bt_dist_free(&part[p]);
		bt_dist_free(&all);
		bt_dist_free(&ref);
	}
}

static void test_stats_log2_bounds(void **state)
{
	uint64_t lo, hi;

	(void)state;
	bt_log2_bounds(0, &lo, &hi);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 0);
	bt_log2_bounds(1, &lo, &hi);
	assert_int_equal(lo, 1);
	assert_int_equal(hi, 1);
	bt_log2_bounds(13, &lo, &hi);
	assert_int_equal(lo, 4096);
	assert_int_equal(hi, 8191);
	bt_log2_bounds(64, &lo, &hi);
	assert_int_equal(lo, (uint64_t)1 << 63);
	assert_int_equal(hi, UINT64_MAX);
	/* Buckets tile the range: each starts right after the previous. */
	for (unsigned k = 1; k <= 64; k++) {
		uint64_t plo, phi;

		bt_log2_bounds(k - 1, &plo, &phi);
		bt_log2_bounds(k, &lo, &hi);
		assert_int_equal(lo, phi + 1);
		assert_true(hi >= lo);
	}
}

static void test_stats_log2_values_land_in_bounds(void **state)
{
	struct bt_log2 h;
	static const uint64_t edges[] = { 0, 1, 2, 3, 4, 4095, 4096, 4097,
					  UINT64_MAX };

	(void)state;
	memset(&h, 0, sizeof(h));
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		struct bt_log2 one;
		uint64_t lo, hi;
		unsigned k, hits = 0;

		memset(&one, 0, sizeof(one));
		bt_log2_add(&one, edges[i]);
		bt_log2_add(&h, edges[i]);
		for (k = 0; k < 65; k++) {
			if (!one.count[k])
				continue;
			hits++;
			bt_log2_bounds(k, &lo, &hi);
			assert_true(edges[i] >= lo && edges[i] <= hi);
		}
		assert_int_equal(hits, 1);
		assert_int_equal(one.total, 1);
	}
	assert_int_equal(h.total, 9);
	assert_int_equal(h.count[0], 1);
	assert_int_equal(h.count[2], 2);	/* 2, 3 */
	assert_int_equal(h.count[13], 2);	/* 4096, 4097 */
	assert_int_equal(h.count[64], 1);
}

/* The one nearest-rank rule, rounding of q*n included (lib/stats.c). */
static void test_stats_nearest_rank(void **state)
{
	(void)state;
	assert_int_equal(bt_nearest_rank(0.07, 100), 7);	/* 7.000000000000001 */
	assert_int_equal(bt_nearest_rank(0.5, 3), 2);
	assert_int_equal(bt_nearest_rank(0.5, 4), 2);
	assert_int_equal(bt_nearest_rank(0.99, 100), 99);
	assert_int_equal(bt_nearest_rank(0.99, 101), 100);
	assert_int_equal(bt_nearest_rank(0, 5), 1);
	assert_int_equal(bt_nearest_rank(1, 5), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_nearest_rank),
		cmocka_unit_test(test_stats_empty_dist_is_zero),
		cmocka_unit_test(test_stats_exact_quantiles_small),
		cmocka_unit_test(test_stats_exact_up_to_limit),
		cmocka_unit_test(test_stats_rank_ignores_rounding_of_q_times_n),
		cmocka_unit_test(test_stats_add_after_quantile_resorts),
		cmocka_unit_test(test_stats_bucket_accuracy_beyond_exact),
		cmocka_unit_test(test_stats_bucket_small_values),
		cmocka_unit_test(test_stats_bucket_huge_values),
		cmocka_unit_test(test_stats_bucket_error_bound_adversarial),
		cmocka_unit_test(test_stats_memory_bounded_after_spill),
		cmocka_unit_test(test_stats_add_n_is_n_adds),
		cmocka_unit_test(test_stats_merge_is_adding_each_sample),
		cmocka_unit_test(test_stats_log2_bounds),
		cmocka_unit_test(test_stats_log2_values_land_in_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
