// SPDX-License-Identifier: MIT
/*
 * test_plot.c - binning behind btplot (lib/plot.c): a time past the last
 * column merges columns pairwise and doubles the width without losing a
 * count, over any number of doublings; spans are cut exactly at column
 * edges; sector rows double the same way; two grids fed the same times
 * agree once brought to one width; latency buckets, the libm-free log2 and
 * tick steps; and the plots: a long stream of requests keeps the grid and
 * the picture's size fixed, two traces share one colour scale, plots of
 * different kinds are refused, depth is the mean in flight, and a wait's
 * bar is as long as the wait, not as its column.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "../../lib/plot_int.h"

static uint64_t sum_row(const struct bt_bins *b, uint32_t row)
{
	uint64_t s = 0;

	for (uint32_t c = 0; c < b->ncols; c++)
		s += bt_bins_at(b, c, row);
	return s;
}

static void test_plot_bins_merge_pairwise_when_span_doubles(void **state)
{
	struct bt_bins b;

	(void)state;
	assert_int_equal(bt_bins_init(&b, 4, 1, 100, 10, 0), 0);
	bt_bins_add(&b, 100, 0, 1);	/* column 0 */
	bt_bins_add(&b, 115, 0, 2);	/* column 1 */
	bt_bins_add(&b, 139, 0, 4);	/* column 3 */
	assert_int_equal(b.width, 10);
	assert_int_equal(b.used, 4);
	bt_bins_add(&b, 140, 0, 8);	/* past the end: width 20 */
	assert_int_equal(b.width, 20);
	assert_int_equal(b.ncols, 4);
	assert_int_equal(bt_bins_at(&b, 0, 0), 3);	/* 100..119 */
	assert_int_equal(bt_bins_at(&b, 1, 0), 4);	/* 120..139 */
	assert_int_equal(bt_bins_at(&b, 2, 0), 8);	/* 140..159 */
	assert_int_equal(bt_bins_at(&b, 3, 0), 0);
	assert_int_equal(b.used, 3);
	/* Several doublings at once: 100 + 1000 needs width 320. */
	bt_bins_add(&b, 1100, 0, 16);
	assert_int_equal(b.width, 320);
	assert_int_equal(bt_bins_at(&b, 0, 0), 15);
	assert_int_equal(bt_bins_at(&b, 3, 0), 16);
	/* Before the origin: column 0. */
	assert_int_equal(bt_bins_col(&b, 5), 0);
	bt_bins_free(&b);
}

static void test_plot_bins_total_kept_over_many_doublings(void **state)
{
	struct bt_bins b;
	uint64_t x = 88172645463325252ull, total = 0;

	(void)state;
	assert_int_equal(bt_bins_init(&b, 256, 3, 0, 1000, 0), 0);
	for (uint64_t i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* times growing to an hour, rows and values mixed */
		bt_bins_add(&b, i * 18000000ull + x % 1000, (uint32_t)(x % 3),
			    x % 7);
		total += x % 7;
	}
	assert_int_equal(sum_row(&b, 0) + sum_row(&b, 1) + sum_row(&b, 2), total);
	assert_int_equal(b.ncols, 256);
	assert_true(b.used > 128 && b.used <= 256);
	/* 1 us times a power of two */
	assert_int_equal(b.width % 1000, 0);
	assert_int_equal((b.width / 1000) & (b.width / 1000 - 1), 0);
	bt_bins_free(&b);
}

static void test_plot_bins_span_cut_at_column_edges(void **state)
{
	struct bt_bins b;

	(void)state;
	assert_int_equal(bt_bins_init(&b, 8, 2, 1000, 100, 0), 0);
	bt_bins_span(&b, 1050, 1320, 1);
	assert_int_equal(bt_bins_at(&b, 0, 1), 50);
	assert_int_equal(bt_bins_at(&b, 1, 1), 100);
	assert_int_equal(bt_bins_at(&b, 2, 1), 100);
	assert_int_equal(bt_bins_at(&b, 3, 1), 20);
	assert_int_equal(bt_bins_at(&b, 0, 0), 0);
	/* Empty and reversed spans add nothing; before the origin is cut. */
	bt_bins_span(&b, 1500, 1500, 0);
	bt_bins_span(&b, 1600, 1500, 0);
	bt_bins_span(&b, 900, 1010, 0);
	assert_int_equal(sum_row(&b, 0), 10);
	/* A span past the end merges first, then is cut at the new edges. */
	bt_bins_span(&b, 1700, 2100, 0);
	assert_int_equal(b.width, 200);
	assert_int_equal(bt_bins_at(&b, 3, 0), 100);	/* 1600..1799 */
	assert_int_equal(bt_bins_at(&b, 4, 0), 200);
	assert_int_equal(bt_bins_at(&b, 5, 0), 100);
	assert_int_equal(sum_row(&b, 1), 270);
	bt_bins_free(&b);
}

