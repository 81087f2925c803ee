// SPDX-License-Identifier: MIT
/*
 * test_reader.c - the trace reader on traces built in memory with
 * bt_event_encode(): every layout (v7, v8, 64-byte header behind a v7
 * magic, tracefs context prefix) in both byte orders, cgroup ids, notes
 * and the pid -> comm map, merging inputs by time and time going
 * backwards; on random traces, the short paths against the general one
 * and actions set aside against everything delivered.  Copies and
 * separate recordings are in test_reader_dup.c,
 * bad input and the other sources (files, per-CPU sets, stdin, gzip) in
 * test_reader_input.c.
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

/* The flag sets every layout test runs over. */
static const struct layout {
	unsigned flags;
	int ctx;
	const char *name;
} layouts[] = {
	{ 0, 0, "v7" },
	{ BT_ENC_SWAP, 0, "v7 swapped" },
	{ BT_ENC_V8, 0, "v8" },
	{ BT_ENC_V8 | BT_ENC_SWAP, 0, "v8 swapped" },
	{ BT_ENC_WIDE, 0, "wide v7" },
	{ BT_ENC_WIDE | BT_ENC_SWAP, 0, "wide v7 swapped" },
	{ 0, 1, "tracefs prefix" },
	{ BT_ENC_SWAP, 1, "tracefs prefix swapped" },
	{ BT_ENC_V8, 1, "tracefs prefix v8" },
	{ BT_ENC_WIDE | BT_ENC_SWAP, 1, "tracefs prefix wide v7 swapped" },
};

#define NLAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

static const unsigned char remap_pdu[16] = {
	0x10, 0x30, 0x00, 0x03, 0x10, 0x30, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x8b, 0xcd, 0x23, 0x18,
};

static const unsigned char unplug_pdu[8] = { 0, 0, 0, 0, 0, 0, 0, 3 };

/*
 * A small trace touching every field: notes, a remap with its pdu, an
 * unplug, a cgroup-flagged message, odd pdu lengths (so a wrong header
 * size cannot land on the next magic by chance) and large values.
 */
static void build_sample(struct tb *t, unsigned flags, int ctx)
{
	struct bt_event e;

	tb_init(t, flags, ctx);
	e = tb_ev(100, 0, BT_N_PROCESS, BT_TC_NOTIFY, 0);
	e.pid = 4242;
	e.pdu = (const unsigned char *)"kworker/1:1H\0\0\0\0";
	e.pdu_len = 16;
	tb_add(t, &e);
	e = tb_ev(1000, 1, BT_A_REMAP, BT_TC_READ | BT_TC_AHEAD, 4096);
	e.pdu = remap_pdu;
	e.pdu_len = sizeof(remap_pdu);
	e.sector = 0xfedcba9876ull;
	e.pid = 4242;
	tb_add(t, &e);
	e = tb_ev(2000, 2, BT_A_QUEUE, BT_TC_WRITE | BT_TC_SYNC, 8192);
	e.error = 65531;
	e.cpu = 3;
	e.dev = BT_DEV_MAKE(259u, 7u);
	tb_add(t, &e);
	e = tb_ev(3000, 3, BT_A_UNPLUG_IO, 0, 0);
	e.pdu = unplug_pdu;
	e.pdu_len = sizeof(unplug_pdu);
	tb_add(t, &e);
	e = tb_ev(4000, 0, BT_N_MESSAGE, BT_TC_NOTIFY, 0);
	e.has_cgroup = 1;
	e.cgroup = 0x0102030405060708ull;
	e.pdu = (const unsigned char *)"bfq42S add to busy";
	e.pdu_len = 18;
	tb_add(t, &e);
	e = tb_ev(0xffffffffffull, 4, BT_A_COMPLETE,
		  BT_TC_FLUSH | BT_TC_WRITE | BT_TC_FUA | BT_TC_COMPLETE, 4096);
	e.pdu = (const unsigned char *)"abc";
	e.pdu_len = 3;
	tb_add(t, &e);
}

