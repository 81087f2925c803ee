// SPDX-License-Identifier: MIT
/*
 * test_event.c - what a decoded record means: blkparse's action letters
 * and rwbs strings (flush, discard, FUA, readahead, sync, meta, and the
 * R/N choice made by bytes), the zone actions and zone operations of
 * version 8 (also read back from records built in memory), and the
 * remap/split/unplug/note payloads, including payloads too short to hold
 * what they claim.
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
#include "trace_build.h"

static struct bt_event ev(uint32_t action, uint32_t category, uint32_t bytes)
{
	struct bt_event e;

	memset(&e, 0, sizeof(e));
	e.action = action;
	e.category = category;
	e.bytes = bytes;
	return e;
}

static void test_event_letters_match_blkparse(void **state)
{
	static const struct {
		uint32_t act;
		const char *want;
	} t[] = {
		{ BT_A_QUEUE, "Q" }, { BT_A_BACKMERGE, "M" },
		{ BT_A_FRONTMERGE, "F" }, { BT_A_GETRQ, "G" },
		{ BT_A_SLEEPRQ, "S" }, { BT_A_REQUEUE, "R" },
		{ BT_A_ISSUE, "D" }, { BT_A_COMPLETE, "C" },
		{ BT_A_PLUG, "P" }, { BT_A_UNPLUG_IO, "U" },
		{ BT_A_UNPLUG_TIMER, "UT" }, { BT_A_INSERT, "I" },
		{ BT_A_SPLIT, "X" }, { BT_A_BOUNCE, "B" }, { BT_A_REMAP, "A" },
		{ 0, "?" }, { 99, "?" }, { 0xffff, "?" },
	};
	struct bt_event e;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		e = ev(t[i].act, BT_TC_READ, 4096);
		assert_string_equal(bt_event_letters(&e), t[i].want);
	}
	e = ev(BT_N_MESSAGE, BT_TC_NOTIFY, 0);
	assert_string_equal(bt_event_letters(&e), "m");
	/* A note's action code is not an I/O action: 1 is not "Q" there. */
	e = ev(BT_N_TIMESTAMP, BT_TC_NOTIFY, 0);
	assert_string_not_equal(bt_event_letters(&e), "Q");
}

static void test_event_rwbs_order(void **state)
{
	static const struct {
		uint32_t cat;
		uint32_t bytes;
		const char *want;
	} t[] = {
		{ 0, 0, "N" },
		{ BT_TC_READ, 0, "N" },		/* R needs bytes */
		{ 0, 4096, "R" },		/* bytes alone make R */
		{ BT_TC_READ | BT_TC_AHEAD, 4096, "RA" },
		{ BT_TC_WRITE, 0, "W" },
		{ BT_TC_WRITE | BT_TC_SYNC, 4096, "WS" },
		{ BT_TC_FLUSH, 0, "FN" },	/* bare flush request */
		{ BT_TC_FLUSH | BT_TC_WRITE | BT_TC_SYNC, 0, "FWS" },
		{ BT_TC_FLUSH | BT_TC_WRITE | BT_TC_FUA | BT_TC_SYNC, 4096,
		  "FWFS" },
		{ BT_TC_FLUSH | BT_TC_WRITE | BT_TC_FUA | BT_TC_SYNC |
		  BT_TC_META, 4096, "FWFSM" },
		{ BT_TC_DISCARD | BT_TC_WRITE, 4096, "D" },	/* D wins */
		{ BT_TC_DISCARD | BT_TC_SYNC, 0, "DS" },
		{ BT_TC_READ | BT_TC_META | BT_TC_SYNC, 512, "RSM" },
		{ BT_TC_WRITE | BT_TC_FUA, 512, "WF" },
		{ 0xffff, 4096, "FDFASM" },	/* every bit: longest string */
	};
	char buf[BT_RWBS_LEN];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct bt_event e = ev(BT_A_QUEUE, t[i].cat, t[i].bytes);

		memset(buf, 'x', sizeof(buf));
		assert_ptr_equal(bt_event_rwbs(&e, buf), buf);
		assert_string_equal(buf, t[i].want);
	}
}

/*
 * Every combination of the bits rwbs depends on outside zones (the
 * letters come from a table by them), against blkparse's rule spelled
 * out: F flush, one of D W R N, then F fua, A ahead, S sync, M meta.
 */
