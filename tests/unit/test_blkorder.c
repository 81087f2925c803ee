// SPDX-License-Identifier: MIT
/*
 * test_blkorder.c - blkparse's record order on traces built in memory
 * (one stream) or written to a temporary per-CPU set (file mode): the
 * sort keys and their tie, names from notes read ahead, the sequence gap
 * that stalls a stream, and the merge's tie between inputs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "btkit.h"
#include "trace_build.h"

#define Q_READ	BT_A_QUEUE, BT_TC_QUEUE | BT_TC_READ

struct got {
	struct bt_event ev[16];
	uint64_t rel[16];
	size_t dev[16];
	char comm[16][17];
	size_t n;
};

/* Everything o hands out, with each record's name when handed out. */
static void drain(struct bt_blkorder *o, struct got *g)
{
	int rc;

	memset(g, 0, sizeof(*g));
	while ((rc = bt_blkorder_next(o, &g->ev[g->n], &g->rel[g->n],
				      &g->dev[g->n])) > 0) {
		const char *c = bt_blkorder_comm(o, g->ev[g->n].pid);

		snprintf(g->comm[g->n], sizeof(g->comm[0]), "%s",
			 c ? c : "(null)");
		assert_true(++g->n < 16);
	}
	assert_int_equal(rc, 0);
}

static struct bt_blkorder *order_mem(struct bt_reader **r, struct tb *t)
{
	struct bt_blkorder *o;
	const char *bad;

	assert_int_equal(bt_reader_new(r), 0);
	assert_int_equal(bt_reader_add_mem(*r, t->buf, t->len, "mem"), 0);
	assert_int_equal(bt_blkorder_new(&o, *r, 0, &bad), 0);
	return o;
}

/* An event on its own CPU: the reader drops a CPU's repeated sequences. */
static struct bt_event on_cpu(uint64_t time, uint32_t seq, uint32_t cpu,
			      uint32_t bytes)
{
	struct bt_event e = tb_ev(time, seq, Q_READ, bytes);

	e.cpu = cpu;
	return e;
}

static void test_blkorder_batch_by_time_device_sequence(void **state)
{
	struct bt_event e[6];
	struct bt_blkorder_dev d;
	struct bt_reader *r;
	struct bt_blkorder *o;
	struct tb t;
	struct got g;

	(void)state;
	tb_init(&t, 0, 0);
	e[0] = on_cpu(300, 5, 1, 4096);
	e[1] = on_cpu(100, 1, 2, 4096);
	e[2] = on_cpu(200, 1, 3, 4096);
	e[3] = on_cpu(200, 1, 4, 4096);
	e[3].dev = BT_DEV_MAKE(8u, 0u);		/* same time, lower device */
	/* Same time, device and sequence as e[0]: read later, out first. */
	e[4] = on_cpu(300, 5, 5, 512);
	e[5] = on_cpu(300, 4, 6, 1024);		/* lower sequence */
	for (int i = 0; i < 6; i++)
		tb_add(&t, &e[i]);
	o = order_mem(&r, &t);
	drain(o, &g);
	assert_int_equal(g.n, 6);
	assert_int_equal(g.ev[0].cpu, 2);
	assert_int_equal(g.ev[1].cpu, 4);
	assert_int_equal(g.ev[2].cpu, 3);
	assert_int_equal(g.ev[3].cpu, 6);
	assert_int_equal(g.ev[4].cpu, 5);
	assert_int_equal(g.ev[5].cpu, 1);
	/* Origin: the first batch's earliest time. */
	assert_int_equal(g.rel[0], 0);
	assert_int_equal(g.rel[5], 200);
	/* Devices in the order they were read. */
	assert_int_equal(bt_blkorder_devs(o), 2);
	assert_int_equal(g.dev[0], 0);
	assert_int_equal(g.dev[1], 1);
	bt_blkorder_dev(o, 1, &d);
	assert_string_equal(d.name, "8,0");
	assert_int_equal(d.gaps, 0);
	bt_blkorder_free(o);
	bt_reader_free(r);
	tb_free(&t);
}

