// SPDX-License-Identifier: MIT
/*
 * test_sysfs.c - the one helper for kernel setting files (lib/sysfs.c), on
 * regular files in a temporary directory: a read drops the newline, the
 * first value remembered for a file is the one put back, and everything
 * remembered is written back and forgotten.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "../../lib/sysfs.h"

static void test_sysfs_restore_puts_back_first_values(void **state)
{
	char dir[] = "/tmp/test_sysfs.XXXXXX", a[64], b[64], buf[32];
	struct bt_sysfs_saved s = { 0 };

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/nr_requests", dir);
	snprintf(b, sizeof(b), "%s/slice_idle", dir);
	assert_int_equal(bt_sysfs_write(a, "256\n"), -ENOENT);
	fclose(fopen(a, "w"));
	fclose(fopen(b, "w"));
	assert_int_equal(bt_sysfs_write(a, "256\n"), 0);
	assert_int_equal(bt_sysfs_write(b, "8"), 0);
	assert_int_equal(bt_sysfs_read(a, buf, sizeof(buf)), 3);
	assert_string_equal(buf, "256");

	assert_int_equal(bt_sysfs_keep(&s, a, "256"), 0);
	assert_int_equal(bt_sysfs_keep(&s, b, "8"), 0);
	assert_int_equal(bt_sysfs_keep(&s, a, "32"), 0);	/* not again */
	assert_int_equal(s.n, 2);
	assert_int_equal(bt_sysfs_write(a, "32"), 0);
	assert_int_equal(bt_sysfs_write(b, "0"), 0);
	assert_int_equal(bt_sysfs_restore(&s, false), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(bt_sysfs_read(a, buf, sizeof(buf)), 3);
	assert_string_equal(buf, "256");
	assert_int_equal(bt_sysfs_read(b, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "8");

	/* A file gone meanwhile: the first failure is reported. */
	assert_int_equal(bt_sysfs_keep(&s, a, "1"), 0);
	unlink(a);
	assert_int_equal(bt_sysfs_restore(&s, false), -ENOENT);
	bt_sysfs_saved_free(&s);
	unlink(b);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysfs_restore_puts_back_first_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