static void check_sample(struct bt_reader *r, unsigned flags, int ctx)
{
	struct bt_event e;
	struct bt_remap rm;
	uint64_t v, off = 0;
	const char *text;
	size_t len, hdr = (flags & (BT_ENC_V8 | BT_ENC_WIDE) ? 64 : 48) +
			  (ctx ? 16 : 0);
	struct bt_reader_stats st;

	assert_int_equal(bt_reader_next(r, &e), 1);
	assert_true(bt_event_is_note(&e));
	assert_int_equal(e.action, BT_N_PROCESS);
	assert_int_equal(e.version, flags & BT_ENC_V8 ? 8 : 7);
	assert_int_equal(e.offset, 0);
	assert_string_equal(bt_reader_comm(r, 4242), "kworker/1:1H");
	off += hdr + 16;

	assert_int_equal(bt_reader_next(r, &e), 1);
	assert_int_equal(e.action, BT_A_REMAP);
	assert_int_equal(e.category, BT_TC_READ | BT_TC_AHEAD);
	assert_int_equal(e.time, 1000);
	assert_int_equal(e.sequence, 1);
	assert_int_equal(e.sector, 0xfedcba9876ull);
	assert_int_equal(e.bytes, 4096);
	assert_int_equal(e.pid, 4242);
	assert_int_equal(e.dev, BT_DEV_MAKE(8u, 16u));
	assert_int_equal(e.cpu, 1);
	assert_int_equal(e.offset, off);
	assert_int_equal(e.pdu_len, 16);
	assert_int_equal(bt_event_remap(&e, &rm), 0);
	assert_int_equal(rm.dev_from, BT_DEV_MAKE(259u, 3u));
	assert_int_equal(rm.sector_from, 0x8bcd2318ull);
	off += hdr + 16;

	assert_int_equal(bt_reader_next(r, &e), 1);
	assert_int_equal(e.action, BT_A_QUEUE);
	assert_int_equal(e.error, 65531);
	assert_int_equal(e.cpu, 3);
	assert_int_equal(BT_DEV_MAJOR(e.dev), 259);
	assert_int_equal(BT_DEV_MINOR(e.dev), 7);
	assert_int_equal(e.pdu_len, 0);
	assert_int_equal(e.offset, off);
	off += hdr;

	assert_int_equal(bt_reader_next(r, &e), 1);
	assert_int_equal(e.action, BT_A_UNPLUG_IO);
	assert_int_equal(bt_event_unplug(&e, &v), 0);
	assert_int_equal(v, 3);
	off += hdr + 8;

	assert_int_equal(bt_reader_next(r, &e), 1);
	assert_int_equal(e.action, BT_N_MESSAGE);
	assert_true(e.has_cgroup);
	assert_int_equal(e.cgroup, 0x0102030405060708ull);
	assert_int_equal(bt_event_message(&e, &text, &len), 0);
	assert_int_equal(len, 18);
	assert_memory_equal(text, "bfq42S add to busy", 18);
	assert_int_equal(e.offset, off);
	off += hdr + 8 + 18;

	assert_int_equal(bt_reader_next(r, &e), 1);
	assert_int_equal(e.action, BT_A_COMPLETE);
	assert_int_equal(e.time, 0xffffffffffull);
	assert_false(e.has_cgroup);
	assert_int_equal(e.pdu_len, 3);
	assert_memory_equal(e.pdu, "abc", 3);
	off += hdr + 3;

	assert_int_equal(bt_reader_next(r, &e), 0);
	assert_int_equal(bt_reader_next(r, &e), 0);	/* stays at the end */
	assert_null(bt_reader_error(r, NULL, NULL));
	bt_reader_get_stats(r, &st);
	assert_int_equal(st.events, 6);
	assert_int_equal(st.bytes, off);
	assert_int_equal(st.duplicates, 0);
	assert_int_equal(st.backwards, 0);
}

static void test_reader_every_layout_and_byte_order(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NLAYOUTS; i++) {
		struct tb t;
		struct bt_reader *r;

		print_message("layout: %s\n", layouts[i].name);
		build_sample(&t, layouts[i].flags, layouts[i].ctx);
		assert_int_equal(bt_reader_new(&r), 0);
		assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, "mem"), 0);
		check_sample(r, layouts[i].flags, layouts[i].ctx);
		bt_reader_free(r);
		tb_free(&t);
	}
}

/* The decoded fields equal what was encoded, whatever the byte order. */
/*
 * Big-endian bytes written out by hand, not by the library's own encoder,
 * so an encoder and decoder that agree on a wrong order cannot pass: a
 * version-7 Q of 4096 bytes (WRITE|SYNC) from pid 0x1234 on 8,16, cpu 1,
 * with a 2-byte payload, followed by a version-8 D (64-byte header, u64
 * action) of the same request.
 */
static const unsigned char be_v7_q[50] = {
	0x65, 0x61, 0x74, 0x07,			/* magic, version 7 */
	0x00, 0x00, 0x00, 0x2a,			/* sequence 42 */
	0x00, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, /* time */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0xd6, 0x87, /* sector 1234567 */
	0x00, 0x00, 0x10, 0x00,			/* bytes 4096 */
	0x00, 0x1a, 0x00, 0x01,			/* QUEUE|SYNC|WRITE, Q */
	0x00, 0x00, 0x12, 0x34,			/* pid */
	0x00, 0x80, 0x00, 0x10,			/* dev 8,16 */
	0x00, 0x00, 0x00, 0x01,			/* cpu 1 */
	0x00, 0x00,				/* error */
	0x00, 0x02,				/* pdu_len */
	0xab, 0xcd,				/* payload */
};

static const unsigned char be_v8_d[64] = {
	0x65, 0x61, 0x74, 0x08,			/* magic, version 8 */
	0x00, 0x00, 0x00, 0x2b,			/* sequence 43 */
	0x00, 0x00, 0x00, 0x01, 0x02, 0x03, 0x05, 0x00, /* time */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0xd6, 0x87, /* sector */
	0x00, 0x00, 0x10, 0x00,			/* bytes */
	0x00, 0x00, 0x12, 0x34,			/* pid */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x4a, 0x00, 0x07, /* ISSUE|SYNC|WRITE, D */
	0x00, 0x80, 0x00, 0x10,			/* dev */
	0x00, 0x00, 0x00, 0x01,			/* cpu */
	0xff, 0xfb,				/* error -5 */
	0x00, 0x00,				/* pdu_len */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* padding */
};

