// SPDX-License-Identifier: MIT
/*
 * test_capture.c - what btcapture makes of the records the tracefs blk
 * tracer gives (sequence 0, no notes), through bt_capture_convert() so no
 * kernel is needed: events numbered per device and CPU, a PROCESS note
 * before each pid's first event on each device, time order across CPUs,
 * "[LOST N EVENTS]" lines counted, cgroup ids dropped from messages,
 * other devices and garbage left out.  Pids are above the kernel's
 * PID_MAX_LIMIT so no live process lends them a name.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>
#include "btkit.h"
#include "../../lib/capture_int.h"

#define DEV_A	BT_DEV_MAKE(7, 1)
#define DEV_B	BT_DEV_MAKE(7, 2)
#define PID1	4194400u	/* > PID_MAX_LIMIT (4194304) */
#define PID2	4194401u

struct raw {
	unsigned char buf[16384];
	size_t len;
};

static void add_rec(struct raw *r, uint64_t time, uint32_t action,
		    uint32_t category, uint32_t pid, uint32_t dev, uint32_t cpu,
		    const void *pdu, uint16_t pdu_len, int cgroup)
{
	struct bt_event e;
	int n;

	memset(&e, 0, sizeof(e));
	e.time = time;
	e.sector = 8;
	e.bytes = (category & BT_TC_NOTIFY) ? 0 : 4096;
	e.action = action;
	e.category = category;
	e.pid = pid;
	e.dev = dev;
	e.cpu = cpu;
	e.pdu = pdu;
	e.pdu_len = pdu_len;
	e.has_cgroup = (uint8_t)cgroup;
	e.cgroup = cgroup ? 1 : 0;
	n = bt_event_encode(&e, r->buf + r->len, sizeof(r->buf) - r->len, 0);
	assert_true(n > 0);
	r->len += (size_t)n;
}

static void add_q(struct raw *r, uint64_t time, uint32_t pid, uint32_t dev,
		  uint32_t cpu)
{
	add_rec(r, time, BT_A_QUEUE, BT_TC_QUEUE | BT_TC_READ, pid, dev, cpu,
		NULL, 0, 0);
}

static void add_text(struct raw *r, const char *s)
{
	memcpy(r->buf + r->len, s, strlen(s));
	r->len += strlen(s);
}

struct conv_out {
	unsigned char *buf;
	size_t len;
	struct bt_capture_stats st;
	int ret;
};

/* Convert raw through memfds; the output is read back into memory. */
static void convert(const struct raw *r, const uint32_t *devs, size_t ndevs,
		    struct conv_out *o)
{
	int in = memfd_create("in", 0), outfd = memfd_create("out", 0);
	off_t len;

	assert_true(in >= 0 && outfd >= 0);
	assert_int_equal(write(in, r->buf, r->len), (ssize_t)r->len);
	assert_int_equal(lseek(in, 0, SEEK_SET), 0);
	o->ret = bt_capture_convert(in, outfd, devs, ndevs, &o->st);
	len = lseek(outfd, 0, SEEK_END);
	assert_true(len >= 0);
	o->len = (size_t)len;
	o->buf = malloc(o->len + 1);
	assert_non_null(o->buf);
	assert_int_equal(pread(outfd, o->buf, o->len, 0), (ssize_t)o->len);
	close(in);
	close(outfd);
}

/* Decode the output: every record into evs (pdu pointers into o->buf). */
static size_t decode(struct conv_out *o, struct bt_event *evs, char (*comms)[17],
		     size_t max)
{
	struct bt_reader *rd;
	struct bt_event e;
	size_t n = 0;
	int r;

	assert_int_equal(bt_reader_new(&rd), 0);
	assert_int_equal(bt_reader_add_mem(rd, o->buf, o->len, "out"), 0);
	while ((r = bt_reader_next(rd, &e)) == 1) {
		assert_true(n < max);
		comms[n][0] = 0;
		if (bt_event_is_note(&e) && e.action == BT_N_PROCESS)
			assert_int_equal(bt_event_process(&e, comms[n], 17), 0);
		evs[n++] = e;
	}
	assert_int_equal(r, 0);
	bt_reader_free(rd);
	return n;
}

static void test_capture_numbers_events_per_device_and_cpu(void **state)
{
	static struct raw r;
	struct conv_out o;
	struct bt_event evs[32];
	char comms[32][17];
	uint32_t want[2][2] = { { 0 } };
	size_t n;

	(void)state;
	r.len = 0;
	add_q(&r, 1000, PID1, DEV_A, 0);
	add_q(&r, 2000, PID1, DEV_A, 1);
	add_q(&r, 3000, PID1, DEV_B, 0);
	add_q(&r, 4000, PID1, DEV_A, 0);
	add_q(&r, 5000, PID1, DEV_A, 1);
	convert(&r, NULL, 0, &o);
	assert_int_equal(o.ret, 0);
	assert_int_equal(o.st.events, 5);
	n = decode(&o, evs, comms, 32);
	for (size_t i = 0; i < n; i++) {
		if (bt_event_is_note(&evs[i])) {
			assert_int_equal(evs[i].sequence, 0);
			continue;
		}
		size_t d = evs[i].dev == DEV_B;

		assert_int_equal(evs[i].sequence, ++want[d][evs[i].cpu]);
	}
	assert_int_equal(want[0][0], 2);
	assert_int_equal(want[0][1], 2);
	assert_int_equal(want[1][0], 1);
	free(o.buf);
}

