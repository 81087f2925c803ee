// SPDX-License-Identifier: MIT
/*
 * test_common.c - the number parsers of the tools' plumbing
 * (tools/common.c, linked as the tools link it): whole string or nothing,
 * no sign, no blanks, the bound kept, every strtod form of a finite
 * non-negative number accepted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "../../tools/common.h"

static void test_common_parse_u64_whole_decimal_within_max(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_true(tool_parse_u64("0", 10, &v));
	assert_int_equal(v, 0);
	assert_true(tool_parse_u64("4294967295", UINT32_MAX, &v));
	assert_int_equal(v, UINT32_MAX);
	assert_true(tool_parse_u64("18446744073709551615", UINT64_MAX, &v));
	assert_true(v == UINT64_MAX);
	v = 7;
	assert_false(tool_parse_u64("4294967296", UINT32_MAX, &v));
	assert_false(tool_parse_u64("18446744073709551616", UINT64_MAX, &v));
	assert_false(tool_parse_u64("", 10, &v));
	assert_false(tool_parse_u64("-1", 10, &v));
	assert_false(tool_parse_u64("+1", 10, &v));
	assert_false(tool_parse_u64(" 1", 10, &v));
	assert_false(tool_parse_u64("1 ", 10, &v));
	assert_false(tool_parse_u64("1x", 10, &v));
	assert_false(tool_parse_u64("0x1", 10, &v));
	assert_int_equal(v, 7);	/* untouched on failure */
}

static void test_common_parse_double_strtod_forms(void **state)
{
	double v = -1;

	(void)state;
	assert_true(tool_parse_double("10", &v));
	assert_true(v == 10);
	assert_true(tool_parse_double("1e1", &v));
	assert_true(v == 10);
	assert_true(tool_parse_double("2.5E-1", &v));
	assert_true(v == 0.25);
	assert_true(tool_parse_double(".5", &v));
	assert_true(v == 0.5);
	assert_true(tool_parse_double("0x1p4", &v));
	assert_true(v == 16);
	assert_true(tool_parse_double("0", &v));
	assert_true(v == 0);
}

static void test_common_parse_double_refuses_sign_blank_junk_nonfinite(void **state)
{
	static const char *const bad[] = {
		"", "-1", "+1", " 1", "1 ", "1e", "1x", "inf", "nan",
		"infinity", "1e400", "-0", "e1", ".",
	};
	double v = 42;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(tool_parse_double(bad[i], &v));
	assert_true(v == 42);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_common_parse_u64_whole_decimal_within_max),
		cmocka_unit_test(test_common_parse_double_strtod_forms),
		cmocka_unit_test(test_common_parse_double_refuses_sign_blank_junk_nonfinite),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