static void test_event_rwbs_every_flag_combination(void **state)
{
	static const uint32_t bits[] = {
		BT_TC_FLUSH, BT_TC_DISCARD, BT_TC_WRITE, BT_TC_FUA,
		BT_TC_AHEAD, BT_TC_SYNC, BT_TC_META, BT_TC_READ,
	};
	const size_t nbits = sizeof(bits) / sizeof(bits[0]);
	char buf[BT_RWBS_LEN + 4], want[BT_RWBS_LEN];

	(void)state;
	for (uint32_t m = 0; m < 2u << nbits; m++) {
		uint32_t cat = 0, bytes = m >> nbits ? 512 : 0;
		struct bt_event e;
		size_t n = 0;

		for (size_t b = 0; b < nbits; b++)
			if (m & (1u << b))
				cat |= bits[b];
		if (cat & BT_TC_FLUSH)
			want[n++] = 'F';
		want[n++] = cat & BT_TC_DISCARD ? 'D' :
			    cat & BT_TC_WRITE ? 'W' : bytes ? 'R' : 'N';
		if (cat & BT_TC_FUA)
			want[n++] = 'F';
		if (cat & BT_TC_AHEAD)
			want[n++] = 'A';
		if (cat & BT_TC_SYNC)
			want[n++] = 'S';
		if (cat & BT_TC_META)
			want[n++] = 'M';
		want[n] = '\0';
		e = ev(BT_A_QUEUE, cat, bytes);
		memset(buf, 'x', sizeof(buf));
		assert_ptr_equal(bt_event_rwbs(&e, buf), buf);
		assert_string_equal(buf, want);
		assert_int_equal(buf[BT_RWBS_LEN], 'x');
	}
}

/* blkparse's v8 series: ZP and ZU for the zone write plug. */
static void test_event_zone_letters(void **state)
{
	struct bt_event e = ev(BT_A_ZONE_PLUG, BT_TC_QUEUE, 4096);

	(void)state;
	assert_int_equal(BT_A_ZONE_PLUG, 18);	/* __BLK_TA_ZONE_PLUG */
	assert_int_equal(BT_A_ZONE_UNPLUG, 19);	/* __BLK_TA_ZONE_UNPLUG */
	assert_string_equal(bt_event_letters(&e), "ZP");
	e.action = BT_A_ZONE_UNPLUG;
	assert_string_equal(bt_event_letters(&e), "ZU");
	e.action = BT_A_ZONE_UNPLUG + 1;
	assert_string_equal(bt_event_letters(&e), "?");
}

/*
 * The zone label takes the place of D/W/R/N: after a discard, before a
 * write (a zone append is a write too), in the order blkparse tests them.
 */
static void test_event_zone_rwbs(void **state)
{
	static const struct {
		uint32_t cat;
		uint32_t bytes;
		const char *want;
	} t[] = {
		{ BT_TC_ZONE_APPEND | BT_TC_WRITE, 4096, "ZA" },
		{ BT_TC_ZONE_APPEND | BT_TC_WRITE | BT_TC_SYNC, 4096, "ZAS" },
		{ BT_TC_ZONE_RESET | BT_TC_WRITE, 0, "ZR" },
		{ BT_TC_ZONE_RESET_ALL | BT_TC_WRITE | BT_TC_SYNC, 0, "ZRAS" },
		{ BT_TC_ZONE_FINISH, 0, "ZF" },
		{ BT_TC_ZONE_OPEN, 0, "ZO" },
		{ BT_TC_ZONE_CLOSE | BT_TC_WRITE, 0, "ZC" },
		{ BT_TC_ZONE_OPEN | BT_TC_READ, 4096, "ZO" },	/* not R */
		{ BT_TC_ZONE_RESET | BT_TC_DISCARD, 0, "D" },	/* D wins */
		{ BT_TC_ZONE_RESET | BT_TC_ZONE_RESET_ALL, 0, "ZR" },
		{ BT_TC_ZONE_APPEND | BT_TC_ZONE_CLOSE, 0, "ZA" },
		{ BT_TC_ZONE_FINISH | BT_TC_ZONE_OPEN, 0, "ZF" },
		{ BT_TC_ZONE_OPEN | BT_TC_ZONE_CLOSE, 0, "ZO" },
		{ BT_TC_FLUSH | BT_TC_ZONE_APPEND | BT_TC_WRITE | BT_TC_FUA,
		  4096, "FZAF" },
		/* The longest string there is. */
		{ BT_TC_FLUSH | BT_TC_ZONE_RESET_ALL | BT_TC_FUA | BT_TC_AHEAD |
		  BT_TC_SYNC | BT_TC_META, 0, "FZRAFASM" },
		{ 0x3fffffu, 4096, "FDFASM" },
		{ 0x3fffffu & ~BT_TC_DISCARD, 4096, "FZAFASM" },
		{ 1u << 22, 4096, "R" },	/* a bit past the zone ones */
	};
	char buf[BT_RWBS_LEN + 4];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct bt_event e = ev(BT_A_QUEUE, t[i].cat, t[i].bytes);

		memset(buf, 'x', sizeof(buf));
		assert_ptr_equal(bt_event_rwbs(&e, buf), buf);
		assert_string_equal(buf, t[i].want);
		assert_int_equal(buf[BT_RWBS_LEN], 'x');
	}
}

