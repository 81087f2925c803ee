// SPDX-License-Identifier: MIT
/*
 * test_reader_dup.c - what the reader drops as copies and what it keeps
 * apart as separate recordings (lib/reader_dup.c, lib/reader_rec.c), on
 * traces built in memory: a trace given twice, notes and sequence-less
 * records repeated, a blkparse -d dump holding every record four times,
 * and recordings merged by their TIMESTAMP notes or read one after the
 * other.
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
#include "../../lib/internal.h"	/* bt_reader_empty */
#include "trace_build.h"

/* The same records twice, as one input or as two: delivered once. */
static void test_reader_drops_duplicates(void **state)
{
	struct tb t, twice;
	struct bt_event e;
	struct bt_reader *r;
	struct bt_reader_stats st;
	int i, n = 0;

	(void)state;
	tb_init(&t, 0, 0);
	for (i = 0; i < 10; i++) {
		e = tb_ev(100 + (uint64_t)i, (uint32_t)i + 1, BT_A_QUEUE,
			  BT_TC_READ, 512);
		e.cpu = (uint32_t)(i & 1);	/* sequences per cpu */
		e.sequence = (uint32_t)(i / 2) + 1;
		tb_add(&t, &e);
	}
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, "a"), 0);
	assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, "b"), 0);
	while (bt_reader_next(r, &e) == 1) {
		assert_int_equal(e.input, 0);
		n++;
	}
	assert_int_equal(n, 10);
	bt_reader_get_stats(r, &st);
	assert_int_equal(st.events, 10);
	assert_int_equal(st.duplicates, 10);
	bt_reader_free(r);

	/* One stream holding the trace twice: time goes back, then dups. */
	tb_init(&twice, 0, 0);
	tb_append(&twice, t.buf, t.len);
	tb_append(&twice, t.buf, t.len);
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, twice.buf, twice.len, "x2"), 0);
	n = 0;
	while (bt_reader_next(r, &e) == 1)
		n++;
	assert_int_equal(n, 10);
	bt_reader_get_stats(r, &st);
	assert_int_equal(st.duplicates, 10);
	assert_int_equal(st.bytes, twice.len);
	bt_reader_free(r);
	tb_free(&t);
	tb_free(&twice);
}

/*
 * Hundreds of CPUs with their records interleaved, more than the slots
 * found without the map: each CPU keeps its own sequence, one gap is
 * counted once, and a second copy of the whole trace in the same stream
 * is dropped record for record.
 */
static void test_reader_sequences_of_many_cpus(void **state)
{
	struct tb t, twice;
	struct bt_event e;
	struct bt_reader *r;
	struct bt_reader_stats st;
	uint64_t time = 0;
	int n = 0;

	(void)state;
	tb_init(&t, 0, 0);
	for (uint32_t round = 1; round <= 20; round++)
		for (uint32_t cpu = 0; cpu < 300; cpu++) {
			if (cpu == 200 && round == 9)
				continue;	/* cpu 200 misses sequence 9 */
			e = tb_ev(++time, round, BT_A_QUEUE, BT_TC_READ, 512);
			e.cpu = cpu;
			tb_add(&t, &e);
		}
	tb_init(&twice, 0, 0);
	tb_append(&twice, t.buf, t.len);
	tb_append(&twice, t.buf, t.len);
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, twice.buf, twice.len, "x2"), 0);
	while (bt_reader_next(r, &e) == 1)
		n++;
	assert_int_equal(n, 20 * 300 - 1);
	bt_reader_get_stats(r, &st);
	assert_int_equal(st.duplicates, 20 * 300 - 1);
	assert_int_equal(st.gaps, 1);
	assert_int_equal(st.missing, 1);
	bt_reader_free(r);
	tb_free(&t);
	tb_free(&twice);
}

/*
 * A trace with scheduler messages given four times in one stream: the
 * messages of the copies go with their events.  A message after time
 * went back with fresh sequences (a clock jump, not a copy) stays.
 */