static void test_reader_reads_hand_written_big_endian(void **state)
{
	unsigned char buf[sizeof(be_v7_q) + sizeof(be_v8_d)];
	struct bt_reader *r;
	struct bt_event e;

	(void)state;
	memcpy(buf, be_v7_q, sizeof(be_v7_q));
	memcpy(buf + sizeof(be_v7_q), be_v8_d, sizeof(be_v8_d));
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, buf, sizeof(be_v7_q), "be-v7"), 0);
	assert_int_equal(bt_reader_next(r, &e), 1);
	assert_int_equal(e.version, 7);
	assert_int_equal(e.sequence, 42);
	assert_int_equal(e.time, 0x0102030405ULL);
	assert_int_equal(e.sector, 1234567);
	assert_int_equal(e.bytes, 4096);
	assert_int_equal(e.action, BT_A_QUEUE);
	assert_int_equal(e.category, BT_TC_QUEUE | BT_TC_SYNC | BT_TC_WRITE);
	assert_int_equal(e.pid, 0x1234);
	assert_int_equal(BT_DEV_MAJOR(e.dev), 8);
	assert_int_equal(BT_DEV_MINOR(e.dev), 16);
	assert_int_equal(e.cpu, 1);
	assert_int_equal(e.error, 0);
	assert_int_equal(e.pdu_len, 2);
	assert_int_equal(e.pdu[0], 0xab);
	assert_int_equal(e.pdu[1], 0xcd);
	assert_int_equal(e.offset, 0);
	assert_int_equal(bt_reader_next(r, &e), 0);
	bt_reader_free(r);

	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, be_v8_d, sizeof(be_v8_d), "be-v8"), 0);
	assert_int_equal(bt_reader_next(r, &e), 1);
	assert_int_equal(e.version, 8);
	assert_int_equal(e.sequence, 43);
	assert_int_equal(e.time, 0x0102030500ULL);
	assert_int_equal(e.sector, 1234567);
	assert_int_equal(e.bytes, 4096);
	assert_int_equal(e.action, BT_A_ISSUE);
	assert_int_equal(e.category, BT_TC_ISSUE | BT_TC_SYNC | BT_TC_WRITE);
	assert_int_equal(e.pid, 0x1234);
	assert_int_equal(BT_DEV_MINOR(e.dev), 16);
	assert_int_equal(e.cpu, 1);
	assert_int_equal((int16_t)e.error, -5);
	assert_int_equal(e.pdu_len, 0);
	assert_int_equal(bt_reader_next(r, &e), 0);
	bt_reader_free(r);
}

static void test_reader_swaps_big_endian(void **state)
{
	struct tb a, b;
	struct bt_reader *ra, *rb;
	struct bt_event ea, eb;
	int n = 0, rc;

	(void)state;
	build_sample(&a, 0, 0);
	build_sample(&b, BT_ENC_SWAP, 0);
	assert_memory_not_equal(a.buf, b.buf, 48);
	assert_int_equal(bt_reader_new(&ra), 0);
	assert_int_equal(bt_reader_new(&rb), 0);
	assert_int_equal(bt_reader_add_mem(ra, a.buf, a.len, "native"), 0);
	assert_int_equal(bt_reader_add_mem(rb, b.buf, b.len, "swapped"), 0);
	while ((rc = bt_reader_next(ra, &ea)) == 1) {
		assert_int_equal(bt_reader_next(rb, &eb), 1);
		assert_int_equal(ea.time, eb.time);
		assert_int_equal(ea.sector, eb.sector);
		assert_int_equal(ea.sequence, eb.sequence);
		assert_int_equal(ea.bytes, eb.bytes);
		assert_int_equal(ea.action, eb.action);
		assert_int_equal(ea.category, eb.category);
		assert_int_equal(ea.pid, eb.pid);
		assert_int_equal(ea.dev, eb.dev);
		assert_int_equal(ea.cpu, eb.cpu);
		assert_int_equal(ea.error, eb.error);
		assert_int_equal(ea.cgroup, eb.cgroup);
		assert_int_equal(ea.has_cgroup, eb.has_cgroup);
		assert_int_equal(ea.offset, eb.offset);
		assert_int_equal(ea.pdu_len, eb.pdu_len);
		if (ea.pdu_len)
			assert_memory_equal(ea.pdu, eb.pdu, ea.pdu_len);
		n++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(bt_reader_next(rb, &eb), 0);
	assert_int_equal(n, 6);
	bt_reader_free(ra);
	bt_reader_free(rb);
	tb_free(&a);
	tb_free(&b);
}

/*
 * Wide records whose bytes 46-47 (part of the cpu in the 64-byte layout)
 * read as pdu_len 16, so the 48-byte reading also lands on the next magic:
 * the cpu's high half in little-endian, cpu 16 in big-endian.
 */
static void test_reader_wide_detection_with_odd_cpu(void **state)
{
	struct tb t;
	struct bt_event e;
	struct bt_reader *r;
	unsigned swap;
	uint32_t cpu;
	int i, n;

	(void)state;
	for (swap = 0; swap <= BT_ENC_SWAP; swap += BT_ENC_SWAP) {
		cpu = swap ? 16 : 0x00100002;
		tb_init(&t, BT_ENC_WIDE | swap, 0);
		for (i = 0; i < 5; i++) {
			e = tb_ev(10 + (uint64_t)i, 1 + (uint32_t)i, BT_A_QUEUE,
				  BT_TC_READ, 512);
			e.cpu = cpu;
			tb_add(&t, &e);
		}
		assert_int_equal(bt_reader_new(&r), 0);
		assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, "wide"), 0);
		n = 0;
		while (bt_reader_next(r, &e) == 1) {
			assert_int_equal(e.cpu, cpu);
			assert_int_equal(e.action, BT_A_QUEUE);
			assert_int_equal(e.time, 10 + (uint64_t)n);
			n++;
		}
		assert_int_equal(n, 5);
		assert_null(bt_reader_error(r, NULL, NULL));
		bt_reader_free(r);
		tb_free(&t);
	}
}