static void test_plot_bins_rows_double_for_large_values(void **state)
{
	struct bt_bins b;

	(void)state;
	assert_int_equal(bt_bins_init(&b, 2, 4, 0, 10, 1), 0);
	bt_bins_add(&b, 0, bt_bins_row(&b, 3), 1);
	assert_int_equal(b.rwidth, 1);
	assert_int_equal(bt_bins_row(&b, 9), 2);	/* rwidth 4 */
	assert_int_equal(b.rwidth, 4);
	bt_bins_add(&b, 0, 2, 1);
	assert_int_equal(bt_bins_at(&b, 0, 0), 1);	/* 3 fell into 0..3 */
	assert_int_equal(bt_bins_at(&b, 0, 2), 1);
	assert_int_equal(b.rused, 3);
	bt_bins_coarsen_rows(&b, 8);
	assert_int_equal(bt_bins_at(&b, 0, 1), 1);
	assert_int_equal(b.rwidth, 8);
	bt_bins_free(&b);
}

static void test_plot_bins_coarsen_brings_grids_to_one_width(void **state)
{
	struct bt_bins a, b;

	(void)state;
	assert_int_equal(bt_bins_init(&a, 16, 1, 0, 1000, 0), 0);
	assert_int_equal(bt_bins_init(&b, 16, 1, 0, 1000, 0), 0);
	for (uint64_t t = 0; t < 15000; t += 700) {
		bt_bins_add(&a, t, 0, 1);
		bt_bins_add(&b, t, 0, 1);
	}
	bt_bins_add(&b, 60000, 0, 1);	/* b goes to 4000 ns columns */
	assert_int_equal(a.width, 1000);
	assert_int_equal(b.width, 4000);
	bt_bins_coarsen(&a, b.width);
	assert_int_equal(a.width, 4000);
	for (uint32_t c = 0; c < 4; c++)
		assert_int_equal(bt_bins_at(&a, c, 0), bt_bins_at(&b, c, 0));
	bt_bins_free(&a);
	bt_bins_free(&b);
}

static void test_plot_bins_times_near_2_64_are_kept(void **state)
{
	struct bt_bins b;

	(void)state;
	assert_int_equal(bt_bins_init(&b, 4, 4, 0, 1000, 1), 0);
	bt_bins_add(&b, 10, bt_bins_row(&b, 1), 1);
	bt_bins_add(&b, UINT64_MAX, bt_bins_row(&b, UINT64_MAX), 2);
	bt_bins_span(&b, UINT64_MAX - 5, UINT64_MAX, 0);
	assert_true(b.width > 0 && b.rwidth > 0);
	assert_true(b.used <= 4 && b.rused <= 4);
	/* Nothing lost: 1, 2 and the 5 ns span, in cells of the grid. */
	assert_int_equal(sum_row(&b, 0) + sum_row(&b, 1) + sum_row(&b, 2) +
			 sum_row(&b, 3), 1 + 2 + 5);
	assert_int_equal(bt_bins_at(&b, 0, 0), 1);
	bt_bins_coarsen(&b, UINT64_MAX);
	assert_true(b.width > 0);
	bt_bins_free(&b);
}

static void test_plot_bins_rejects_bad_shapes(void **state)
{
	struct bt_bins b;

	(void)state;
	assert_int_equal(bt_bins_init(&b, 3, 1, 0, 10, 0), -EINVAL);
	assert_int_equal(bt_bins_init(&b, 4, 0, 0, 10, 0), -EINVAL);
	assert_int_equal(bt_bins_init(&b, 4, 1, 0, 0, 0), -EINVAL);
	assert_int_equal(bt_bins_init(&b, 4, 3, 0, 10, 1), -EINVAL);
}

static void test_plot_latency_buckets_log2_and_ticks(void **state)
{
	(void)state;
	assert_int_equal(bt_plot_lat_bucket(0), 0);
	assert_int_equal(bt_plot_lat_bucket(1999), 0);
	assert_int_equal(bt_plot_lat_bucket(2000), 1);
	assert_int_equal(bt_plot_lat_bucket(3999), 1);
	assert_int_equal(bt_plot_lat_bucket(4000), 2);
	assert_int_equal(bt_plot_lat_bucket(1024000), 10);
	assert_int_equal(bt_plot_lat_bucket(UINT64_MAX), BT_PLOT_LAT_ROWS - 1);
	assert_true(bt_plot_log2(1) == 0);
	assert_true(bt_plot_log2(0.5) == 0);
	assert_true(bt_plot_log2(8) > 2.999 && bt_plot_log2(8) < 3.001);
	assert_true(bt_plot_log2(10) > 3.3209 && bt_plot_log2(10) < 3.3229);
	assert_true(bt_plot_log2(1e6) > 19.92 && bt_plot_log2(1e6) < 19.94);
	assert_true(bt_plot_tick_step(5.4, 10) == 1);
	assert_true(bt_plot_tick_step(100, 5) == 20);
	assert_true(bt_plot_tick_step(0.34, 10) == 0.05);
	assert_true(bt_plot_tick_step(8000, 5) == 2000);
	assert_true(bt_plot_tick_step(0, 5) == 1);
}