static void test_reader_drops_duplicated_notes(void **state)
{
	struct tb t, x4;
	struct bt_event e;
	struct bt_reader *r;
	struct bt_reader_stats st;
	int i, n = 0, msgs = 0;

	(void)state;
	tb_init(&t, 0, 0);
	for (i = 0; i < 6; i++) {
		e = tb_ev(100 + 10 * (uint64_t)i, (uint32_t)i + 1, BT_A_QUEUE,
			  BT_TC_READ, 512);
		tb_add(&t, &e);
		e = tb_ev(105 + 10 * (uint64_t)i, 0, BT_N_MESSAGE, BT_TC_NOTIFY, 0);
		e.pdu = (const unsigned char *)"bfq7 add to busy";
		e.pdu_len = 16;
		tb_add(&t, &e);
	}
	tb_init(&x4, 0, 0);
	for (i = 0; i < 4; i++)
		tb_append(&x4, t.buf, t.len);
	/* then the clock jumps back, sequences go on */
	e = tb_ev(50, 7, BT_A_QUEUE, BT_TC_READ, 512);
	tb_add(&x4, &e);
	e = tb_ev(51, 0, BT_N_MESSAGE, BT_TC_NOTIFY, 0);
	e.pdu = (const unsigned char *)"bfq7 expire (";
	e.pdu_len = 13;
	tb_add(&x4, &e);

	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, x4.buf, x4.len, "x4"), 0);
	while (bt_reader_next(r, &e) == 1) {
		n++;
		msgs += bt_event_is_note(&e);
	}
	assert_int_equal(n, 14);
	assert_int_equal(msgs, 7);
	bt_reader_get_stats(r, &st);
	assert_int_equal(st.duplicates, 3 * 12);
	assert_int_equal(st.backwards, 1);
	bt_reader_free(r);
	tb_free(&t);
	tb_free(&x4);
}

/*
 * Sequence 0 (tracefs): only a record equal in every field to one read
 * before is a duplicate; equal times alone are not.  A note equal to an
 * earlier one is a copy too (a real message has its own time).
 */
static void test_reader_sequence_zero_duplicates(void **state)
{
	struct tb t;
	struct bt_event e;
	struct bt_reader *r;
	struct bt_reader_stats st;
	int i, n = 0;

	(void)state;
	tb_init(&t, 0, 1);
	for (i = 0; i < 4; i++) {
		e = tb_ev(5, 0, BT_A_QUEUE, BT_TC_READ, 512);
		e.sector = (uint64_t)i;		/* distinct records, same time */
		tb_add(&t, &e);
		if (i == 2) {
			tb_add(&t, &e);		/* each repeated 3 more times */
			tb_add(&t, &e);
			tb_add(&t, &e);
		}
	}
	/* The same message twice is one message; another one stays. */
	e = tb_ev(6, 0, BT_N_MESSAGE, BT_TC_NOTIFY, 0);
	e.pdu = (const unsigned char *)"cfq1 slice expired t=0";
	e.pdu_len = 22;
	tb_add(&t, &e);
	tb_add(&t, &e);
	e.pdu = (const unsigned char *)"cfq1 slice expired t=1";
	tb_add(&t, &e);
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, "tracefs"), 0);
	while (bt_reader_next(r, &e) == 1) {
		if (!bt_event_is_note(&e))
			assert_int_equal(e.sector, n);
		n++;
	}
	assert_int_equal(n, 6);
	bt_reader_get_stats(r, &st);
	assert_int_equal(st.duplicates, 4);
	bt_reader_free(r);
	tb_free(&t);
}

/*
 * A `blkparse -d`-style dump holding every record four times in a row:
 * events with sequences, scheduler messages (sequence 0) at the very time
 * of the event before them, and a message equal to an earlier one but
 * for its time.  Every original comes out once, messages included.
 */
static void test_reader_dump_x4_keeps_every_message(void **state)
{
	struct tb t;
	struct bt_event e;
	struct bt_reader *r;
	struct bt_reader_stats st;
	int i, k, n = 0, msgs = 0;

	(void)state;
	tb_init(&t, 0, 0);
	for (i = 0; i < 50; i++) {
		for (k = 0; k < 4; k++) {
			e = tb_ev(100 + 10 * (uint64_t)i, (uint32_t)i + 1,
				  BT_A_QUEUE, BT_TC_READ, 512);
			e.cpu = (uint32_t)(i & 1);
			e.sequence = (uint32_t)(i / 2) + 1;
			tb_add(&t, &e);
		}
		for (k = 0; k < 4; k++) {
			e = tb_ev(100 + 10 * (uint64_t)i + (i % 3 == 0 ? 0 : 5),
				  0, BT_N_MESSAGE, BT_TC_NOTIFY, 0);
			e.cpu = (uint32_t)(i & 1);
			e.pdu = (const unsigned char *)"cfq7 slice expired";
			e.pdu_len = 18;
			tb_add(&t, &e);
		}
	}
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, "x4"), 0);
	while (bt_reader_next(r, &e) == 1) {
		n++;
		msgs += bt_event_is_note(&e);
	}
	assert_int_equal(n, 100);
	assert_int_equal(msgs, 50);
	bt_reader_get_stats(r, &st);
	assert_int_equal(st.duplicates, 300);
	assert_int_equal(st.gaps, 0);
	bt_reader_free(r);
	tb_free(&t);
}

