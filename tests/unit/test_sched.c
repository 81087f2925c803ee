// SPDX-License-Identifier: MIT
/*
 * test_sched.c - the scheduler message decoder on message texts of each
 * kernel era: CFQ 2.6.26 (no sync letter), 2.6.30 (S/A), 2.6.33+ (N and
 * blkcg path token), 4.x (cgroup id in the record), BFQ 4.12+ with and
 * without path, BFQ 5.1+ shared queues, device-level lines, elv switch.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>
#include "btkit.h"

static struct bt_sched_msg parse_ok(const char *s)
{
	struct bt_sched_msg m;

	assert_int_equal(bt_sched_parse(s, strlen(s), &m), 1);
	return m;
}

static void assert_text(const char *p, size_t n, const char *want)
{
	assert_int_equal(n, strlen(want));
	assert_memory_equal(p, want, n);
}

static void test_sched_cfq_2_6_26_no_letter(void **state)
{
	struct bt_sched_msg m = parse_ok("cfq2314 add_to_rr");

	(void)state;
	assert_int_equal(m.kind, BT_SCHED_QUEUE);
	assert_int_equal(m.sched, BT_SCHED_CFQ);
	assert_int_equal(m.pid, 2314);
	assert_int_equal(m.has_type, 0);
	assert_int_equal(m.mark, BT_SCHED_BACKLOG);
	m = parse_ok("cfq2314 set_active");
	assert_int_equal(m.mark, BT_SCHED_START);
	m = parse_ok("cfq2314 slice expired t=0");
	assert_int_equal(m.mark, BT_SCHED_END);
	assert_text(m.text, m.text_len, "slice expired t=0");
}

static void test_sched_cfq_sync_async_letters(void **state)
{
	struct bt_sched_msg m = parse_ok("cfq501S insert_request");

	(void)state;
	assert_int_equal(m.pid, 501);
	assert_int_equal(m.has_type, 1);
	assert_int_equal(m.sync, 1);
	assert_int_equal(m.noidle, 0);
	assert_int_equal(m.mark, BT_SCHED_OTHER);
	m = parse_ok("cfq77A add_to_rr");
	assert_int_equal(m.pid, 77);
	assert_int_equal(m.sync, 0);
	assert_int_equal(m.mark, BT_SCHED_BACKLOG);
}

static void test_sched_cfq_noidle_and_double_space(void **state)
{
	/* 2.6.33+: "cfq%d%c%c " with ' ' when not sync-noidle. */
	struct bt_sched_msg m = parse_ok("cfq4242SN set_active wl_prio:0 wl_type:1");

	(void)state;
	assert_int_equal(m.noidle, 1);
	assert_int_equal(m.sync, 1);
	assert_int_equal(m.mark, BT_SCHED_START);
	m = parse_ok("cfq4242S  del_from_rr");
	assert_int_equal(m.noidle, 0);
	assert_int_equal(m.mark, BT_SCHED_LEAVE);
	assert_text(m.text, m.text_len, "del_from_rr");
	assert_null(m.group);
}

static void test_sched_cfq_blkcg_path_token(void **state)
{
	struct bt_sched_msg m =
		parse_ok("cfq1234S  /user.slice/session-2.scope add_to_rr");

	(void)state;
	assert_int_equal(m.pid, 1234);
	assert_non_null(m.group);
	assert_text(m.group, m.group_len, "/user.slice/session-2.scope");
	assert_text(m.text, m.text_len, "add_to_rr");
	assert_int_equal(m.mark, BT_SCHED_BACKLOG);
	m = parse_ok("cfq1234SN / set_active wl_class:1 wl_type:2");
	assert_text(m.group, m.group_len, "/");
	assert_int_equal(m.mark, BT_SCHED_START);
}

static void test_sched_bfq_queues(void **state)
{
	struct bt_sched_msg m = parse_ok("bfq977S add to busy");

	(void)state;
	assert_int_equal(m.sched, BT_SCHED_BFQ);
	assert_int_equal(m.pid, 977);
	assert_int_equal(m.sync, 1);
	assert_int_equal(m.mark, BT_SCHED_BACKLOG);
	m = parse_ok("bfq977S set_in_service_queue, cur-budget = 16384");
	assert_int_equal(m.mark, BT_SCHED_START);
	m = parse_ok("bfq977S expire (1, slow 0, num_disp 3, short_ttime 1)");
	assert_int_equal(m.mark, BT_SCHED_END);
	m = parse_ok("bfq977S del from busy");
	assert_int_equal(m.mark, BT_SCHED_LEAVE);
	m = parse_ok("bfq12A / add to busy");
	assert_int_equal(m.sync, 0);
	assert_text(m.group, m.group_len, "/");
	assert_int_equal(m.mark, BT_SCHED_BACKLOG);
	/* Not "expire (": another message that starts alike. */
	m = parse_ok("bfq977S expired");
	assert_int_equal(m.mark, BT_SCHED_OTHER);
}