static void test_blkorder_first_note_names_earlier_events(void **state)
{
	struct bt_event e[4];
	struct bt_reader *r;
	struct bt_blkorder *o;
	struct tb t;
	struct got g;

	(void)state;
	tb_init(&t, 0, 0);
	e[0] = tb_ev(10, 1, Q_READ, 4096);
	e[1] = tb_note(20, 1234, "first");
	e[2] = tb_note(30, 1234, "second");
	e[3] = tb_ev(40, 2, Q_READ, 4096);
	for (int i = 0; i < 4; i++)
		tb_add(&t, &e[i]);
	o = order_mem(&r, &t);
	drain(o, &g);
	/* PROCESS notes are consumed; the batch's note names the event before it. */
	assert_int_equal(g.n, 2);
	assert_string_equal(g.comm[0], "first");
	assert_string_equal(g.comm[1], "first");
	/* A name given later does not replace the first. */
	assert_int_equal(bt_blkorder_name(o, 1234, "unknown"), 0);
	assert_string_equal(bt_blkorder_comm(o, 1234), "first");
	assert_null(bt_blkorder_comm(o, 99));
	bt_blkorder_free(o);
	bt_reader_free(r);
	tb_free(&t);
}

/* A name given after an event was handed out is the one asked for next. */
static void test_blkorder_name_given_after_hand_out(void **state)
{
	struct bt_event e = tb_ev(10, 1, Q_READ, 4096), got;
	struct bt_reader *r;
	struct bt_blkorder *o;
	struct tb t;
	uint64_t rel;
	size_t dev;

	(void)state;
	tb_init(&t, 0, 0);
	e.pid = 77;
	tb_add(&t, &e);
	o = order_mem(&r, &t);
	assert_int_equal(bt_blkorder_next(o, &got, &rel, &dev), 1);
	assert_null(bt_blkorder_comm(o, 77));
	assert_int_equal(bt_blkorder_name(o, 77, "unknown"), 0);
	assert_string_equal(bt_blkorder_comm(o, 77), "unknown");
	assert_int_equal(bt_blkorder_next(o, &got, &rel, &dev), 0);
	bt_blkorder_free(o);
	bt_reader_free(r);
	tb_free(&t);
}

/*
 * CPUs by the hundred, their records interleaved: each keeps its own
 * sequence (more CPUs than the slots found without the map), and the
 * one gap among them is the only one counted.
 */
static void test_blkorder_sequences_of_many_cpus(void **state)
{
	struct bt_blkorder_dev d;
	struct bt_reader *r;
	struct bt_blkorder *o;
	struct bt_event e, got;
	struct tb t;
	uint64_t rel, time = 0;
	size_t dev, n = 0;
	int rc;

	(void)state;
	tb_init(&t, 0, 0);
	for (uint32_t round = 1; round <= 20; round++)
		for (uint32_t cpu = 0; cpu < 300; cpu++) {
			/* cpu 130 skips its sequence 7 */
			if (cpu == 130 && round == 7)
				continue;
			e = on_cpu(++time, round, cpu, 4096);
			tb_add(&t, &e);
		}
	o = order_mem(&r, &t);
	while ((rc = bt_blkorder_next(o, &got, &rel, &dev)) > 0)
		n++;
	assert_int_equal(rc, 0);
	assert_int_equal(n, 20 * 300 - 1);
	bt_blkorder_dev(o, 0, &d);
	assert_int_equal(d.gaps, 1);
	assert_int_equal(d.missing, 1);
	bt_blkorder_free(o);
	bt_reader_free(r);
	tb_free(&t);
}

static void test_blkorder_sequence_gap_is_a_skip(void **state)
{
	struct bt_event e[4];
	struct bt_blkorder_dev d;
	struct bt_reader *r;
	struct bt_blkorder *o;
	struct tb t;
	struct got g;

	(void)state;
	tb_init(&t, 0, 0);
	e[0] = tb_ev(10, 1, Q_READ, 4096);
	e[1] = tb_ev(20, 4, Q_READ, 4096);	/* 2 and 3 missing */
	e[2] = tb_ev(30, 5, Q_READ, 4096);
	e[3] = tb_ev(40, 7, Q_READ, 4096);	/* 6 missing */
	for (int i = 0; i < 4; i++)
		tb_add(&t, &e[i]);
	o = order_mem(&r, &t);
	drain(o, &g);
	assert_int_equal(g.n, 4);
	bt_blkorder_dev(o, 0, &d);
	assert_string_equal(d.name, "8,16");
	assert_int_equal(d.gaps, 2);
	assert_int_equal(d.missing, 3);
	bt_blkorder_free(o);
	bt_reader_free(r);
	tb_free(&t);
}

