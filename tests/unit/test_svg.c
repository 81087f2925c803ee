// SPDX-License-Identifier: MIT
/*
 * test_svg.c - the SVG writer (lib/svg.c): markup characters become
 * entities, control bytes and broken UTF-8 become '?' while valid UTF-8
 * passes, a short buffer still gets a terminated prefix and the full
 * length; numbers have no exponent, no "-0", no trailing zeros and a '.'
 * whatever the locale; elements close as "/>" or "</name>", titles and
 * attributes are escaped, a write error comes back from bt_svg_finish();
 * the palettes' ends and cycle.
 */
#include <errno.h>
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "btkit.h"

static const char *esc(const char *in)
{
	static char buf[256];

	bt_svg_escape(buf, sizeof(buf), in);
	return buf;
}

static void test_svg_escapes_markup_characters(void **state)
{
	(void)state;
	assert_string_equal(esc("<a href=\"x\">&'</a>"),
			    "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
	assert_string_equal(esc("plain 123"), "plain 123");
	assert_string_equal(esc(""), "");
}

static void test_svg_replaces_control_bytes(void **state)
{
	(void)state;
	/* XML 1.0 allows none of these, not even as &#1; references. */
	assert_string_equal(esc("a\x01" "b\x1f" "c\x7f" "d"), "a?b?c?d");
	assert_string_equal(esc("tab\there\nnl\r"), "tab here nl ");
	assert_string_equal(esc("\x1b[31mred"), "?[31mred");
}

static void test_svg_keeps_valid_utf8_replaces_broken(void **state)
{
	(void)state;
	assert_string_equal(esc("\xc2\xb5s \xe2\x82\xac \xf0\x9f\x98\x80"),
			    "\xc2\xb5s \xe2\x82\xac \xf0\x9f\x98\x80");
	assert_string_equal(esc("\xc3("), "?(");		/* lone lead byte */
	assert_string_equal(esc("\x80x"), "?x");		/* lone continuation */
	assert_string_equal(esc("\xc0\xaf"), "??");		/* overlong '/' */
	assert_string_equal(esc("\xed\xa0\x80"), "???");	/* surrogate */
	assert_string_equal(esc("\xef\xbf\xbf"), "???");	/* U+FFFF */
	assert_string_equal(esc("\xe2\x82"), "??");		/* cut at the end */
	assert_string_equal(esc("\xf4\x90\x80\x80"), "????");	/* > U+10FFFF */
}

static void test_svg_escape_short_buffer(void **state)
{
	char b[6];

	(void)state;
	assert_int_equal(bt_svg_escape(b, sizeof(b), "a<b"), 6);
	assert_string_equal(b, "a&lt;");
	assert_int_equal(bt_svg_escape(NULL, 0, "&&"), 10);
	assert_int_equal(bt_svg_escape(b, 1, "xyz"), 3);
	assert_string_equal(b, "");
}

static const char *n(double v, int dec)
{
	static char buf[64];

	bt_svg_num(buf, sizeof(buf), v, dec);
	return buf;
}

static void test_svg_number_formatting(void **state)
{
	(void)state;
	assert_string_equal(n(1.5, 2), "1.5");
	assert_string_equal(n(2.0, 3), "2");
	assert_string_equal(n(0, 2), "0");
	assert_string_equal(n(-0.0001, 3), "0");	/* no "-0" */
	assert_string_equal(n(1234.5678, 2), "1234.57");
	assert_string_equal(n(0.05, 2), "0.05");
	assert_string_equal(n(-3.25, 1), "-3.3");
	assert_string_equal(n(0.999, 2), "1");
	assert_string_equal(n(1e12, 0), "1000000000000");	/* no exponent */
	assert_string_equal(n(123.456, 0), "123");
	assert_string_equal(n(0.123456789, 12), "0.123456789");	/* at most 9 */
	assert_string_equal(n(7.25, -1), "7");
	assert_string_equal(n(0.0 / 0.0, 2), "0");
	assert_string_equal(n(1e300, 2), "0");
}

static void test_svg_number_ignores_locale(void **state)
{
	(void)state;
	/* A locale with a decimal comma, if the machine has one. */
	if (!setlocale(LC_NUMERIC, "de_DE.UTF-8") &&
	    !setlocale(LC_NUMERIC, "fr_FR.UTF-8"))
		setlocale(LC_NUMERIC, "C.UTF-8");
	assert_string_equal(n(3.5, 1), "3.5");
	assert_string_equal(n(-12.125, 3), "-12.125");
	setlocale(LC_NUMERIC, "C");
}

static void test_svg_document_structure(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct bt_svg *s;

	(void)state;
	assert_non_null(f);
	assert_int_equal(bt_svg_new(&s, f, 1200, 600.5, "text{fill:#000}"), 0);
	bt_svg_open(s, "g");
	bt_svg_attr(s, "class", "a\"b");
	bt_svg_open(s, "rect");
	bt_svg_attr_num(s, "x", 1.25, 1);
	bt_svg_attr_num(s, "y", -0.5, 2);
	bt_svg_close(s, "rect");
	bt_svg_open(s, "rect");
	bt_svg_attr_num(s, "width", 3, 2);
	bt_svg_title(s, "R <1 ms> & 2");
	bt_svg_close(s, "rect");
	bt_svg_open(s, "text");
	bt_svg_textf(s, "%d%s", 7, " µs & <more>");
	bt_svg_close(s, "text");
	bt_svg_close(s, "g");
	assert_int_equal(bt_svg_finish(s), 0);
	fclose(f);
	assert_non_null(strstr(buf, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
			       "width=\"1200\" height=\"600.5\" "
			       "viewBox=\"0 0 1200 600.5\">"));
	assert_non_null(strstr(buf, "<style><![CDATA[\ntext{fill:#000}\n]]></style>"));
	assert_non_null(strstr(buf, "<g class=\"a&quot;b\"><rect x=\"1.3\" "
			       "y=\"-0.5\"/>\n"));
	assert_non_null(strstr(buf, "<rect width=\"3\"><title>R &lt;1 ms&gt; "
			       "&amp; 2</title>\n</rect>\n"));
	assert_non_null(strstr(buf, "<text>7 µs &amp; &lt;more&gt;</text>\n"));
	assert_non_null(strstr(buf, "</g>\n</svg>\n"));
	free(buf);
}

static void test_svg_write_error_is_reported(void **state)
{
	FILE *f = fopen("/dev/full", "w");
	struct bt_svg *s;

	(void)state;
	if (!f)
		skip();
	assert_int_equal(bt_svg_new(&s, f, 10, 10, NULL), 0);
	for (int i = 0; i < 10000; i++) {
		bt_svg_open(s, "rect");
		bt_svg_close(s, "rect");
	}
	assert_int_equal(bt_svg_finish(s), -EIO);
	fclose(f);
}

static void test_svg_rejects_bad_size(void **state)
{
	struct bt_svg *s = (struct bt_svg *)1;

	(void)state;
	assert_int_equal(bt_svg_new(&s, stdout, 0, 10, NULL), -EINVAL);
	assert_null(s);
	assert_int_equal(bt_svg_new(&s, NULL, 10, 10, NULL), -EINVAL);
	assert_int_equal(bt_svg_finish(NULL), -EINVAL);
}

static void test_svg_palettes(void **state)
{
	char c[8];

	(void)state;
	assert_string_equal(bt_svg_viridis(0, c), "#440154");
	assert_string_equal(bt_svg_viridis(1, c), "#fde725");
	assert_string_equal(bt_svg_viridis(-3, c), "#440154");
	assert_string_equal(bt_svg_viridis(7, c), "#fde725");
	assert_string_equal(bt_svg_viridis(0.5, c), "#21918c");
	assert_string_equal(bt_svg_viridis(0.0 / 0.0, c), "#440154");
	assert_string_equal(bt_svg_category(0), "#0072b2");
	assert_string_equal(bt_svg_category(8), bt_svg_category(0));
	for (unsigned i = 0; i < 8; i++)
		for (unsigned j = i + 1; j < 8; j++)
			assert_string_not_equal(bt_svg_category(i),
						bt_svg_category(j));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_svg_escapes_markup_characters),
		cmocka_unit_test(test_svg_replaces_control_bytes),
		cmocka_unit_test(test_svg_keeps_valid_utf8_replaces_broken),
		cmocka_unit_test(test_svg_escape_short_buffer),
		cmocka_unit_test(test_svg_number_formatting),
		cmocka_unit_test(test_svg_number_ignores_locale),
		cmocka_unit_test(test_svg_document_structure),
		cmocka_unit_test(test_svg_write_error_is_reported),
		cmocka_unit_test(test_svg_rejects_bad_size),
		cmocka_unit_test(test_svg_palettes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
