// SPDX-License-Identifier: MIT
/*
 * test_comm.c - the library's one pid -> comm map (lib/comm.c): the
 * latest or the first name of a pid, names cut at BT_COMM_MAX bytes or a
 * NUL, pids that share a lookup cache slot, growth past many pids, and the
 * limit that keeps memory bounded.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "../../lib/internal.h"

static void test_comm_latest_or_first_name(void **state)
{
	struct bt_comm m;

	(void)state;
	bt_comm_init(&m, 100);
	assert_null(bt_comm_get(&m, 7));
	assert_int_equal(bt_comm_set(&m, 7, "bash", 16, 0), 0);
	assert_int_equal(bt_comm_set(&m, 7, "postgres", 16, 0), 0);
	assert_string_equal(bt_comm_get(&m, 7), "postgres");
	assert_int_equal(bt_comm_set(&m, 7, "psql", 16, 1), 0);
	assert_string_equal(bt_comm_get(&m, 7), "postgres");
	assert_null(bt_comm_get(&m, 8));
	bt_comm_free(&m);
}

static void test_comm_cuts_names(void **state)
{
	struct bt_comm m;

	(void)state;
	bt_comm_init(&m, 100);
	assert_int_equal(bt_comm_set(&m, 1, "kworker/u16:3-events", 20, 0), 0);
	assert_string_equal(bt_comm_get(&m, 1), "kworker/u16:3-ev");
	assert_int_equal(bt_comm_set(&m, 2, "fio\0junk", 8, 0), 0);
	assert_string_equal(bt_comm_get(&m, 2), "fio");
	assert_int_equal(bt_comm_set(&m, 3, "jbd2/loop0-8", 4, 0), 0);
	assert_string_equal(bt_comm_get(&m, 3), "jbd2");
	bt_comm_free(&m);
}

/* Pids alike in their low bits take turns in the lookup cache: all found. */
static void test_comm_pids_sharing_low_bits(void **state)
{
	struct bt_comm m;
	char name[16];

	(void)state;
	bt_comm_init(&m, 100);
	for (uint32_t k = 0; k < 4; k++) {
		snprintf(name, sizeof(name), "p%u", (unsigned)k);
		assert_int_equal(bt_comm_set(&m, 5 + 64 * k, name, 16, 0), 0);
	}
	assert_int_equal(bt_comm_set(&m, 5, "renamed", 16, 0), 0);
	assert_string_equal(bt_comm_get(&m, 5), "renamed");
	assert_string_equal(bt_comm_get(&m, 5 + 64), "p1");
	assert_string_equal(bt_comm_get(&m, 5 + 128), "p2");
	assert_string_equal(bt_comm_get(&m, 5 + 192), "p3");
	assert_null(bt_comm_get(&m, 5 + 256));
	/* the first name kept: the cache does not answer with another pid */
	assert_int_equal(bt_comm_set(&m, 5 + 64, "later", 16, 1), 0);
	assert_string_equal(bt_comm_get(&m, 5 + 64), "p1");
	assert_string_equal(bt_comm_get(&m, 5), "renamed");
	bt_comm_free(&m);
}

static void test_comm_grows_then_stops_at_limit(void **state)
{
	struct bt_comm m;
	char name[16];
	uint32_t pid;

	(void)state;
	bt_comm_init(&m, 5000);
	for (pid = 1; pid <= 5000; pid++) {
		snprintf(name, sizeof(name), "p%u", (unsigned)pid);
		assert_int_equal(bt_comm_set(&m, pid * 4096, name, 16, 0), 0);
	}
	assert_int_equal(bt_comm_set(&m, 1, "one too many", 16, 0), -ENOSPC);
	assert_null(bt_comm_get(&m, 1));
	/* a known pid may still be renamed */
	assert_int_equal(bt_comm_set(&m, 4096, "renamed", 16, 0), 0);
	assert_string_equal(bt_comm_get(&m, 4096), "renamed");
	assert_string_equal(bt_comm_get(&m, 5000u * 4096), "p5000");
	bt_comm_free(&m);
	bt_comm_free(&m);	/* twice is harmless */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comm_latest_or_first_name),
		cmocka_unit_test(test_comm_cuts_names),
		cmocka_unit_test(test_comm_pids_sharing_low_bits),
		cmocka_unit_test(test_comm_grows_then_stops_at_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
