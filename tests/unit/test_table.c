// SPDX-License-Identifier: MIT
/*
 * test_table.c - the report table: TSV and CSV layout, quoting of awkward
 * cells, -H, number formats (µs, s, dev), JSON Lines (keys, numbers,
 * nulls, escapes), HTML (header cells, escapes, number cells, the
 * closing tags from bt_table_free()), refusal of rows with the wrong cell count, and write
 * errors surfacing from bt_table_free().
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include "btkit.h"

/* A table writing into memory; the text is read back with finish(). */
struct sink {
	FILE *fp;
	char *buf;
	size_t len;
	struct bt_table *t;
};

static void open_sink(struct sink *s, enum bt_table_fmt fmt, int header,
		      const char *const *cols, size_t ncols)
{
	memset(s, 0, sizeof(*s));
	s->fp = open_memstream(&s->buf, &s->len);
	assert_non_null(s->fp);
	assert_int_equal(bt_table_new(&s->t, s->fp, fmt, header, cols, ncols), 0);
	assert_non_null(s->t);
}

static void finish(struct sink *s, const char *want)
{
	assert_int_equal(bt_table_free(s->t), 0);
	assert_int_equal(fclose(s->fp), 0);
	assert_string_equal(s->buf, want);
	free(s->buf);
}

static const char *const cols3[] = { "dev", "name", "n" };

static void test_table_tsv_header_and_rows(void **state)
{
	struct sink s;

	(void)state;
	open_sink(&s, BT_TABLE_TSV, 1, cols3, 3);
	bt_table_dev(s.t, BT_DEV_MAKE(8, 16));
	bt_table_str(s.t, "fio");
	bt_table_u64(s.t, 42);
	assert_int_equal(bt_table_end_row(s.t), 0);
	bt_table_dev(s.t, BT_DEV_MAKE(259, 0));
	bt_table_str(s.t, "kworker/0:1H");
	bt_table_u64(s.t, 0);
	assert_int_equal(bt_table_end_row(s.t), 0);
	finish(&s, "dev\tname\tn\n"
		   "8,16\tfio\t42\n"
		   "259,0\tkworker/0:1H\t0\n");
}

static void test_table_tsv_blanks_tabs_and_newlines_in_cells(void **state)
{
	struct sink s;

	(void)state;
	open_sink(&s, BT_TABLE_TSV, 0, cols3, 3);
	bt_table_str(s.t, "a\tb");
	bt_table_str(s.t, "two\nlines");
	bt_table_str(s.t, "");
	assert_int_equal(bt_table_end_row(s.t), 0);
	finish(&s, "a b\ttwo lines\t\n");
}

static void test_table_csv_quotes_commas_quotes_newlines(void **state)
{
	struct sink s;
	static const char *const cols[] = { "a,b", "plain", "q", "nl", "cr" };

	(void)state;
	open_sink(&s, BT_TABLE_CSV, 1, cols, 5);
	bt_table_str(s.t, "x,y");
	bt_table_str(s.t, "jbd2/sda1-8");
	bt_table_str(s.t, "say \"hi\"");
	bt_table_str(s.t, "one\ntwo");
	bt_table_str(s.t, "a\rb");
	assert_int_equal(bt_table_end_row(s.t), 0);
	finish(&s, "\"a,b\",plain,q,nl,cr\n"
		   "\"x,y\",jbd2/sda1-8,\"say \"\"hi\"\"\",\"one\ntwo\",\"a\rb\"\n");
}

static void test_table_csv_numbers_stay_bare(void **state)
{
	struct sink s;
	static const char *const cols[] = { "dev", "us", "s", "i", "d" };

	(void)state;
	open_sink(&s, BT_TABLE_CSV, 0, cols, 5);
	bt_table_dev(s.t, BT_DEV_MAKE(7, 1));
	bt_table_us(s.t, 1500);
	bt_table_s(s.t, 2000000001);
	bt_table_i64(s.t, -3);
	bt_table_double(s.t, 0.125, 2);
	assert_int_equal(bt_table_end_row(s.t), 0);
	/* The dev cell holds a comma, so CSV must quote it. */
	finish(&s, "\"7,1\",1.500,2.000000001,-3,0.12\n");
}