static void test_sched_bfq_shared_queues(void **state)
{
	struct bt_sched_msg m = parse_ok("bfqSHARED-S add to busy");
	char buf[32];

	(void)state;
	assert_int_equal(m.shared, 1);
	assert_int_equal(m.pid, -1);
	assert_int_equal(m.sync, 1);
	assert_string_equal(bt_sched_queue_name(&m, buf, sizeof(buf)),
			    "bfqSHARED-S");
	/* Before 5.1 a merged queue printed its pid as -1. */
	m = parse_ok("bfq-1A /grp expire (2, slow 1, num_disp 0, idle_win 1)");
	assert_int_equal(m.shared, 1);
	assert_int_equal(m.sync, 0);
	assert_int_equal(m.mark, BT_SCHED_END);
	assert_string_equal(bt_sched_queue_name(&m, buf, sizeof(buf)),
			    "bfqSHARED-A");
}

static void test_sched_device_level(void **state)
{
	struct bt_sched_msg m = parse_ok("cfq idle timer fired");

	(void)state;
	assert_int_equal(m.kind, BT_SCHED_DEVICE);
	assert_int_equal(m.sched, BT_SCHED_CFQ);
	assert_text(m.text, m.text_len, "idle timer fired");
	m = parse_ok("bfq dispatch requests: 2 busy queues");
	assert_int_equal(m.kind, BT_SCHED_DEVICE);
	assert_int_equal(m.sched, BT_SCHED_BFQ);
}

static void test_sched_elv_switch(void **state)
{
	struct bt_sched_msg m = parse_ok("elv switch: bfq");

	(void)state;
	assert_int_equal(m.kind, BT_SCHED_SWITCH);
	assert_text(m.arg, m.arg_len, "bfq");
}

static void test_sched_rejects_other_text(void **state)
{
	static const char *const bad[] = {
		"", "cfq", "cfqX add_to_rr", "cfq12Q add_to_rr", "bfqSHARED- x",
		"mq-deadline dispatch", "/user.slice served: vt=1", "cf",
	};
	struct bt_sched_msg m;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(bt_sched_parse(bad[i], strlen(bad[i]), &m), 0);
		assert_int_equal(m.kind, BT_SCHED_UNKNOWN);
	}
	assert_int_equal(bt_sched_parse(NULL, 0, &m), 0);
}

static void test_sched_trailing_nul_padding(void **state)
{
	static const char msg[] = "cfq9S set_active\0\0\0garbage";
	struct bt_sched_msg m;

	(void)state;
	assert_int_equal(bt_sched_parse(msg, sizeof(msg) - 1, &m), 1);
	assert_text(m.text, m.text_len, "set_active");
}

static void test_sched_event_strips_nothing_twice(void **state)
{
	/* The reader moved the cgroup id out: pdu is the text itself. */
	static const char text[] = "bfq31S add to busy";
	struct bt_event e;
	struct bt_sched_msg m;

	(void)state;
	memset(&e, 0, sizeof(e));
	e.category = BT_TC_NOTIFY;
	e.action = BT_N_MESSAGE;
	e.has_cgroup = 1;
	e.cgroup = 0x1234;
	e.pdu = (const unsigned char *)text;
	e.pdu_len = sizeof(text) - 1;
	assert_int_equal(bt_sched_event(&e, &m), 1);
	assert_int_equal(m.pid, 31);
	assert_int_equal(m.mark, BT_SCHED_BACKLOG);
	e.action = BT_N_PROCESS;
	assert_int_equal(bt_sched_event(&e, &m), -EINVAL);
	e.action = BT_A_QUEUE;
	e.category = BT_TC_WRITE;
	assert_int_equal(bt_sched_event(&e, &m), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_cfq_2_6_26_no_letter),
		cmocka_unit_test(test_sched_cfq_sync_async_letters),
		cmocka_unit_test(test_sched_cfq_noidle_and_double_space),
		cmocka_unit_test(test_sched_cfq_blkcg_path_token),
		cmocka_unit_test(test_sched_bfq_queues),
		cmocka_unit_test(test_sched_bfq_shared_queues),
		cmocka_unit_test(test_sched_device_level),
		cmocka_unit_test(test_sched_elv_switch),
		cmocka_unit_test(test_sched_rejects_other_text),
		cmocka_unit_test(test_sched_trailing_nul_padding),
		cmocka_unit_test(test_sched_event_strips_nothing_twice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