static void test_capture_notes_each_pid_before_its_first_event(void **state)
{
	static struct raw r;
	struct conv_out o;
	struct bt_event evs[32];
	char comms[32][17];
	size_t n, notes = 0;

	(void)state;
	r.len = 0;
	add_q(&r, 1000, PID1, DEV_A, 0);
	add_q(&r, 2000, PID2, DEV_A, 0);
	add_q(&r, 3000, PID1, DEV_A, 1);
	add_q(&r, 4000, PID1, DEV_B, 1);
	add_rec(&r, 5000, BT_A_COMPLETE, BT_TC_COMPLETE | BT_TC_READ, 0, DEV_A,
		1, NULL, 0, 0);
	convert(&r, NULL, 0, &o);
	assert_int_equal(o.ret, 0);
	n = decode(&o, evs, comms, 32);
	/* (dev, pid) pairs: A/PID1, A/PID2, B/PID1, A/0 */
	for (size_t i = 0; i < n; i++) {
		if (!bt_event_is_note(&evs[i]))
			continue;
		notes++;
		assert_int_equal(evs[i].action, BT_N_PROCESS);
		assert_true(i + 1 < n);
		/* the next record is that pid's first event on that device */
		assert_false(bt_event_is_note(&evs[i + 1]));
		assert_int_equal(evs[i + 1].pid, evs[i].pid);
		assert_int_equal(evs[i + 1].dev, evs[i].dev);
		assert_int_equal(evs[i + 1].time, evs[i].time);
		for (size_t j = 0; j < i; j++)
			assert_false(!bt_event_is_note(&evs[j]) &&
				     evs[j].pid == evs[i].pid &&
				     evs[j].dev == evs[i].dev);
		if (evs[i].pid == 0)
			assert_string_equal(comms[i], "swapper/1");
		else
			assert_string_equal(comms[i], "<...>");
	}
	assert_int_equal(notes, 4);
	assert_int_equal(o.st.notes, 4);
	free(o.buf);
}

static void test_capture_orders_cpus_by_time(void **state)
{
	static struct raw r;
	struct conv_out o;
	struct bt_event evs[32];
	char comms[32][17];
	size_t n;
	uint64_t last = 0;

	(void)state;
	r.len = 0;
	/* trace_pipe can hand over a CPU's event after a later one */
	add_q(&r, 1000, PID1, DEV_A, 0);
	add_q(&r, 3000, PID1, DEV_A, 0);
	add_q(&r, 2000, PID1, DEV_A, 1);
	add_q(&r, 2500, PID1, DEV_A, 1);
	add_q(&r, 4000, PID1, DEV_A, 0);
	convert(&r, NULL, 0, &o);
	assert_int_equal(o.ret, 0);
	n = decode(&o, evs, comms, 32);
	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++) {
		assert_true(evs[i].time >= last);
		last = evs[i].time;
	}
	free(o.buf);
}

static void test_capture_counts_lost_event_lines(void **state)
{
	static struct raw r;
	struct conv_out o;

	(void)state;
	r.len = 0;
	add_q(&r, 1000, PID1, DEV_A, 0);
	add_text(&r, "CPU:1 [LOST 5 EVENTS]\n");
	add_q(&r, 2000, PID1, DEV_A, 1);
	add_text(&r, "CPU:0 [LOST EVENTS]\n");
	add_q(&r, 3000, PID1, DEV_A, 0);
	convert(&r, NULL, 0, &o);
	assert_int_equal(o.ret, 0);
	assert_int_equal(o.st.lost, 6);
	assert_int_equal(o.st.events, 3);
	assert_int_equal(o.st.bad, 0);
	free(o.buf);
}

static void test_capture_drops_cgroup_id_of_messages(void **state)
{
	static struct raw r;
	static const char msg[] = "bfq4194400S add_request 1";
	struct conv_out o;
	struct bt_event evs[32];
	char comms[32][17];
	size_t n, found = 0;

	(void)state;
	r.len = 0;
	add_q(&r, 1000, PID1, DEV_A, 0);
	add_rec(&r, 1500, BT_N_MESSAGE, BT_TC_NOTIFY, PID1, DEV_A, 0, msg,
		sizeof(msg) - 1, 1);
	convert(&r, NULL, 0, &o);
	assert_int_equal(o.ret, 0);
	n = decode(&o, evs, comms, 32);
	for (size_t i = 0; i < n; i++) {
		const char *text;
		size_t len;

		if (!bt_event_is_note(&evs[i]) || evs[i].action != BT_N_MESSAGE)
			continue;
		found++;
		assert_false(evs[i].has_cgroup);
		assert_int_equal(evs[i].pdu_len, sizeof(msg) - 1);
		assert_int_equal(bt_event_message(&evs[i], &text, &len), 0);
		assert_memory_equal(text, msg, len);
	}
	assert_int_equal(found, 1);
	free(o.buf);
}