static void test_table_no_header_with_H(void **state)
{
	struct sink s;

	(void)state;
	open_sink(&s, BT_TABLE_TSV, 0, cols3, 3);
	bt_table_str(s.t, "a");
	bt_table_str(s.t, "b");
	bt_table_str(s.t, "c");
	assert_int_equal(bt_table_end_row(s.t), 0);
	finish(&s, "a\tb\tc\n");
}

static void test_table_time_formats(void **state)
{
	struct sink s;
	static const char *const cols[] = { "v" };
	static const struct { uint64_t ns; const char *us, *s; } cases[] = {
		{ 0, "0.000", "0.000000000" },
		{ 1, "0.001", "0.000000001" },
		{ 999, "0.999", "0.000000999" },
		{ 1234567, "1234.567", "0.001234567" },
		{ 99999999, "99999.999", "0.099999999" },
		{ 123456789, "123456.789", "0.123456789" },
		{ 999999999, "999999.999", "0.999999999" },
		{ 1000000000, "1000000.000", "1.000000000" },
		{ UINT64_MAX, "18446744073709551.615", "18446744073.709551615" },
	};
	char want[1024] = "";

	(void)state;
	open_sink(&s, BT_TABLE_TSV, 0, cols, 1);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bt_table_us(s.t, cases[i].ns);
		assert_int_equal(bt_table_end_row(s.t), 0);
		bt_table_s(s.t, cases[i].ns);
		assert_int_equal(bt_table_end_row(s.t), 0);
		strcat(want, cases[i].us);
		strcat(want, "\n");
		strcat(want, cases[i].s);
		strcat(want, "\n");
	}
	finish(&s, want);
}

static void test_table_integer_extremes(void **state)
{
	struct sink s;
	static const char *const cols[] = { "u", "i", "j", "dev" };

	(void)state;
	open_sink(&s, BT_TABLE_TSV, 0, cols, 4);
	bt_table_u64(s.t, UINT64_MAX);
	bt_table_i64(s.t, INT64_MIN);
	bt_table_i64(s.t, INT64_MAX);
	bt_table_dev(s.t, 0xffffffffu);
	assert_int_equal(bt_table_end_row(s.t), 0);
	finish(&s, "18446744073709551615\t-9223372036854775808\t"
		   "9223372036854775807\t4095,1048575\n");
}

/* Every digit count of bt_table_u64 and bt_table_i64 as printf has it. */
static void test_table_integers_at_every_length(void **state)
{
	static const char *const cols[] = { "u", "i" };
	char want[8192] = "", line[64];
	struct sink s;
	uint64_t v = 1;

	(void)state;
	open_sink(&s, BT_TABLE_CSV, 0, cols, 2);
	for (int k = 0; k < 20; k++, v *= 10) {
		uint64_t x[3] = { v - 1, v, v + 7 };

		for (int j = 0; j < 3; j++) {
			bt_table_u64(s.t, x[j]);
			bt_table_i64(s.t, -(int64_t)(x[j] >> 1));
			assert_int_equal(bt_table_end_row(s.t), 0);
			snprintf(line, sizeof(line), "%" PRIu64 ",%" PRId64 "\n",
				 x[j], -(int64_t)(x[j] >> 1));
			strcat(want, line);
		}
	}
	finish(&s, want);
}

static void test_table_wrong_cell_count_is_einval(void **state)
{
	struct sink s;

	(void)state;
	open_sink(&s, BT_TABLE_TSV, 1, cols3, 3);
	bt_table_str(s.t, "too");
	bt_table_str(s.t, "few");
	assert_int_equal(bt_table_end_row(s.t), -EINVAL);
	for (int i = 0; i < 4; i++)
		bt_table_u64(s.t, (uint64_t)i);
	assert_int_equal(bt_table_end_row(s.t), -EINVAL);
	/* The refused rows left nothing behind; the next good row is whole. */
	bt_table_u64(s.t, 7);
	bt_table_u64(s.t, 8);
	bt_table_u64(s.t, 9);
	assert_int_equal(bt_table_end_row(s.t), 0);
	finish(&s, "dev\tname\tn\n7\t8\t9\n");
}