/* One record only: nothing after it to land on but the end. */
static void test_reader_single_record_each_layout(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NLAYOUTS; i++) {
		struct tb t;
		struct bt_event e = tb_ev(7, 1, BT_A_ISSUE, BT_TC_WRITE, 4096);
		struct bt_reader *r;

		tb_init(&t, layouts[i].flags, layouts[i].ctx);
		e.pdu = unplug_pdu;
		e.pdu_len = 5;
		tb_add(&t, &e);
		assert_int_equal(bt_reader_new(&r), 0);
		assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, "one"), 0);
		assert_int_equal(bt_reader_next(r, &e), 1);
		assert_int_equal(e.time, 7);
		assert_int_equal(e.pdu_len, 5);
		assert_int_equal(bt_reader_next(r, &e), 0);
		bt_reader_free(r);
		tb_free(&t);
	}
}

static void test_reader_cgroup_id_stripped(void **state)
{
	struct tb t;
	struct bt_event e;
	struct bt_reader *r;
	unsigned swap;

	(void)state;
	for (swap = 0; swap <= BT_ENC_SWAP; swap += BT_ENC_SWAP) {
		tb_init(&t, swap, 0);
		e = tb_ev(1, 1, BT_A_QUEUE, BT_TC_WRITE, 4096);
		e.has_cgroup = 1;
		e.cgroup = 0xa1b2c3d4e5f60718ull;
		tb_add(&t, &e);
		/* The flag with fewer than 8 bytes: no id to strip. */
		e = tb_ev(2, 2, BT_A_QUEUE | BT_A_CGROUP, BT_TC_WRITE, 4096);
		e.pdu = (const unsigned char *)"xyz";
		e.pdu_len = 3;
		tb_add(&t, &e);
		assert_int_equal(bt_reader_new(&r), 0);
		assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, "cg"), 0);
		assert_int_equal(bt_reader_next(r, &e), 1);
		assert_int_equal(e.action, BT_A_QUEUE);	/* bit removed */
		assert_true(e.has_cgroup);
		assert_int_equal(e.cgroup, 0xa1b2c3d4e5f60718ull);
		assert_int_equal(e.pdu_len, 0);
		assert_int_equal(bt_reader_next(r, &e), 1);
		assert_int_equal(e.action, BT_A_QUEUE);
		assert_false(e.has_cgroup);
		assert_int_equal(e.cgroup, 0);
		assert_int_equal(e.pdu_len, 3);
		assert_memory_equal(e.pdu, "xyz", 3);
		assert_int_equal(bt_reader_next(r, &e), 0);
		bt_reader_free(r);
		tb_free(&t);
	}
}

/* TIMESTAMP is in the producer's order; the reader hands it over in ours. */
static void test_reader_timestamp_note_in_host_order(void **state)
{
	struct tb t;
	struct bt_event e;
	struct bt_reader *r;
	uint32_t ts[2], sec, nsec;
	unsigned swap;

	(void)state;
	for (swap = 0; swap <= BT_ENC_SWAP; swap += BT_ENC_SWAP) {
		ts[0] = swap ? __builtin_bswap32(1700000000u) : 1700000000u;
		ts[1] = swap ? __builtin_bswap32(5000u) : 5000u;
		tb_init(&t, swap, 0);
		e = tb_ev(1, 0, BT_N_TIMESTAMP, BT_TC_NOTIFY, 0);
		e.pdu = (const unsigned char *)ts;
		e.pdu_len = 8;
		tb_add(&t, &e);
		assert_int_equal(bt_reader_new(&r), 0);
		assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, "ts"), 0);
		assert_int_equal(bt_reader_next(r, &e), 1);
		assert_int_equal(bt_event_timestamp(&e, &sec, &nsec), 0);
		assert_int_equal(sec, 1700000000u);
		assert_int_equal(nsec, 5000u);
		bt_reader_free(r);
		tb_free(&t);
	}
}

/*
 * PROCESS notes take effect when their input reads them, as in blkparse:
 * an event of another input delivered earlier already sees the name.
 */
