// SPDX-License-Identifier: MIT
/*
 * test_summary.c - blkparse -s's statistics from events built in memory:
 * what each action adds to the device, CPU and process counters, which
 * process name is listed, and the lines printed (C locale, so without
 * thousands separators).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "btkit.h"

static struct bt_event ev(uint64_t time, uint32_t pid, uint32_t action,
			  uint32_t category, uint32_t bytes)
{
	struct bt_event e;

	memset(&e, 0, sizeof(e));
	e.time = time;
	e.pid = pid;
	e.action = action;
	e.category = category;
	e.bytes = bytes;
	e.dev = BT_DEV_MAKE(8u, 16u);
	e.cpu = 1;
	return e;
}

/* Both halves of the accounting, as a caller that prints e does. */
static int feed(struct bt_summary *s, const struct bt_event *e,
		const char *comm)
{
	int early = bt_summary_event(s, 0, e, e->time, 0, 0, comm);
	int late = bt_summary_event(s, 0, e, e->time, 0, 1, comm);

	assert_true(early >= 0 && late >= 0);
	return early + late;
}

/* The printed statistics, as a string the test frees. */
static char *print(const struct bt_summary *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(bt_summary_print(s, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_summary_counts_queue_issue_complete(void **state)
{
	struct bt_summary *s;
	struct bt_event e;
	char *out;

	(void)state;
	assert_int_equal(bt_summary_new(&s), 0);
	e = ev(1000000, 7, BT_A_QUEUE, BT_TC_QUEUE | BT_TC_READ, 4096);
	feed(s, &e, "dd");
	e = ev(2000000, 7, BT_A_QUEUE, BT_TC_QUEUE | BT_TC_WRITE, 8192 + 512);
	feed(s, &e, "dd");
	e = ev(3000000, 7, BT_A_ISSUE, BT_TC_ISSUE | BT_TC_READ, 4096);
	feed(s, &e, "dd");
	e = ev(1001000000, 7, BT_A_COMPLETE, BT_TC_COMPLETE | BT_TC_READ, 4096);
	feed(s, &e, "dd");
	assert_int_equal(bt_summary_dev(s, 0, "8,16", 0, 0), 0);
	out = print(s);
	assert_non_null(strstr(out, "dd (7)\n"));
	assert_non_null(strstr(out,
		" Reads Queued:           1,        4KiB\t"
		" Writes Queued:           1,        8KiB\n"));
	assert_non_null(strstr(out, "CPU1 (8,16):\n"));
	assert_non_null(strstr(out, " Read depth:             1"));
	/* 4 KiB completed over 1 s from the first event to the last. */
	assert_non_null(strstr(out, "Throughput (R/W): 4KiB/s / 0KiB/s\n"));
	assert_non_null(strstr(out, "Events (8,16): 4 entries\n"));
	assert_non_null(strstr(out, "Skips: 0 forward (0 -   0.0%)\n"));
	free(out);
	bt_summary_free(s);
}

static void test_summary_pid_without_name_is_unknown(void **state)
{
	struct bt_summary *s;
	struct bt_event e;
	char *out;

	(void)state;
	assert_int_equal(bt_summary_new(&s), 0);
	e = ev(10, 5, BT_A_QUEUE, BT_TC_QUEUE | BT_TC_READ, 4096);
	assert_int_equal(feed(s, &e, NULL), 1);	/* first met: caller names it */
	assert_int_equal(feed(s, &e, "later"), 0);
	e = ev(20, 6, BT_A_QUEUE, BT_TC_QUEUE | BT_TC_READ, 4096);
	assert_int_equal(feed(s, &e, "dd"), 1);
	/* Plugs are shown but not counted per process. */
	e = ev(30, 8, BT_A_PLUG, BT_TC_QUEUE, 0);
	assert_int_equal(feed(s, &e, NULL), 0);
	assert_int_equal(bt_summary_dev(s, 0, "8,16", 0, 0), 0);
	out = print(s);
	/* Sorted by name: "dd" before "unknown", "later" never listed. */
	assert_non_null(strstr(out, "unknown (5)\n"));
	assert_true(strstr(out, "dd (6)\n") < strstr(out, "unknown (5)\n"));
	assert_null(strstr(out, "later"));
	assert_null(strstr(out, "(8)"));
	free(out);
	bt_summary_free(s);
}

static void test_summary_pc_queue_counts_after_its_line(void **state)
{
	struct bt_summary *s;
	struct bt_event e = ev(10, 9, BT_A_QUEUE, BT_TC_QUEUE | BT_TC_PC, 512);
	char *out;

	(void)state;
	assert_int_equal(bt_summary_new(&s), 0);
	/* blkparse counts a PC queue after printing its line. */
	assert_int_equal(bt_summary_event(s, 0, &e, 0, 0, 0, NULL), 0);
	assert_int_equal(bt_summary_event(s, 0, &e, 0, 0, 1, NULL), 1);
	assert_int_equal(bt_summary_dev(s, 0, "8,16", 0, 0), 0);
	out = print(s);
	assert_non_null(strstr(out, " PC Reads Queued:        1,"));
	free(out);
	bt_summary_free(s);
}

static void test_summary_skips_ratio(void **state)
{
	struct bt_summary *s;
	struct bt_event e = ev(10, 9, BT_A_QUEUE, BT_TC_QUEUE | BT_TC_READ, 512);
	char *out;

	(void)state;
	assert_int_equal(bt_summary_new(&s), 0);
	feed(s, &e, "x");
	feed(s, &e, "x");
	/* Devices must all be named; the second one saw no event. */
	assert_int_equal(bt_summary_dev(s, 0, "8,16", 1, 2), 0);
	assert_int_equal(bt_summary_dev(s, 1, "8,32", 0, 0), 0);
	out = print(s);
	assert_non_null(strstr(out, "Skips: 1 forward (2 -  50.0%)\n"));
	assert_non_null(strstr(out, "Events (8,32): 0 entries\n"));
	free(out);
	bt_summary_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_counts_queue_issue_complete),
		cmocka_unit_test(test_summary_pid_without_name_is_unknown),
		cmocka_unit_test(test_summary_pc_queue_counts_after_its_line),
		cmocka_unit_test(test_summary_skips_ratio),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