static void test_table_write_error_is_eio(void **state)
{
	FILE *fp = fopen("/dev/full", "w");
	struct bt_table *t;

	(void)state;
	if (!fp) {
		print_message("no /dev/full: cannot provoke a write error\n");
		skip();
	}
	assert_int_equal(bt_table_new(&t, fp, BT_TABLE_CSV, 1, cols3, 3), 0);
	for (int i = 0; i < 10000; i++) {
		bt_table_u64(t, (uint64_t)i);
		bt_table_str(t, "x");
		bt_table_us(t, 1);
		assert_int_equal(bt_table_end_row(t), 0);
	}
	assert_int_equal(bt_table_free(t), -EIO);
	fclose(fp);
}

static void test_table_new_rejects_no_columns(void **state)
{
	struct bt_table *t = (struct bt_table *)1;

	(void)state;
	assert_int_equal(bt_table_new(&t, stdout, BT_TABLE_TSV, 1, cols3, 0),
			 -EINVAL);
	assert_null(t);
}

static const char *const jcols[] = { "dev", "comm", "n", "lat_us", "x" };

static void test_table_json_rows_keyed_by_column_names(void **state)
{
	struct sink s;

	(void)state;
	/* header asked for: JSON Lines has none, each row names its columns */
	open_sink(&s, BT_TABLE_JSON, 1, jcols, 5);
	bt_table_dev(s.t, BT_DEV_MAKE(8, 16));
	bt_table_str(s.t, "fio");
	bt_table_u64(s.t, 42);
	bt_table_us(s.t, 1234567);
	bt_table_i64(s.t, -3);
	assert_int_equal(bt_table_end_row(s.t), 0);
	bt_table_dev(s.t, BT_DEV_MAKE(259, 0));
	bt_table_str(s.t, "123");	/* text stays text */
	bt_table_s(s.t, 1500000000);
	bt_table_double(s.t, 0.25, 2);
	bt_table_double(s.t, 7, 0);
	assert_int_equal(bt_table_end_row(s.t), 0);
	finish(&s, "{\"dev\":\"8,16\",\"comm\":\"fio\",\"n\":42,"
		   "\"lat_us\":1234.567,\"x\":-3}\n"
		   "{\"dev\":\"259,0\",\"comm\":\"123\",\"n\":1.500000000,"
		   "\"lat_us\":0.25,\"x\":7}\n");
}

static void test_table_json_empty_dash_and_nonfinite_are_null(void **state)
{
	static const char *const cols[] = { "a", "b", "c", "d", "e" };
	struct sink s;

	(void)state;
	open_sink(&s, BT_TABLE_JSON, 0, cols, 5);
	bt_table_str(s.t, "");
	bt_table_str(s.t, "-");
	bt_table_str(s.t, NULL);
	bt_table_double(s.t, NAN, 3);
	bt_table_double(s.t, -INFINITY, 3);
	assert_int_equal(bt_table_end_row(s.t), 0);
	finish(&s, "{\"a\":null,\"b\":null,\"c\":null,\"d\":null,\"e\":null}\n");
}

static void test_table_json_escapes_quotes_controls_and_bad_utf8(void **state)
{
	static const char *const cols[] = { "we\"ird", "t" };
	struct sink s;

	(void)state;
	open_sink(&s, BT_TABLE_JSON, 0, cols, 2);
	bt_table_str(s.t, "a\"b\\c\td\ne\x01");
	/* valid UTF-8 (é, U+20AC) kept; a lone 0xff and a surrogate escaped */
	bt_table_str(s.t, "\xc3\xa9\xe2\x82\xac\xff\xed\xa0\x80");
	assert_int_equal(bt_table_end_row(s.t), 0);
	finish(&s, "{\"we\\\"ird\":\"a\\\"b\\\\c\\td\\ne\\u0001\","
		   "\"t\":\"\xc3\xa9\xe2\x82\xac\\u00ff\\u00ed\\u00a0\\u0080\"}\n");
}

static void test_table_json_wrong_cell_count_is_einval(void **state)
{
	static const char *const cols[] = { "a", "b" };
	struct sink s;

	(void)state;
	open_sink(&s, BT_TABLE_JSON, 0, cols, 2);
	bt_table_u64(s.t, 1);
	assert_int_equal(bt_table_end_row(s.t), -EINVAL);
	bt_table_u64(s.t, 1);
	bt_table_u64(s.t, 2);
	bt_table_u64(s.t, 3);
	assert_int_equal(bt_table_end_row(s.t), -EINVAL);
	bt_table_u64(s.t, 4);
	bt_table_str(s.t, "x");
	assert_int_equal(bt_table_end_row(s.t), 0);
	finish(&s, "{\"a\":4,\"b\":\"x\"}\n");
}