static void test_reader_comm_known_at_parse_time(void **state)
{
	struct tb a, b;
	struct bt_event e;
	struct bt_reader *r;

	(void)state;
	tb_init(&a, 0, 0);
	e = tb_ev(10, 1, BT_A_QUEUE, BT_TC_READ, 4096);
	e.pid = 77;
	tb_add(&a, &e);
	tb_init(&b, 0, 0);
	e = tb_ev(500, 0, BT_N_PROCESS, BT_TC_NOTIFY, 0);
	e.pid = 77;
	e.pdu = (const unsigned char *)"postgres\0\0\0\0\0\0\0\0";
	e.pdu_len = 16;
	tb_add(&b, &e);
	e.time = 600;
	e.pdu = (const unsigned char *)"psql\0\0\0\0\0\0\0\0\0\0\0\0";
	tb_add(&b, &e);
	assert_int_equal(bt_reader_new(&r), 0);
	assert_null(bt_reader_comm(r, 77));
	assert_int_equal(bt_reader_add_mem(r, a.buf, a.len, "a"), 0);
	assert_int_equal(bt_reader_add_mem(r, b.buf, b.len, "b"), 0);
	assert_int_equal(bt_reader_next(r, &e), 1);
	assert_int_equal(e.time, 10);
	assert_string_equal(bt_reader_comm(r, 77), "postgres");
	assert_null(bt_reader_comm(r, 78));
	assert_int_equal(bt_reader_next(r, &e), 1);
	assert_int_equal(e.time, 500);
	assert_int_equal(bt_reader_next(r, &e), 1);
	assert_string_equal(bt_reader_comm(r, 77), "psql");	/* renamed */
	bt_reader_free(r);
	tb_free(&a);
	tb_free(&b);
}

/* Many pids: the map grows, and every name stays right. */
static void test_reader_comm_many_pids(void **state)
{
	struct tb t;
	struct bt_event e;
	struct bt_reader *r;
	char name[16];
	uint32_t pid;

	(void)state;
	tb_init(&t, 0, 0);
	for (pid = 0; pid < 5000; pid++) {
		memset(name, 0, sizeof(name));
		snprintf(name, sizeof(name), "p%u", pid * 7);
		e = tb_ev(pid, 0, BT_N_PROCESS, BT_TC_NOTIFY, 0);
		e.pid = pid * 7;
		e.pdu = (const unsigned char *)name;
		e.pdu_len = 16;
		tb_add(&t, &e);
	}
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, "pids"), 0);
	while (bt_reader_next(r, &e) == 1)
		;
	for (pid = 0; pid < 5000; pid++) {
		snprintf(name, sizeof(name), "p%u", pid * 7);
		assert_string_equal(bt_reader_comm(r, pid * 7), name);
	}
	assert_null(bt_reader_comm(r, 1));
	bt_reader_free(r);
	tb_free(&t);
}

static void test_reader_merges_by_time(void **state)
{
	static const uint64_t times[3][5] = {
		{ 1, 4, 7, 10, 13 },
		{ 2, 5, 8, 8, 100 },
		{ 3, 4, 9, 11, 12 },
	};
	struct tb t[3];
	struct bt_event e;
	struct bt_reader *r;
	uint64_t last = 0;
	int i, j, n = 0, prev_input = -1;

	(void)state;
	assert_int_equal(bt_reader_new(&r), 0);
	for (i = 0; i < 3; i++) {
		tb_init(&t[i], i == 1 ? BT_ENC_SWAP : i == 2 ? BT_ENC_V8 : 0, 0);
		for (j = 0; j < 5; j++) {
			e = tb_ev(times[i][j], j + 1, BT_A_QUEUE, BT_TC_READ, 512);
			e.cpu = (uint32_t)i;
			e.sector = (uint64_t)(i * 100 + j);
			tb_add(&t[i], &e);
		}
		assert_int_equal(bt_reader_add_mem(r, t[i].buf, t[i].len,
						   "cpu"), 0);
	}
	assert_int_equal(bt_reader_inputs(r), 3);
	while (bt_reader_next(r, &e) == 1) {
		assert_true(e.time >= last);
		/* equal times: input order */
		if (e.time == last && n)
			assert_true((int)e.input >= prev_input);
		assert_int_equal(e.cpu, e.input);
		assert_int_equal(e.sector % 100, e.sequence - 1);
		last = e.time;
		prev_input = e.input;
		n++;
	}
	assert_int_equal(n, 15);
	bt_reader_free(r);
	for (i = 0; i < 3; i++)
		tb_free(&t[i]);
}

/* Each warning names its first record: input, offset and what it is. */
static void test_reader_warnings_name_first_record(void **state)
{
	static const uint64_t times[] = { 10, 30, 20000, 40000, 5000, 50000 };
	static const uint32_t seqs[] = { 1, 2, 3, 7, 8, 9 };
	struct tb t;
	struct bt_event e;
	struct bt_reader *r;
	struct bt_reader_stats st;
	size_t at[6];
	char buf[256], want[200];

	(void)state;
	tb_init(&t, 0, 0);
	for (int i = 0; i < 6; i++) {
		e = tb_ev(times[i], seqs[i], BT_A_QUEUE, BT_TC_READ, 512);
		at[i] = tb_add(&t, &e);
	}
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, "w.bin"), 0);
	while (bt_reader_next(r, &e) == 1)
		;
	bt_reader_get_stats(r, &st);
	assert_int_equal(st.gaps, 1);
	assert_int_equal(st.missing, 3);
	snprintf(want, sizeof(want), "3 records missing in 1 sequence gaps, "
		 "the first at w.bin: offset %zu (cpu 1 sequence 7 after 3)",
		 at[3]);
	assert_non_null(strstr(bt_reader_warning(r, 0, buf, sizeof(buf)), want));
	snprintf(want, sizeof(want), "time went backwards 1 times, the first "
		 "at w.bin: offset %zu (35.000 us before a record read "
		 "earlier)", at[4]);
	assert_non_null(strstr(bt_reader_warning(r, 1, buf, sizeof(buf)), want));
	assert_null(bt_reader_warning(r, 2, buf, sizeof(buf)));
	bt_reader_free(r);
	tb_free(&t);
}