static void write_file(const char *path, struct tb *t)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(t->buf, 1, t->len, f), t->len);
	assert_int_equal(fclose(f), 0);
}

/*
 * After a stall the rest of the stream comes back out of the spool: 20
 * MiB of it, so that records and their payloads (messages of 1 to 3000
 * bytes) straddle the ends of the spool's buffer, read from a file, so
 * that no payload can still be found where the reader first had it, with
 * a name that only a note at the very end gives and, with truncate, the
 * reader's error after the last whole record.
 */
static void spool_round_trip(int truncate)
{
	enum { N = 60001 };	/* N % 7 != 3: the last is no message */
	static unsigned char text[4096];
	char dir[] = "/tmp/test_blkorder.XXXXXX", path[64];
	struct bt_reader *r;
	struct bt_blkorder *o;
	struct bt_event e, got;
	struct tb t;
	const char *bad;
	uint64_t rel;
	size_t dev, n = 0, msgs = 0;
	uint32_t seq = 0;
	int rc, errors = 0;

	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = (unsigned char)('a' + i * 7 % 26);
	tb_init(&t, 0, 0);
	for (uint64_t i = 0; i < N; i++) {
		if (i % 7 == 3) {
			e = tb_ev(1000 + i, 0, BT_N_MESSAGE, BT_TC_NOTIFY, 0);
			e.pdu = text + i % 97;
			e.pdu_len = (uint16_t)(i * 37 % 3000 + 1);
		} else {
			/* sequence 2 is missing: the stream stalls there */
			seq += seq == 1 ? 2 : 1;
			e = tb_ev(1000 + i, seq, Q_READ, 4096);
			e.pid = 4321;
		}
		tb_add(&t, &e);
	}
	e = tb_note(1000 + N, 4321, "late");
	tb_add(&t, &e);
	if (truncate)
		t.len -= 5;	/* the note cut short */
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/trace", dir);
	write_file(path, &t);
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add(r, path), 0);
	assert_int_equal(bt_blkorder_new(&o, r, 0, &bad), 0);
	while ((rc = bt_blkorder_next(o, &got, &rel, &dev)) != 0) {
		if (rc < 0) {
			/* once, and the records before it still follow */
			assert_int_equal(errors++, 0);
			assert_ptr_equal(bt_blkorder_failed(o), r);
			continue;
		}
		assert_int_equal(got.time, 1000 + n);
		if (n % 7 == 3) {
			assert_int_equal(got.action, BT_N_MESSAGE);
			assert_int_equal(got.pdu_len, n * 37 % 3000 + 1);
			assert_memory_equal(got.pdu, text + n % 97, got.pdu_len);
			msgs++;
		} else if (got.action == BT_A_QUEUE && n > 1) {
			const char *c = bt_blkorder_comm(o, got.pid);

			/* the name of the note at the end, read at the stall */
			if (truncate)
				assert_null(c);
			else
				assert_string_equal(c, "late");
		}
		n++;
	}
	/* Every record (the PROCESS note names, it is not handed out). */
	assert_int_equal(n, N);
	assert_int_equal(msgs, (N + 3) / 7);
	assert_int_equal(errors, truncate);
	bt_blkorder_free(o);
	bt_reader_free(r);
	tb_free(&t);
	unlink(path);
	rmdir(dir);
}

static void test_blkorder_spool_gives_back_the_rest(void **state)
{
	(void)state;
	spool_round_trip(0);
}

static void test_blkorder_spool_then_the_readers_error(void **state)
{
	(void)state;
	spool_round_trip(1);
}