static void test_capture_keeps_only_given_devices(void **state)
{
	static struct raw r;
	struct conv_out o;
	struct bt_event evs[32];
	char comms[32][17];
	uint32_t devs[] = { DEV_B };
	size_t n;

	(void)state;
	r.len = 0;
	add_q(&r, 1000, PID1, DEV_A, 0);
	add_q(&r, 2000, PID1, DEV_B, 0);
	add_q(&r, 3000, PID2, DEV_A, 0);
	convert(&r, devs, 1, &o);
	assert_int_equal(o.ret, 0);
	assert_int_equal(o.st.events, 1);
	n = decode(&o, evs, comms, 32);
	assert_int_equal(n, 2);	/* PROCESS note + the DEV_B event */
	for (size_t i = 0; i < n; i++)
		assert_int_equal(evs[i].dev, DEV_B);
	free(o.buf);
}

static void test_capture_skips_garbage_between_records(void **state)
{
	static struct raw r;
	struct conv_out o;

	(void)state;
	r.len = 0;
	add_q(&r, 1000, PID1, DEV_A, 0);
	add_text(&r, "junk\x01\x02\x03");
	add_q(&r, 2000, PID1, DEV_A, 0);
	convert(&r, NULL, 0, &o);
	assert_int_equal(o.ret, 0);
	assert_int_equal(o.st.events, 2);
	assert_true(o.st.bad > 0);
	free(o.buf);
}

/*
 * A freshly booted kernel's ring buffer reads "7 (expanded: 1408)" at the
 * top and "7" per CPU; it cannot be unexpanded again, so the size saved to
 * write back is the expanded one, and the caller hears that it was so.
 */
static void test_capture_saves_expanded_size_of_boot_buffer(void **state)
{
	static const struct {
		const char *path, *read, *saved;
		int unexpanded;
	} c[] = {
		{ "/t/buffer_size_kb", "7 (expanded: 1408)", "1408", 1 },
		{ "/t/buffer_size_kb", "1410", "1410", 0 },
		{ "/t/trace_clock", "[local] global counter mono", "local", 0 },
		{ "/t/trace_clock", "local global [mono]", "mono", 0 },
	};
	char v[64];

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		strcpy(v, c[i].read);
		assert_int_equal(bt_cap_saved_value(c[i].path, v, sizeof(v)),
				 c[i].unexpanded);
		assert_string_equal(v, c[i].saved);
	}
}

/*
 * Which pids btcapture names from /proc/PID/comm: user tasks, told from
 * kernel threads by PF_KTHREAD in /proc/PID/stat (lines as this kernel
 * writes them), even when the comm itself holds ") " and digits.
 */
static void test_capture_user_task_from_proc_stat(void **state)
{
	(void)state;
	assert_int_equal(bt_cap_user_task("20108 (cat) R 20105 20105 4846 0 -1 "
					  "4194304 127 0 0 0"), 1);
	assert_int_equal(bt_cap_user_task("4 (kworker/R-rcu_gp) I 2 0 0 0 -1 "
					  "69238880 0 0 0 0"), 0);
	assert_int_equal(bt_cap_user_task("77 (a) 1 2 3 4 5) S 1 77 77 0 -1 "
					  "4194560 9 0"), 1);
	assert_int_equal(bt_cap_user_task("412 (jbd2/sda1-8) S 2 0 0 0 -1 "
					  "2129984 0 0"), 0);
	assert_int_equal(bt_cap_user_task("5 (x) S 1 2"), -1);
	assert_int_equal(bt_cap_user_task("no parenthesis"), -1);
	assert_int_equal(bt_cap_user_task(NULL), -1);
}

/* 64 MB of ring buffer over the CPUs, never under 8 MB per CPU. */
static void test_capture_tracefs_buffer_spread_over_cpus(void **state)
{
	(void)state;
	assert_int_equal(bt_cap_tracefs_default_kb(1), 65536);
	assert_int_equal(bt_cap_tracefs_default_kb(2), 32768);
	assert_int_equal(bt_cap_tracefs_default_kb(8), 8192);
	assert_int_equal(bt_cap_tracefs_default_kb(64), 8192);
	assert_int_equal(bt_cap_tracefs_default_kb(0), 65536);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_numbers_events_per_device_and_cpu),
		cmocka_unit_test(test_capture_notes_each_pid_before_its_first_event),
		cmocka_unit_test(test_capture_orders_cpus_by_time),
		cmocka_unit_test(test_capture_counts_lost_event_lines),
		cmocka_unit_test(test_capture_drops_cgroup_id_of_messages),
		cmocka_unit_test(test_capture_keeps_only_given_devices),
		cmocka_unit_test(test_capture_skips_garbage_between_records),
		cmocka_unit_test(test_capture_saves_expanded_size_of_boot_buffer),
		cmocka_unit_test(test_capture_tracefs_buffer_spread_over_cpus),
		cmocka_unit_test(test_capture_user_task_from_proc_stat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