static void test_reader_counts_time_going_backwards(void **state)
{
	static const uint64_t times[] = { 10, 30, 20, 40, 5, 50 };
	struct tb t;
	struct bt_event e;
	struct bt_reader *r;
	struct bt_reader_stats st;
	size_t i;

	(void)state;
	tb_init(&t, 0, 0);
	for (i = 0; i < 6; i++) {
		e = tb_ev(times[i], (uint32_t)i + 1, BT_A_QUEUE, BT_TC_READ, 512);
		tb_add(&t, &e);
	}
	/* A note with a raw (older) time does not count as going back. */
	e = tb_ev(1, 0, BT_N_MESSAGE, BT_TC_NOTIFY, 0);
	e.pdu = (const unsigned char *)"hello";
	e.pdu_len = 5;
	tb_add(&t, &e);
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, "back"), 0);
	for (i = 0; i < 6; i++) {
		assert_int_equal(bt_reader_next(r, &e), 1);
		assert_int_equal(e.time, times[i]);	/* delivered as is */
	}
	assert_int_equal(bt_reader_next(r, &e), 1);
	assert_int_equal(bt_reader_next(r, &e), 0);
	bt_reader_get_stats(r, &st);
	assert_int_equal(st.backwards, 2);
	assert_int_equal(st.events, 7);
	bt_reader_free(r);
	tb_free(&t);
}

/*
 * No bytes in any input is bad input (an empty file, say): "empty trace"
 * at offset 0 of the first input, -ENODATA, sticky.  One empty input among
 * others is a CPU that did nothing and only ends early.
 */
static void test_reader_empty_mem_is_empty_trace(void **state)
{
	struct bt_reader *r;
	struct bt_event e;
	struct bt_reader_stats st;
	const char *file;
	uint64_t off = 99;
	struct tb t;

	(void)state;
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, "", 0, "empty"), 0);
	assert_int_equal(bt_reader_next(r, &e), -ENODATA);
	assert_string_equal(bt_reader_error(r, &file, &off), "empty trace");
	assert_string_equal(file, "empty");
	assert_int_equal(off, 0);
	assert_int_equal(bt_reader_next(r, &e), -ENODATA);
	assert_true(bt_reader_empty(r));
	bt_reader_get_stats(r, &st);
	assert_int_equal(st.events, 0);
	bt_reader_free(r);

	/* Three bytes are a truncated record, not an empty trace. */
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, "\x07\x74\x61", 3, "short"), 0);
	assert_int_equal(bt_reader_next(r, &e), -ENODATA);
	assert_false(bt_reader_empty(r));
	assert_string_equal(bt_reader_error(r, NULL, NULL),
			    "truncated record: 3 bytes");
	bt_reader_free(r);

	/* Several inputs, all empty: reported on the first. */
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, "", 0, "cpu0"), 0);
	assert_int_equal(bt_reader_add_mem(r, NULL, 0, "cpu1"), 0);
	assert_int_equal(bt_reader_next(r, &e), -ENODATA);
	assert_string_equal(bt_reader_error(r, &file, NULL), "empty trace");
	assert_string_equal(file, "cpu0");
	bt_reader_free(r);

	/* An empty input beside one with records: no error. */
	tb_init(&t, 0, 0);
	e = tb_ev(10, 1, BT_A_QUEUE, BT_TC_READ, 4096);
	tb_add(&t, &e);
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, "", 0, "cpu0"), 0);
	assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, "cpu1"), 0);
	assert_int_equal(bt_reader_next(r, &e), 1);
	assert_int_equal(e.input, 1);
	assert_int_equal(bt_reader_next(r, &e), 0);
	assert_null(bt_reader_error(r, NULL, NULL));
	assert_false(bt_reader_empty(r));
	bt_reader_free(r);
	tb_free(&t);

	/* No input at all: just the end. */
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_next(r, &e), 0);
	assert_null(bt_reader_error(r, NULL, NULL));
	bt_reader_free(r);
}

static void test_reader_names_and_add_after_start(void **state)
{
	struct tb t;
	struct bt_event e;
	struct bt_reader *r;

	(void)state;
	build_sample(&t, 0, 0);
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, "first"), 0);
	assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, "second"), 0);
	assert_int_equal(bt_reader_inputs(r), 2);
	assert_string_equal(bt_reader_input_name(r, 0), "first");
	assert_string_equal(bt_reader_input_name(r, 1), "second");
	assert_null(bt_reader_input_name(r, 2));
	assert_int_equal(bt_reader_next(r, &e), 1);
	assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, "late"), -EBUSY);
	assert_int_equal(bt_reader_inputs(r), 2);
	bt_reader_free(r);
	tb_free(&t);
	bt_reader_free(NULL);
}

/* ------------------------------------------------ actions set aside */