static void test_blkorder_merge_keeps_served_input_first(void **state)
{
	char dir[] = "/tmp/test_blkorder.XXXXXX", path[64];
	struct bt_event e;
	struct bt_blkorder_dev d;
	struct bt_reader *r;
	struct bt_blkorder *o;
	struct tb t0, t1;
	const char *bad;
	struct got g;

	(void)state;
	assert_non_null(mkdtemp(dir));
	tb_init(&t0, 0, 0);
	tb_init(&t1, 0, 0);
	e = tb_ev(10, 1, Q_READ, 4096);
	e.cpu = 0;
	tb_add(&t0, &e);
	e = tb_ev(20, 2, Q_READ, 4096);
	e.cpu = 0;
	tb_add(&t0, &e);
	e = tb_ev(5, 1, Q_READ, 4096);
	tb_add(&t1, &e);
	e = tb_ev(20, 2, Q_READ, 4096);
	tb_add(&t1, &e);
	snprintf(path, sizeof(path), "%s/a.blktrace.0", dir);
	write_file(path, &t0);
	snprintf(path, sizeof(path), "%s/a.blktrace.1", dir);
	write_file(path, &t1);
	snprintf(path, sizeof(path), "%s/a", dir);
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add(r, path), 0);
	assert_int_equal(bt_reader_inputs(r), 2);
	assert_int_equal(bt_blkorder_new(&o, r, 0, &bad), 0);
	drain(o, &g);
	assert_int_equal(g.n, 4);
	/* cpu 1 at 5, cpu 0 at 10, then the tie at 20: cpu 0, just served. */
	assert_int_equal(g.ev[0].cpu, 1);
	assert_int_equal(g.ev[1].cpu, 0);
	assert_int_equal(g.ev[2].cpu, 0);
	assert_int_equal(g.ev[3].cpu, 1);
	assert_int_equal(g.rel[0], 0);
	assert_int_equal(g.rel[3], 15);
	/* One device per set, named by the set. */
	assert_int_equal(bt_blkorder_devs(o), 1);
	bt_blkorder_dev(o, 0, &d);
	assert_string_equal(d.name, "a");
	bt_blkorder_free(o);
	bt_reader_free(r);
	snprintf(path, sizeof(path), "%s/a.blktrace.0", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/a.blktrace.1", dir);
	unlink(path);
	rmdir(dir);
	tb_free(&t0);
	tb_free(&t1);
}

/*
 * Several inputs are read through the caller's reader, each once: memory
 * inputs work (they cannot be opened again by name).  As blkparse's file
 * mode, an input given twice prints twice; a record repeated within one
 * input is a copy and goes.
 */
static void test_blkorder_merge_reads_inputs_once(void **state)
{
	struct bt_blkorder *o;
	struct bt_reader *r;
	struct bt_reader_stats st;
	struct got g;
	struct tb t;
	struct bt_event e;
	const char *bad;

	(void)state;
	tb_init(&t, 0, 0);
	for (uint32_t i = 1; i <= 3; i++) {
		e = tb_ev(10 * i, i, Q_READ, 4096);
		tb_add(&t, &e);
		tb_add(&t, &e);		/* a copy in the same input */
	}
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, "one"), 0);
	assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, "two"), 0);
	assert_int_equal(bt_blkorder_new(&o, r, 0, &bad), 0);
	assert_null(bad);
	drain(o, &g);
	assert_int_equal(g.n, 6);
	for (size_t i = 0, from[2] = { 0, 0 }; i < 6; i++) {
		assert_int_equal(g.ev[i].sequence, ++from[g.ev[i].input]);
		assert_int_equal(g.rel[i], 10 * (uint64_t)g.ev[i].sequence - 10);
	}
	bt_blkorder_get_stats(o, &st);
	assert_int_equal(st.duplicates, 6);
	assert_int_equal(st.events, 6);
	bt_blkorder_free(o);
	bt_reader_free(r);
	tb_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blkorder_batch_by_time_device_sequence),
		cmocka_unit_test(test_blkorder_first_note_names_earlier_events),
		cmocka_unit_test(test_blkorder_sequence_gap_is_a_skip),
		cmocka_unit_test(test_blkorder_name_given_after_hand_out),
		cmocka_unit_test(test_blkorder_sequences_of_many_cpus),
		cmocka_unit_test(test_blkorder_spool_gives_back_the_rest),
		cmocka_unit_test(test_blkorder_spool_then_the_readers_error),
		cmocka_unit_test(test_blkorder_merge_keeps_served_input_first),
		cmocka_unit_test(test_blkorder_merge_reads_inputs_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