/*
 * Zone categories live in bits 32-37 of version 8's u64 action word: they
 * survive encoding and reading back as v8, and a version-7 record, whose
 * action word has 32 bits, cannot carry them.
 */
static void test_event_zone_categories_read_back_from_v8(void **state)
{
	static const struct {
		uint32_t act, cat, bytes;
		const char *letters, *rwbs;
	} t[] = {
		{ BT_A_QUEUE, BT_TC_QUEUE | BT_TC_WRITE | BT_TC_ZONE_APPEND,
		  8192, "Q", "ZA" },
		{ BT_A_COMPLETE, BT_TC_WRITE | BT_TC_FS | BT_TC_ZONE_APPEND,
		  8192, "C", "ZA" },
		{ BT_A_ISSUE, BT_TC_ISSUE | BT_TC_WRITE | BT_TC_ZONE_RESET,
		  0, "D", "ZR" },
		{ BT_A_QUEUE, BT_TC_QUEUE | BT_TC_WRITE | BT_TC_SYNC |
		  BT_TC_ZONE_RESET_ALL, 0, "Q", "ZRAS" },
		{ BT_A_ISSUE, BT_TC_ISSUE | BT_TC_ZONE_FINISH, 0, "D", "ZF" },
		{ BT_A_ISSUE, BT_TC_ISSUE | BT_TC_ZONE_OPEN, 0, "D", "ZO" },
		{ BT_A_ISSUE, BT_TC_ISSUE | BT_TC_WRITE | BT_TC_ZONE_CLOSE, 0,
		  "D", "ZC" },
		{ BT_A_ZONE_PLUG, BT_TC_QUEUE | BT_TC_READ, 4096, "ZP", "R" },
		{ BT_A_ZONE_UNPLUG, BT_TC_QUEUE | BT_TC_READ, 4096, "ZU", "R" },
	};
	const size_t n = sizeof(t) / sizeof(t[0]);
	static const unsigned flags[] = { BT_ENC_V8, BT_ENC_V8 | BT_ENC_SWAP };
	char buf[BT_RWBS_LEN];

	(void)state;
	for (size_t f = 0; f < 2; f++) {
		struct bt_reader *r;
		struct bt_event e;
		struct tb b;
		size_t i;

		tb_init(&b, flags[f], 0);
		for (i = 0; i < n; i++) {
			e = tb_ev(i + 1, (uint32_t)i + 1, t[i].act, t[i].cat,
				  t[i].bytes);
			tb_add(&b, &e);
		}
		/* Bytes 32-39 of the first record: the u64 action, native. */
		if (!(flags[f] & BT_ENC_SWAP)) {
			uint64_t a;

			memcpy(&a, b.buf + 32, 8);
			assert_int_equal(a >> 32, BT_TC_ZONE_APPEND >> 16);
		}
		assert_int_equal(bt_reader_new(&r), 0);
		assert_int_equal(bt_reader_add_mem(r, b.buf, b.len, "v8"), 0);
		for (i = 0; i < n; i++) {
			assert_int_equal(bt_reader_next(r, &e), 1);
			assert_int_equal(e.version, 8);
			assert_int_equal(e.action, t[i].act);
			assert_int_equal(e.category, t[i].cat);
			assert_string_equal(bt_event_letters(&e), t[i].letters);
			assert_string_equal(bt_event_rwbs(&e, buf), t[i].rwbs);
		}
		assert_int_equal(bt_reader_next(r, &e), 0);
		bt_reader_free(r);
		tb_free(&b);
	}
}

static void test_event_zone_categories_do_not_fit_v7(void **state)
{
	struct bt_event e = tb_ev(1, 1, BT_A_QUEUE, BT_TC_QUEUE | BT_TC_WRITE |
				  BT_TC_ZONE_APPEND, 4096);
	struct bt_reader *r;
	char buf[BT_RWBS_LEN];
	struct tb b;

	(void)state;
	tb_init(&b, 0, 0);
	tb_add(&b, &e);
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, b.buf, b.len, "v7"), 0);
	assert_int_equal(bt_reader_next(r, &e), 1);
	assert_int_equal(e.version, 7);
	assert_int_equal(e.category, BT_TC_QUEUE | BT_TC_WRITE);
	assert_string_equal(bt_event_rwbs(&e, buf), "W");
	bt_reader_free(r);
	tb_free(&b);
}