/* A random trace for the set-aside tests: a few of every shape. */
static void build_random(struct tb *t, unsigned flags, int ctx, unsigned cpu,
			 int unsequenced, uint32_t *rnd)
{
	static const uint32_t acts[] = {
		BT_A_QUEUE, BT_A_BACKMERGE, BT_A_GETRQ, BT_A_INSERT,
		BT_A_ISSUE, BT_A_COMPLETE, BT_A_REQUEUE, BT_A_PLUG,
	};
	struct bt_event e, prev;
	uint64_t time = 1000;
	uint32_t seq = 1;

	tb_init(t, flags, ctx);
	memset(&prev, 0, sizeof(prev));
	for (int i = 0; i < 400; i++) {
		*rnd = *rnd * 1103515245u + 12345u;
		uint32_t x = *rnd >> 8;

		if (i && x % 23 == 0) {
			tb_add(t, &prev);	/* a copy: dropped as one */
			continue;
		}
		time += x % 7 == 0 ? 0 : x % 500;
		if (x % 31 == 0 && time > 3000)
			time -= 2000;		/* backwards */
		if (x % 37 == 0)
			seq += 3;		/* a gap */
		if (x % 13 == 0) {
			e = tb_note(time, 100 + x % 5, "proc");
		} else {
			e = tb_ev(time, unsequenced ? 0 : seq++, acts[x % 8],
				  x >> 3 & 1 ? BT_TC_WRITE : BT_TC_READ,
				  x % 5 ? 4096 : 0);
			e.cpu = cpu;
		}
		tb_add(t, &e);
		prev = e;
	}
}

static void assert_same_event(const struct bt_event *a,
			      const struct bt_event *b)
{
	assert_int_equal(a->time, b->time);
	assert_int_equal(a->sector, b->sector);
	assert_int_equal(a->offset, b->offset);
	assert_int_equal(a->input, b->input);
	assert_int_equal(a->sequence, b->sequence);
	assert_int_equal(a->action, b->action);
	assert_int_equal(a->category, b->category);
	assert_int_equal(a->bytes, b->bytes);
	assert_int_equal(a->pid, b->pid);
	assert_int_equal(a->cpu, b->cpu);
	assert_int_equal(a->pdu_len, b->pdu_len);
	if (a->pdu_len)
		assert_memory_equal(a->pdu, b->pdu, a->pdu_len);
}

static struct bt_reader *open_random(struct tb *t, size_t n)
{
	struct bt_reader *r;

