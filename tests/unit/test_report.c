// SPDX-License-Identifier: MIT
/*
 * test_report.c - btplot's HTML report: a trace built in memory (a named
 * process, reads and a sync write with its flush) gives a page with the
 * title naming trace, device and span, the five pictures inline without
 * XML declaration or namespace, the five tables with the process's name
 * escaped, and nothing to fetch; two traces share the pictures and get a
 * table each, and btdiff's table of both with its verdict under it (one
 * trace has none); three traces get btdiff's ratio_LABEL columns; misuse
 * (no trace, a trace still open, too many) is -EINVAL or -E2BIG, never a
 * page.
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
#include "btkit.h"
#include "trace_build.h"

#define MS	1000000ull

/* Q G I D C of one request of pid 1234 at sector, from t on. */
static void request(struct tb *b, uint32_t *seq, uint64_t t, uint64_t sector,
		    uint32_t category, uint32_t bytes)
{
	static const uint32_t acts[] = {
		BT_A_QUEUE, BT_A_GETRQ, BT_A_INSERT, BT_A_ISSUE, BT_A_COMPLETE,
	};

	for (int i = 0; i < 5; i++) {
		struct bt_event e = tb_ev(t + (uint64_t)i * MS / 4, (*seq)++,
					  acts[i], category, bytes);

		e.sector = sector;
		tb_add(b, &e);
	}
}

/* A trace: the name "a<b&c" for pid 1234, reads, an fdatasync. */
static void build(struct tb *b)
{
	struct bt_event n = tb_note(0, 1234, "a<b&c");
	uint32_t seq = 1;

	tb_init(b, 0, 0);
	tb_add(b, &n);
	for (int i = 0; i < 8; i++)
		request(b, &seq, (uint64_t)i * 20 * MS, 1000 + 8 * (uint64_t)i,
			BT_TC_READ, 4096);
	request(b, &seq, 200 * MS, 5000, BT_TC_WRITE | BT_TC_SYNC, 4096);
	request(b, &seq, 202 * MS, 0, BT_TC_WRITE | BT_TC_FLUSH | BT_TC_SYNC, 0);
}

/* Read b as one trace of rp. */
static void add_trace(struct bt_report *rp, const struct tb *b,
		      const char *label)
{
	struct bt_reader *r;
	struct bt_event ev;
	int rc;

	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, b->buf, b->len, label), 0);
	assert_int_equal(bt_report_begin(rp, label, r), 0);
	while ((rc = bt_reader_next(r, &ev)) > 0)
		assert_int_equal(bt_report_feed(rp, &ev), 0);
	assert_int_equal(rc, 0);
	assert_int_equal(bt_report_end(rp), 0);
	bt_reader_free(r);
}