static void test_table_html_header_rows_and_closing(void **state)
{
	struct sink s;

	(void)state;
	open_sink(&s, BT_TABLE_HTML, 1, cols3, 3);
	bt_table_dev(s.t, BT_DEV_MAKE(8, 16));
	bt_table_str(s.t, "fio");
	bt_table_us(s.t, 1234567);
	assert_int_equal(bt_table_end_row(s.t), 0);
	/* a short row is dropped whole, its <tr> with it */
	bt_table_u64(s.t, 1);
	assert_int_equal(bt_table_end_row(s.t), -EINVAL);
	bt_table_none(s.t);
	bt_table_empty(s.t, 1);
	bt_table_double(s.t, 0.5, 2);
	assert_int_equal(bt_table_end_row(s.t), 0);
	finish(&s, "<table>\n"
		   "<thead><tr><th>dev</th><th>name</th><th>n</th></tr></thead>\n"
		   "<tbody>\n"
		   "<tr><td>8,16</td><td>fio</td><td class=\"num\">1234.567</td></tr>\n"
		   "<tr><td>-</td><td></td><td class=\"num\">0.50</td></tr>\n"
		   "</tbody></table>\n");
}

static void test_table_html_escapes_markup_controls_and_bad_utf8(void **state)
{
	static const char *const cols[] = { "<a&b>", "t" };
	struct sink s;

	(void)state;
	open_sink(&s, BT_TABLE_HTML, 1, cols, 2);
	bt_table_str(s.t, "<script>\"x\"&amp;\t\x01");
	/* valid UTF-8 (é) kept; a lone 0xff and a surrogate replaced */
	bt_table_str(s.t, "\xc3\xa9\xff\xed\xa0\x80");
	assert_int_equal(bt_table_end_row(s.t), 0);
	finish(&s, "<table>\n"
		   "<thead><tr><th>&lt;a&amp;b&gt;</th><th>t</th></tr></thead>\n"
		   "<tbody>\n"
		   "<tr><td>&lt;script&gt;&quot;x&quot;&amp;amp; ?</td>"
		   "<td>\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd</td></tr>\n"
		   "</tbody></table>\n");
}

static void test_table_html_without_header_and_none_per_format(void **state)
{
	static const char *const cols[] = { "a" };
	static const char *const want[] = {
		"-\n", "\n", "{\"a\":null}\n",
		"<table>\n<tbody>\n<tr><td>-</td></tr>\n</tbody></table>\n",
	};
	static const enum bt_table_fmt fmts[] = {
		BT_TABLE_TSV, BT_TABLE_CSV, BT_TABLE_JSON, BT_TABLE_HTML,
	};
	struct sink s;

	(void)state;
	for (int i = 0; i < 4; i++) {
		open_sink(&s, fmts[i], 0, cols, 1);
		bt_table_none(s.t);
		assert_int_equal(bt_table_end_row(s.t), 0);
		finish(&s, want[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_tsv_header_and_rows),
		cmocka_unit_test(test_table_tsv_blanks_tabs_and_newlines_in_cells),
		cmocka_unit_test(test_table_csv_quotes_commas_quotes_newlines),
		cmocka_unit_test(test_table_csv_numbers_stay_bare),
		cmocka_unit_test(test_table_no_header_with_H),
		cmocka_unit_test(test_table_time_formats),
		cmocka_unit_test(test_table_integer_extremes),
		cmocka_unit_test(test_table_integers_at_every_length),
		cmocka_unit_test(test_table_wrong_cell_count_is_einval),
		cmocka_unit_test(test_table_write_error_is_eio),
		cmocka_unit_test(test_table_new_rejects_no_columns),
		cmocka_unit_test(test_table_json_rows_keyed_by_column_names),
		cmocka_unit_test(test_table_json_empty_dash_and_nonfinite_are_null),
		cmocka_unit_test(test_table_json_escapes_quotes_controls_and_bad_utf8),
		cmocka_unit_test(test_table_json_wrong_cell_count_is_einval),
		cmocka_unit_test(test_table_html_header_rows_and_closing),
		cmocka_unit_test(test_table_html_escapes_markup_controls_and_bad_utf8),
		cmocka_unit_test(test_table_html_without_header_and_none_per_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