/* A recording: TIMESTAMP note (wall sec at trace time ts), n events. */
static void build_recording(struct tb *t, uint64_t ts, uint32_t sec,
			    uint64_t t0, int n)
{
	unsigned char wall[8] = { 0 };
	struct bt_event e;

	tb_init(t, 0, 0);
	if (sec) {
		memcpy(wall, &sec, 4);
		e = tb_ev(ts, 0, BT_N_TIMESTAMP, BT_TC_NOTIFY, 0);
		e.pdu = wall;
		e.pdu_len = 8;
		tb_add(t, &e);
	}
	for (int i = 0; i < n; i++) {
		e = tb_ev(t0 + 1000 * (uint64_t)i, (uint32_t)i + 1, BT_A_QUEUE,
			  BT_TC_WRITE, 4096);
		e.sector = 8 * (uint64_t)i;
		tb_add(t, &e);
	}
}

/*
 * Two recordings of one device and CPU given together: their sequences
 * repeat, but no record is a copy, so none is dropped.  With TIMESTAMP
 * notes they merge by absolute time: b began 1 s of wall clock after a
 * although its trace clock is 5 s behind, so its records move 6 s on.
 */
static void test_reader_separate_recordings_by_timestamp(void **state)
{
	struct tb a, b;
	struct bt_event e;
	struct bt_reader *r;
	struct bt_reader_stats st;
	char buf[256];
	const char *w;
	int n = 0, from_b = 0;
	uint64_t last = 0;

	(void)state;
	build_recording(&a, 10000000000ull, 1000, 10000001000ull, 20);
	build_recording(&b, 5000000000ull, 1001, 5000000500ull, 20);
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, a.buf, a.len, "a.bin"), 0);
	assert_int_equal(bt_reader_add_mem(r, b.buf, b.len, "b.bin"), 0);
	while (bt_reader_next(r, &e) == 1) {
		assert_true(e.time >= last);
		last = e.time;
		if (e.input == 1 && !bt_event_is_note(&e)) {
			assert_int_equal(e.time, 11000000500ull +
				1000 * (uint64_t)from_b);
			from_b++;
		}
		n++;
	}
	assert_int_equal(n, 42);
	assert_int_equal(from_b, 20);
	bt_reader_get_stats(r, &st);
	assert_int_equal(st.duplicates, 0);
	assert_int_equal(st.recordings, 2);
	w = bt_reader_warning(r, 0, buf, sizeof(buf));
	assert_non_null(w);
	assert_non_null(strstr(w, "a.bin and b.bin are separate recordings"));
	assert_non_null(strstr(w, "absolute time"));
	assert_null(bt_reader_warning(r, 1, buf, sizeof(buf)));
	bt_reader_free(r);
	tb_free(&a);
	tb_free(&b);
}

/*
 * Without TIMESTAMP notes the second recording follows the first: its
 * records move to start just after the first's last, none dropped.  A
 * copy given beside them is still a copy.
 */
static void test_reader_separate_recordings_one_after_the_other(void **state)
{
	struct tb a, b;
	struct bt_event e;
	struct bt_reader *r;
	struct bt_reader_stats st;
	char buf[256];
	int n = 0, i = 0;
	uint64_t last = 0;

	(void)state;
	build_recording(&a, 0, 0, 1000000, 10);
	build_recording(&b, 0, 0, 500, 10);
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, a.buf, a.len, "a.bin"), 0);
	assert_int_equal(bt_reader_add_mem(r, b.buf, b.len, "b.bin"), 0);
	assert_int_equal(bt_reader_add_mem(r, a.buf, a.len, "a-copy.bin"), 0);
	while (bt_reader_next(r, &e) == 1) {
		assert_int_equal(e.input, i < 10 ? 0 : 1);
		assert_true(e.time > last || !n);
		last = e.time;
		i++;
		n++;
	}
	assert_int_equal(n, 20);
	assert_int_equal(last, 1009000 + 1 + 9000);
	bt_reader_get_stats(r, &st);
	assert_int_equal(st.duplicates, 10);
	assert_int_equal(st.recordings, 2);
	assert_int_equal(st.backwards, 0);
	assert_non_null(strstr(bt_reader_warning(r, 0, buf, sizeof(buf)),
			       "one after the other"));
	assert_non_null(strstr(bt_reader_warning(r, 1, buf, sizeof(buf)),
			       "10 duplicated records dropped, the first at "
			       "a-copy.bin: offset 0 (a copy of the record at "
			       "a.bin: offset 0)"));
	bt_reader_free(r);
	tb_free(&a);
	tb_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_drops_duplicates),
		cmocka_unit_test(test_reader_sequences_of_many_cpus),
		cmocka_unit_test(test_reader_drops_duplicated_notes),
		cmocka_unit_test(test_reader_sequence_zero_duplicates),
		cmocka_unit_test(test_reader_dump_x4_keeps_every_message),
		cmocka_unit_test(test_reader_separate_recordings_by_timestamp),
		cmocka_unit_test(test_reader_separate_recordings_one_after_the_other),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