static char *page(struct bt_report *rp)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(bt_report_write(rp, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

static void test_report_page_has_title_pictures_and_tables(void **state)
{
	static const char *const ids[] = {
		"heatmap", "offset", "iops", "depth", "waits",
		"btsync", "btslice", "btlat", "btmerge", "btsize",
	};
	struct bt_report *rp;
	struct tb b;
	char *html, id[32];

	(void)state;
	build(&b);
	assert_int_equal(bt_report_new(&rp, NULL, 0), 0);
	add_trace(rp, &b, "t1");
	html = page(rp);
	assert_non_null(strstr(html, "<title>btplot report: t1</title>"));
	assert_non_null(strstr(html, "<h1>btplot report: t1 (device 8,16, 0.203 s)</h1>"));
	assert_int_equal(count(html, "<svg width="), 5);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		snprintf(id, sizeof(id), "<h2 id=\"%s\">", ids[i]);
		assert_int_equal(count(html, id), 1);
	}
	/* the traces' table and the five analyses', no comparison of one */
	assert_int_equal(count(html, "<table>"), 6);
	assert_null(strstr(html, "btdiff"));
	assert_null(strstr(html, "<p class=\"verdict\">"));
	assert_null(strstr(html, "No rows"));
	/* btsync's row: pid 1234 by its escaped name, one self-flushed episode */
	assert_non_null(strstr(html, "<tr><td class=\"num\">1234</td><td>a&lt;b&amp;c</td>"
				     "<td class=\"num\">1</td>"));
	assert_null(strstr(html, "a<b"));
	assert_null(strstr(html, "<?xml"));
	assert_null(strstr(html, "http"));
	assert_null(strstr(html, "<script"));
	assert_non_null(strstr(html, "</body>\n</html>\n"));
	free(html);
	bt_report_free(rp);
	tb_free(&b);
}

/*
 * Announced as one trace, the report makes no comparison; given a second
 * trace after all, it still writes the page, without btdiff's section.
 */
static void test_report_one_trace_announced_makes_no_comparison(void **state)
{
	struct bt_report *rp;
	struct tb b;
	char *html;

	(void)state;
	build(&b);
	assert_int_equal(bt_report_new(&rp, NULL, 1), 0);
	add_trace(rp, &b, "t1");
	add_trace(rp, &b, "t2");
	html = page(rp);
	assert_null(strstr(html, "btdiff"));
	assert_int_equal(count(html, "<svg width="), 5);
	free(html);
	bt_report_free(rp);
	tb_free(&b);
}

static void test_report_two_traces_share_pictures(void **state)
{
	struct bt_report *rp;
	struct tb b;
	char *html;

	(void)state;
	build(&b);
	assert_int_equal(bt_report_new(&rp, NULL, 0), 0);
	add_trace(rp, &b, "bfq");
	add_trace(rp, &b, "none");
	html = page(rp);
	assert_non_null(strstr(html, "<title>btplot report: bfq, none</title>"));
	assert_int_equal(count(html, "<svg width="), 5);
	/* a table per trace under its name, for each of the five tools */
	assert_int_equal(count(html, "<h3>bfq</h3>"), 5);
	assert_int_equal(count(html, "<h3>none</h3>"), 5);
	/* and btdiff's table of both, linked from the top, its verdict under it */
	assert_int_equal(count(html, "<table>"), 12);
	assert_int_equal(count(html, "<h2 id=\"btdiff\">"), 1);
	assert_int_equal(count(html, "<a href=\"#btdiff\">"), 1);
	assert_non_null(strstr(html, "<tr><th>group</th><th>metric</th><th>bfq</th>"
				     "<th>none</th><th>ratio</th></tr>"));
	assert_null(strstr(html, "ratio_"));
	/* the same trace twice: every ratio of the process's ios is 1 */
	assert_non_null(strstr(html, "<tr><td>a&lt;b&amp;c</td><td>ios</td>"
				     "<td class=\"num\">9</td><td class=\"num\">9</td>"
				     "<td class=\"num\">1.000</td></tr>"));
	assert_non_null(strstr(html, "</table>\n</div>\n<p class=\"verdict\">"
				     "verdict: all: lowest fsync p99 bfq ("));
	assert_non_null(strstr(html, "; a&lt;b&amp;c: lowest fsync p99 bfq ("));
	free(html);
	bt_report_free(rp);
	tb_free(&b);
}

static void test_report_three_traces_ratio_each_to_the_first(void **state)
{
	struct bt_report *rp;
	struct tb b;
	char *html;

	(void)state;
	build(&b);
	assert_int_equal(bt_report_new(&rp, NULL, 0), 0);
	add_trace(rp, &b, "a<1");
	add_trace(rp, &b, "b");
	add_trace(rp, &b, "c");
	html = page(rp);
	assert_non_null(strstr(html, "<tr><th>group</th><th>metric</th>"
				     "<th>a&lt;1</th><th>b</th><th>c</th>"
				     "<th>ratio</th><th>ratio_b</th><th>ratio_c</th></tr>"));
	assert_non_null(strstr(html, "<tr><td>all</td><td>ios</td>"
				     "<td class=\"num\">9</td><td class=\"num\">9</td>"
				     "<td class=\"num\">9</td><td class=\"num\">1.000</td>"
				     "<td class=\"num\">1.000</td><td class=\"num\">1.000</td></tr>"));
	free(html);
	bt_report_free(rp);
	tb_free(&b);
}

static void test_report_misuse_is_einval_or_e2big(void **state)
{
	struct bt_report *rp;
	struct bt_reader *r;
	struct bt_event ev = tb_ev(0, 1, BT_A_QUEUE, BT_TC_READ, 4096);
	FILE *f = fopen("/dev/null", "w");

	(void)state;
	assert_non_null(f);
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_report_new(&rp, NULL, 0), 0);
	assert_int_equal(bt_report_write(rp, f), -EINVAL);	/* no trace */
	assert_int_equal(bt_report_feed(rp, &ev), -EINVAL);	/* none begun */
	assert_int_equal(bt_report_end(rp), -EINVAL);
	assert_int_equal(bt_report_begin(rp, "a", NULL), -EINVAL);
	assert_int_equal(bt_report_begin(rp, "a", r), 0);
	assert_int_equal(bt_report_begin(rp, "b", r), -EINVAL);	/* a is open */
	assert_int_equal(bt_report_write(rp, f), -EINVAL);
	assert_int_equal(bt_report_end(rp), 0);
	for (int i = 1; i < BT_REPORT_MAX_TRACES; i++) {
		assert_int_equal(bt_report_begin(rp, "x", r), 0);
		assert_int_equal(bt_report_end(rp), 0);
	}
	assert_int_equal(bt_report_begin(rp, "y", r), -E2BIG);
	assert_int_equal(bt_report_write(rp, f), 0);
	bt_report_free(rp);
	bt_reader_free(r);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_page_has_title_pictures_and_tables),
		cmocka_unit_test(test_report_two_traces_share_pictures),
		cmocka_unit_test(test_report_one_trace_announced_makes_no_comparison),
		cmocka_unit_test(test_report_three_traces_ratio_each_to_the_first),
		cmocka_unit_test(test_report_misuse_is_einval_or_e2big),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