/* A request that went Q at t, D at t + qd, C at t + qd + dc. */
static struct bt_request req(uint64_t t, uint64_t qd, uint64_t dc, char op,
			     uint32_t pid, uint64_t sector)
{
	struct bt_request r;

	memset(&r, 0, sizeof(r));
	r.q = r.g = r.i = t;
	r.d = r.d_first = t + qd;
	r.c = t + qd + dc;
	r.op = op;
	r.bytes = 4096;
	r.pid = pid;
	r.sector = sector;
	snprintf(r.comm, sizeof(r.comm), "p%u", pid);
	return r;
}

static struct bt_plot *plot_new(uint8_t kind, const char *label)
{
	struct bt_plot_opts o = { .kind = kind };
	struct bt_plot *p;

	assert_int_equal(bt_plot_new(&p, &o, label), 0);
	return p;
}

static void feed_span(struct bt_plot *p, uint64_t from, uint64_t to)
{
	struct bt_event e;

	memset(&e, 0, sizeof(e));
	e.time = from;
	bt_plot_event(p, &e);
	e.time = to;
	bt_plot_event(p, &e);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

static char *render(struct bt_plot **p, size_t n, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*rc = bt_plot_render(p, n, f);
	fclose(f);
	return buf;
}

/* Bytes of a one-trace picture of any kind with its grid full. */
#define LIMIT	(1200u * 1024)

static void test_plot_long_trace_keeps_size_fixed(void **state)
{
	static const uint8_t kinds[] = { BT_PLOT_HEATMAP, BT_PLOT_OFFSET,
					 BT_PLOT_IOPS, BT_PLOT_DEPTH,
					 BT_PLOT_WAITS };
	size_t sizes[2][5];
	int rc;

	(void)state;
	for (int round = 0; round < 2; round++) {
		/* 20 000 then 400 000 requests over 20 s then 400 s */
		uint64_t nreq = round ? 400000 : 20000;

		for (int k = 0; k < 5; k++) {
			struct bt_plot *p = plot_new(kinds[k], "t");
			uint32_t ncols;
			char *svg;

			feed_span(p, 0, nreq * 1000000);
			ncols = p->bins.ncols;
			for (uint64_t i = 0; i < nreq; i++) {
				struct bt_request r = req(i * 1000000, 1000 * (i % 50),
							  1000 << (i % 13), i % 3 ? 'R' : 'W',
							  (uint32_t)(i % 300), i * 997 % 4000000);

				assert_int_equal(bt_plot_request(p, &r), 0);
			}
			assert_int_equal(p->bins.ncols, ncols);
			svg = render(&p, 1, &rc);
			assert_int_equal(rc, 0);
			sizes[round][k] = strlen(svg);
			free(svg);
			bt_plot_free(p);
		}
	}
	/* Twenty times the trace, the grid full: still under the bound. */
	for (int k = 0; k < 5; k++)
		assert_true(sizes[0][k] < LIMIT && sizes[1][k] < LIMIT);
}

static void test_plot_two_traces_share_one_colour_scale(void **state)
{
	struct bt_plot *p[2] = { plot_new(BT_PLOT_HEATMAP, "many"),
				 plot_new(BT_PLOT_HEATMAP, "one<&>") };
	char c[8], *svg;
	int rc;

	(void)state;
	feed_span(p[0], 0, 1000000);
	feed_span(p[1], 0, 1000000);
	/* 16 requests of 100 us in one cell of "many", 1 in "one<&>" */
	for (int i = 0; i < 16; i++) {
		struct bt_request r = req(1000, 0, 100000, 'R', 1, 0);

		bt_plot_request(p[0], &r);
	}
	{
		struct bt_request r = req(1000, 0, 100000, 'R', 1, 0);

		bt_plot_request(p[1], &r);
	}
	svg = render(p, 2, &rc);
	assert_int_equal(rc, 0);
	/* Top of the scale in the first, bottom in the second. */
	assert_non_null(strstr(svg, bt_svg_viridis(1, c)));
	assert_non_null(strstr(svg, "16 requests</title>"));
	assert_non_null(strstr(svg, "1 requests</title>"));
	assert_int_equal(count(svg, "</title>"), 3);	/* two cells, legend */
	assert_non_null(strstr(svg, "one&lt;&amp;&gt;"));
	assert_null(strstr(svg, "one<"));
	{
		const char *cell = strstr(svg, "1 requests</title>");
		const char *fill = cell;

		while (fill > svg && strncmp(fill, "fill=", 5))
			fill--;
		assert_memory_equal(fill + 6, bt_svg_viridis(0, c), 7);
	}
	free(svg);
	bt_plot_free(p[0]);
	bt_plot_free(p[1]);
}

static void test_plot_render_refuses_mixed_kinds(void **state)
{
	struct bt_plot *p[2] = { plot_new(BT_PLOT_IOPS, "a"),
				 plot_new(BT_PLOT_DEPTH, "b") };
	char *svg;
	int rc;

	(void)state;
	svg = render(p, 2, &rc);
	assert_int_equal(rc, -EINVAL);
	free(svg);
	assert_int_equal(bt_plot_render(p, 0, stdout), -EINVAL);
	bt_plot_free(p[0]);
	bt_plot_free(p[1]);
}

static void test_plot_depth_is_mean_in_flight(void **state)
{
	struct bt_plot *p = plot_new(BT_PLOT_DEPTH, "d");
	struct bt_request r = req(0, 500, 1000, 'R', 1, 0);

	(void)state;
	feed_span(p, 0, 100);
	/* 0.5 us in the scheduler, 1 us at the driver, twice */
	bt_plot_request(p, &r);
	bt_plot_request(p, &r);
	assert_int_equal(bt_bins_at(&p->bins, 0, 0), 1000);
	assert_int_equal(bt_bins_at(&p->bins, 0, 1), 1000);
	assert_int_equal(bt_bins_at(&p->bins, 1, 1), 1000);
	/* Unfinished requests are not drawn. */
	r.flags = BT_RQ_EXPIRED;
	bt_plot_request(p, &r);
	assert_int_equal(bt_plot_samples(p), 2);
	bt_plot_free(p);
}

static void test_plot_waits_bar_length_is_time_waited(void **state)
{
	struct bt_plot *p = plot_new(BT_PLOT_WAITS, "w");
	struct bt_slice_ep ep;
	const char *tiny;
	char *svg;
	int rc;

	(void)state;
	feed_span(p, 0, 100000000);	/* 100 ms: 512 us columns */
	memset(&ep, 0, sizeof(ep));
	ep.pid = 5;
	ep.source = BT_SLICE_EVENTS;
	ep.queue = BT_SLICE_PROC;
	ep.start = 10000000;		/* 10 ms to 60 ms */
	ep.end = 60000000;
	ep.wait = ep.end - ep.start;
	assert_int_equal(bt_plot_slice(p, &ep, "p5"), 0);
	ep.start = 80000000;		/* 5 us */
	ep.end = 80005000;
	ep.wait = 5000;
	assert_int_equal(bt_plot_slice(p, &ep, "p5"), 0);
	svg = render(&p, 1, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(p->bins.width, 512000);
	/* The long wait: its two partly covered ends and one bar between. */
	assert_int_equal(count(svg, "<title>p5 5: slice wait, "), 3 + 1);
	assert_non_null(strstr(svg, "slice wait, 0.01024-0.0599 s: 49.7 ms (100%)"));
	/* The 5 us wait is a sliver, not a 512 us column. */
	tiny = strstr(svg, "5 \xc2\xb5s (0%)</title>");
	assert_non_null(tiny);
	while (tiny > svg && strncmp(tiny, "<rect", 5))
		tiny--;
	assert_non_null(strstr(tiny, "width=\"0.8\""));
	assert_true(strstr(tiny, "width=\"0.8\"") < strstr(tiny, "<title>"));
	free(svg);
	bt_plot_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plot_bins_merge_pairwise_when_span_doubles),
		cmocka_unit_test(test_plot_bins_total_kept_over_many_doublings),
		cmocka_unit_test(test_plot_bins_span_cut_at_column_edges),
		cmocka_unit_test(test_plot_bins_rows_double_for_large_values),
		cmocka_unit_test(test_plot_bins_coarsen_brings_grids_to_one_width),
		cmocka_unit_test(test_plot_bins_times_near_2_64_are_kept),
		cmocka_unit_test(test_plot_bins_rejects_bad_shapes),
		cmocka_unit_test(test_plot_latency_buckets_log2_and_ticks),
		cmocka_unit_test(test_plot_long_trace_keeps_size_fixed),
		cmocka_unit_test(test_plot_two_traces_share_one_colour_scale),
		cmocka_unit_test(test_plot_render_refuses_mixed_kinds),
		cmocka_unit_test(test_plot_depth_is_mean_in_flight),
		cmocka_unit_test(test_plot_waits_bar_length_is_time_waited),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