static void test_event_remap_is_big_endian(void **state)
{
	static const unsigned char pdu[16] = {
		0x10, 0x30, 0x00, 0x03,		/* 259,3 */
		0x10, 0x30, 0x00, 0x00,		/* 259,0 */
		0x00, 0x00, 0x00, 0x00, 0x8b, 0xcd, 0x23, 0x18,
	};
	struct bt_event e = ev(BT_A_REMAP, BT_TC_READ, 4096);
	struct bt_remap rm;

	(void)state;
	e.pdu = pdu;
	e.pdu_len = sizeof(pdu);
	assert_int_equal(bt_event_remap(&e, &rm), 0);
	assert_int_equal(BT_DEV_MAJOR(rm.dev_from), 259);
	assert_int_equal(BT_DEV_MINOR(rm.dev_from), 3);
	assert_int_equal(rm.dev_to, BT_DEV_MAKE(259u, 0u));
	assert_int_equal(rm.sector_from, 0x8bcd2318ull);
	e.pdu_len = 15;
	assert_int_equal(bt_event_remap(&e, &rm), -EBADMSG);
	e.pdu = NULL;
	e.pdu_len = 0;
	assert_int_equal(bt_event_remap(&e, &rm), -EBADMSG);
}

static void test_event_split_and_unplug(void **state)
{
	static const unsigned char pdu[8] = { 0, 0, 0, 1, 0, 0, 0, 2 };
	struct bt_event e = ev(BT_A_SPLIT, BT_TC_WRITE, 4096);
	uint64_t v = 0;

	(void)state;
	e.pdu = pdu;
	e.pdu_len = 8;
	assert_int_equal(bt_event_split(&e, &v), 0);
	assert_int_equal(v, 0x100000002ull);
	e.action = BT_A_UNPLUG_IO;
	assert_int_equal(bt_event_unplug(&e, &v), 0);
	assert_int_equal(v, 0x100000002ull);
	e.pdu_len = 7;
	assert_int_equal(bt_event_split(&e, &v), -EBADMSG);
	assert_int_equal(bt_event_unplug(&e, &v), -EBADMSG);
}

static void test_event_process_comm(void **state)
{
	static const char full[16] = "0123456789abcdef";	/* no NUL */
	struct bt_event e = ev(BT_N_PROCESS, BT_TC_NOTIFY, 0);
	char comm[17];
	char small[5];

	(void)state;
	e.pdu = (const unsigned char *)"fio\0\0\0\0\0\0\0\0\0\0\0\0\0";
	e.pdu_len = 16;
	assert_int_equal(bt_event_process(&e, comm, sizeof(comm)), 0);
	assert_string_equal(comm, "fio");
	/* A 16-byte comm fills the whole field with no NUL. */
	e.pdu = (const unsigned char *)full;
	assert_int_equal(bt_event_process(&e, comm, sizeof(comm)), 0);
	assert_string_equal(comm, "0123456789abcdef");
	assert_int_equal(bt_event_process(&e, small, sizeof(small)), 0);
	assert_string_equal(small, "0123");
	e.pdu = NULL;
	e.pdu_len = 0;
	assert_int_equal(bt_event_process(&e, comm, sizeof(comm)), -EBADMSG);
}

static void test_event_timestamp_and_message(void **state)
{
	uint32_t ts[2] = { 1700000000u, 123456789u };
	struct bt_event e = ev(BT_N_TIMESTAMP, BT_TC_NOTIFY, 0);
	uint32_t sec = 0, nsec = 0;
	const char *text;
	size_t len;

	(void)state;
	e.pdu = (const unsigned char *)ts;
	e.pdu_len = 8;
	assert_int_equal(bt_event_timestamp(&e, &sec, &nsec), 0);
	assert_int_equal(sec, 1700000000u);
	assert_int_equal(nsec, 123456789u);
	e.pdu_len = 4;
	assert_int_equal(bt_event_timestamp(&e, &sec, &nsec), -EBADMSG);

	e = ev(BT_N_MESSAGE, BT_TC_NOTIFY, 0);
	e.pdu = (const unsigned char *)"cfq123S  add_to_rr\0\0";
	e.pdu_len = 20;
	assert_int_equal(bt_event_message(&e, &text, &len), 0);
	assert_int_equal(len, 18);	/* padding NULs are not text */
	assert_memory_equal(text, "cfq123S  add_to_rr", 18);
	e.pdu = NULL;
	e.pdu_len = 0;
	assert_int_equal(bt_event_message(&e, &text, &len), 0);
	assert_int_equal(len, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_letters_match_blkparse),
		cmocka_unit_test(test_event_rwbs_order),
		cmocka_unit_test(test_event_rwbs_every_flag_combination),
		cmocka_unit_test(test_event_zone_letters),
		cmocka_unit_test(test_event_zone_rwbs),
		cmocka_unit_test(test_event_zone_categories_read_back_from_v8),
		cmocka_unit_test(test_event_zone_categories_do_not_fit_v7),
		cmocka_unit_test(test_event_remap_is_big_endian),
		cmocka_unit_test(test_event_split_and_unplug),
		cmocka_unit_test(test_event_process_comm),
		cmocka_unit_test(test_event_timestamp_and_message),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