	assert_int_equal(bt_reader_new(&r), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(bt_reader_add_mem(r, t[i].buf, t[i].len,
						   "cpu"), 0);
	return r;
}

/* The rest of two readers' runs: the same events, statistics, warnings. */
static void assert_same_runs(struct bt_reader *a, struct bt_reader *b)
{
	struct bt_reader_stats sa, sb;
	struct bt_event e, f;
	char b1[256], b2[256];
	int rc;

	while ((rc = bt_reader_next(a, &e)) == 1) {
		assert_int_equal(bt_reader_next(b, &f), 1);
		assert_same_event(&e, &f);
	}
	assert_int_equal(rc, 0);
	assert_int_equal(bt_reader_next(b, &f), 0);
	bt_reader_get_stats(a, &sa);
	bt_reader_get_stats(b, &sb);
	assert_memory_equal(&sa, &sb, sizeof(sa));
	for (size_t i = 0;; i++) {
		const char *w1 = bt_reader_warning(a, i, b1, sizeof(b1));
		const char *w2 = bt_reader_warning(b, i, b2, sizeof(b2));

		if (!w1 || !w2) {
			assert_true(!w1 && !w2);
			break;
		}
		assert_string_equal(w1, w2);
	}
}

/*
 * The short paths (native byte order) and the general one (swapped)
 * read the same random traces alike, with sequences and without (as
 * tracefs captures are), one input and a merge of three: copies dropped,
 * gaps and time going back counted, the same warnings.
 */
static void test_reader_short_paths_match_general(void **state)
{
	static const unsigned native[] = { 0, BT_ENC_V8 };

	(void)state;
	for (int unseq = 0; unseq <= 1; unseq++) {
		for (size_t l = 0; l < 2; l++) {
			for (size_t n = 1; n <= 3; n += 2) {
				struct tb t[3], u[3];
				struct bt_reader *a, *b;
				struct bt_reader_stats st;
				uint32_t r1 = 11, r2 = 11;

				for (size_t i = 0; i < n; i++) {
					build_random(&t[i], native[l], 0,
						     (unsigned)i, unseq, &r1);
					build_random(&u[i],
						     native[l] | BT_ENC_SWAP, 0,
						     (unsigned)i, unseq, &r2);
				}
				a = open_random(t, n);
				b = open_random(u, n);
				assert_same_runs(a, b);
				bt_reader_get_stats(a, &st);
				assert_true(st.duplicates > 0 &&
					    st.backwards > 0);
				bt_reader_free(a);
				bt_reader_free(b);
				for (size_t i = 0; i < n; i++) {
					tb_free(&t[i]);
					tb_free(&u[i]);
				}
			}
		}
	}
}

/*
 * The events delivered with actions set aside are those delivered
 * without, less the ones set aside, all fields equal; the statistics,
 * warnings are the same.  Over one input and a merge of
 * three, in every layout (short paths and general ones), with sequences
 * and without, the mask changed every few events as a sync engine
 * following the reader changes it.
 */
static void test_reader_sets_actions_aside(void **state)
{
	static const uint32_t masks[] = {
		1u << BT_A_QUEUE | 1u << BT_A_ISSUE | 1u << BT_A_COMPLETE,
		~0u,
		1u << BT_A_COMPLETE,
		0,
	};
	uint32_t rnd = 7;

	(void)state;
	for (size_t l = 0; l < 2 * NLAYOUTS; l++) {
		for (size_t n = 1; n <= 3; n += 2) {
			int unseq = l >= NLAYOUTS;
			struct tb t[3];
			struct bt_reader *all, *some;
			struct bt_reader_stats sa, ss;
			struct bt_event e, f;
			char b1[256], b2[256];
			size_t k = 0, delivered = 0, aside = 0;
			uint32_t mask = masks[0], qcats = ~0u;
			int rc;

			for (size_t i = 0; i < n; i++)
				build_random(&t[i], layouts[l % NLAYOUTS].flags,
					     layouts[l % NLAYOUTS].ctx,
					     (unsigned)i, unseq, &rnd);
			all = open_random(t, n);
			some = open_random(t, n);
			bt_reader_set_actions(some, mask);
			while ((rc = bt_reader_next(all, &e)) == 1) {
				if (!bt_event_is_note(&e) &&
				    (!(mask >> e.action & 1) ||
				     (e.action == BT_A_QUEUE && qcats != ~0u &&
				      !(e.category & qcats)))) {
					aside++;
					continue;
				}
				assert_int_equal(bt_reader_next(some, &f), 1);
				assert_same_event(&e, &f);
				if (++delivered % 17 == 0) {
					mask = masks[++k % 4];
					bt_reader_set_actions(some, mask);
					/* Now and then writes' Qs only, as sync. */
					qcats = ~0u;
					if (k % 8 == 4) {
						qcats = BT_TC_WRITE;
						assert_int_equal(bt_reader_set_action(
							some, BT_A_QUEUE, qcats), 0);
					}
				}
			}
			assert_int_equal(rc, 0);
			assert_int_equal(bt_reader_next(some, &f), 0);
			assert_true(aside > 50);
			bt_reader_get_stats(all, &sa);
			bt_reader_get_stats(some, &ss);
			assert_memory_equal(&sa, &ss, sizeof(sa));
			assert_true(sa.duplicates > 0 && sa.backwards > 0 &&
				    (unseq || sa.gaps > 0));
			for (size_t i = 0;; i++) {
				const char *w1 = bt_reader_warning(all, i, b1,
								   sizeof(b1));
				const char *w2 = bt_reader_warning(some, i, b2,
								   sizeof(b2));

				if (!w1 || !w2) {
					assert_true(!w1 && !w2);
					break;
				}
				assert_string_equal(w1, w2);
			}
			bt_reader_free(all);
			bt_reader_free(some);
			for (size_t i = 0; i < n; i++)
				tb_free(&t[i]);
		}
	}
}

/* The newest time and the actions of what was set aside. */
static void test_reader_notes_what_is_set_aside(void **state)
{
	struct tb t;
	struct bt_event e;
	struct bt_reader *r;

	(void)state;
	tb_init(&t, 0, 0);
	e = tb_ev(100, 1, BT_A_QUEUE, BT_TC_WRITE, 4096);
	tb_add(&t, &e);
	e = tb_ev(900, 2, BT_A_BACKMERGE, BT_TC_WRITE, 4096);
	tb_add(&t, &e);
	e = tb_ev(500, 3, BT_A_COMPLETE, BT_TC_WRITE, 8192);
	tb_add(&t, &e);
	assert_int_equal(bt_reader_new(&r), 0);
	assert_int_equal(bt_reader_add_mem(r, t.buf, t.len, "n.bin"), 0);
	assert_int_equal(bt_reader_aside_time(r), 0);
	bt_reader_set_actions(r, 1u << BT_A_QUEUE | 1u << BT_A_COMPLETE);
	assert_int_equal(bt_reader_next(r, &e), 1);
	assert_int_equal(e.action, BT_A_QUEUE);
	assert_int_equal(bt_reader_aside_time(r), 0);
	assert_int_equal(bt_reader_next(r, &e), 1);
	assert_int_equal(e.action, BT_A_COMPLETE);
	assert_int_equal(bt_reader_aside_time(r), 900);	/* the M's */
	assert_int_equal(bt_reader_next(r, &e), 0);
	assert_int_equal(bt_reader_aside_actions(r), 1u << BT_A_BACKMERGE);
	assert_int_equal(bt_reader_set_action(r, 32, 0), -EINVAL);
	bt_reader_free(r);
	tb_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_every_layout_and_byte_order),
		cmocka_unit_test(test_reader_swaps_big_endian),
		cmocka_unit_test(test_reader_reads_hand_written_big_endian),
		cmocka_unit_test(test_reader_wide_detection_with_odd_cpu),
		cmocka_unit_test(test_reader_single_record_each_layout),
		cmocka_unit_test(test_reader_cgroup_id_stripped),
		cmocka_unit_test(test_reader_timestamp_note_in_host_order),
		cmocka_unit_test(test_reader_comm_known_at_parse_time),
		cmocka_unit_test(test_reader_comm_many_pids),
		cmocka_unit_test(test_reader_merges_by_time),
		cmocka_unit_test(test_reader_warnings_name_first_record),
		cmocka_unit_test(test_reader_counts_time_going_backwards),
		cmocka_unit_test(test_reader_empty_mem_is_empty_trace),
		cmocka_unit_test(test_reader_names_and_add_after_start),
		cmocka_unit_test(test_reader_short_paths_match_general),
		cmocka_unit_test(test_reader_sets_actions_aside),
		cmocka_unit_test(test_reader_notes_what_is_set_aside),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
