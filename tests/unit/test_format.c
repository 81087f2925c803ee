// SPDX-License-Identifier: MIT
/*
 * test_format.c - the blkparse line of each kind of event, built in
 * memory.  Every expected line below was printed by Debian's blkparse
 * 1.2.0 (`blkparse -q -i -`) for the same record, except the cgroup cases,
 * which follow blkparse 1.3.0's format strings, and the zone cases of
 * version 8, which follow the format strings of blkparse's v8 series
 * (linux-block, November 2025; see btkit-format(5) "Zoned devices
 * (version 8)").
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
#include "event_fixture.h"

#define DEV_8_16	BT_DEV_MAKE(8, 16)

/* mk()'s event at time 0 on 8,16, with a cpu and a sequence number. */
static struct bt_event ev(uint32_t action, uint32_t category, uint32_t cpu,
			  uint32_t seq, uint32_t pid, uint64_t sector,
			  uint32_t bytes)
{
	struct bt_event e = mk(action, category, 0, DEV_8_16, sector, bytes,
			       pid);

	e.cpu = cpu;
	e.sequence = seq;
	return e;
}

/* Format e and compare with want ("" when blkparse prints nothing). */
static void check(const struct bt_event *e, uint64_t rel, const char *comm,
		  unsigned flags, const char *want)
{
	size_t bound = bt_format_bound(e);
	char *buf = malloc(bound + 1);
	size_t n;

	assert_non_null(buf);
	n = bt_format_line(buf, e, rel, comm, flags);
	assert_true(n <= bound);
	buf[n] = '\0';
	assert_string_equal(buf, want);
	free(buf);
}

static void be32(unsigned char *p, uint32_t v)
{
	for (int i = 3; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

static void be64(unsigned char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

static void test_format_queue_with_and_without_comm(void **state)
{
	struct bt_event e = ev(BT_A_QUEUE, BT_TC_READ | BT_TC_QUEUE, 0, 3, 99,
			       123456789, 4096);

	(void)state;
	check(&e, 2000, NULL, 0,
	      "  8,16   0        3     0.000002000    99  Q   R 123456789 + 8 [(null)]\n");
	e.category |= BT_TC_AHEAD | BT_TC_META;
	check(&e, 232052, "fio", 0,
	      "  8,16   0        3     0.000232052    99  Q RAM 123456789 + 8 [fio]\n");
	assert_int_equal(bt_format_kind(&e, 0), 1);
	/* A name longer than a task's (16 bytes) is cut: the bound holds. */
	check(&e, 0, "abcdefghijklmnopqrstuvwxyz", 0,
	      "  8,16   0        3     0.000000000    99  Q RAM 123456789 + 8 [abcdefghijklmnop]\n");
}

static void test_format_zero_bytes_drop_the_range(void **state)
{
	struct bt_event d = ev(BT_A_ISSUE, BT_TC_READ, 0, 9, 101, 864197523, 0);
	struct bt_event c = ev(BT_A_COMPLETE, BT_TC_READ, 1, 9, 102, 987654312, 0);
	struct bt_event m = ev(BT_A_BACKMERGE, BT_TC_READ, 1, 3, 100, 5, 256);

	(void)state;
	check(&d, 24066, "abcdefghijklmno", 0,
	      "  8,16   0        9     0.000024066   101  D   N [abcdefghijklmno]\n");
	check(&c, 28091, NULL, 0,
	      "  8,16   1        9     0.000028091   102  C   N 987654312 [0]\n");
	/* bytes below one sector count as none: "+ 0" is never printed. */
	check(&m, 1, NULL, 0,
	      "  8,16   1        3     0.000000001   100  M   R [(null)]\n");
}

/*
 * Task names of every length from 0 to past 16 (the copy goes by length
 * class: 1-3, 4-7, 8-16 bytes), and the C and M lines of the same
 * request: the bracket holds the error for one, the name for the other.
 */
static void test_format_task_names_of_every_length(void **state)
{
	static const char abc[] = "abcdefghijklmnopqrstu";
	struct bt_event m = ev(BT_A_BACKMERGE, BT_TC_WRITE, 2, 7, 4321,
			       2048, 8192);
	struct bt_event c = ev(BT_A_COMPLETE, BT_TC_WRITE, 2, 8, 0, 2048,
			       8192);
	char want[128], name[32];

	(void)state;
	for (size_t n = 0; n < sizeof(abc); n++) {
		memcpy(name, abc, n);
		name[n] = '\0';
		snprintf(want, sizeof(want),
			 "  8,16   2        7     0.000000005  4321  M   W 2048 + 16 [%.16s]\n",
			 name);
		check(&m, 5, name, 0, want);
		check(&c, 6, name, 0,
		      "  8,16   2        8     0.000000006     0  C   W 2048 + 16 [0]\n");
	}
}

static void test_format_complete_error_is_unsigned(void **state)
{
	struct bt_event c = ev(BT_A_COMPLETE, BT_TC_WRITE | BT_TC_COMPLETE, 1,
			       11, 102, 987654312, 32768);

	(void)state;
	c.error = 65531;	/* -EIO */
	check(&c, 30105, NULL, 0,
	      "  8,16   1       11     0.000030105   102  C   W 987654312 + 64 [65531]\n");
}

static void test_format_remap_names_target_device(void **state)
{
	unsigned char pdu[16];
	struct bt_event a = ev(BT_A_REMAP, BT_TC_READ, 2, 19, 101, 1851851835,
			       61440);

	(void)state;
	be32(pdu, BT_DEV_MAKE(8, 17));
	be32(pdu + 4, BT_DEV_MAKE(259, 0));
	be64(pdu + 8, 2048);
	a.pdu = pdu;
	a.pdu_len = sizeof(pdu);
	check(&a, 58406, NULL, 0,
	      "259,0    2       19     0.000058406   101  A   R 1851851835 + 120 <- (8,17) 2048\n");
	a.bytes = 0;	/* remaps keep "+ 0" */
	check(&a, 58406, NULL, 0,
	      "259,0    2       19     0.000058406   101  A   N 1851851835 + 0 <- (8,17) 2048\n");
}

static void test_format_split_and_unplugs(void **state)
{
	unsigned char pdu[8];
	struct bt_event x = ev(BT_A_SPLIT, BT_TC_READ, 0, 19, 99, 1604938257,
			       53248);
	struct bt_event u = ev(BT_A_UNPLUG_IO, BT_TC_READ, 0, 13, 100, 0, 0);
	struct bt_event ut = ev(BT_A_UNPLUG_TIMER, BT_TC_WRITE, 1, 39, 101,
				0, 0);

	(void)state;
	be64(pdu, 89);
	x.pdu = u.pdu = ut.pdu = pdu;
	x.pdu_len = u.pdu_len = ut.pdu_len = 8;
	check(&x, 50300, NULL, 0,
	      "  8,16   0       19     0.000050300    99  X   R 1604938257 / 89 [(null)]\n");
	be64(pdu, 86);
	check(&u, 36153, "fio", 0,
	      "  8,16   0       13     0.000036153   100  U   N [fio] 86\n");
	be64(pdu, 87);
	check(&ut, 118894, "abcdefghijklmno", 0,
	      "  8,16   1       39     0.000118894   101 UT   W [abcdefghijklmno] 87\n");
	/* A short payload prints 0, where blkparse would read past it. */
	u.pdu_len = 4;
	check(&u, 36153, "fio", 0,
	      "  8,16   0       13     0.000036153   100  U   N [fio] 0\n");
}

/*
 * The v8 series prints ZP as P ("[comm]") and ZU as U ("[comm] N"); the
 * kernel gives both the bio's sector and bytes (so rwbs R: opf 0 is a
 * read) but no payload, so ZU's count prints 0 here.
 */
static void test_format_zone_plug_and_unplug(void **state)
{
	unsigned char pdu[8];
	struct bt_event zp = ev(BT_A_ZONE_PLUG, BT_TC_QUEUE | BT_TC_READ, 3,
				41, 2201, 524288, 65536);
	struct bt_event zu = ev(BT_A_ZONE_UNPLUG, BT_TC_QUEUE | BT_TC_READ, 3,
				42, 2201, 524288, 65536);

	(void)state;
	zp.version = zu.version = 8;
	check(&zp, 1000000001, "fio", 0,
	      "  8,16   3       41     1.000000001  2201 ZP   R [fio]\n");
	check(&zu, 1000000002, "fio", 0,
	      "  8,16   3       42     1.000000002  2201 ZU   R [fio] 0\n");
	be64(pdu, 3);
	zu.pdu = pdu;
	zu.pdu_len = 8;
	check(&zu, 1000000002, NULL, 0,
	      "  8,16   3       42     1.000000002  2201 ZU   R [(null)] 3\n");
	/* 1.2.0 knows neither: "Bad fs action", no line. */
	assert_int_equal(bt_format_kind(&zp, 0), 1);
	assert_int_equal(bt_format_kind(&zp, BT_FMT_V120), -1);
	assert_int_equal(bt_format_kind(&zu, BT_FMT_V120), -1);
	check(&zu, 0, "fio", BT_FMT_V120, "");
	/* Version-7 records cannot have them: what blkparse always said. */
	zu.version = 7;
	assert_int_equal(bt_format_kind(&zu, 0), -1);
	zu.version = 8;
	/* Nor does the v8 series handle them for PC requests. */
	zp.category |= BT_TC_PC;
	assert_int_equal(bt_format_kind(&zp, 0), -1);
	/* ZU's count in the CSV detail column, as for U. */
	{
		char buf[64];
		size_t n = bt_format_detail(buf, &zu);

		buf[n] = '\0';
		assert_string_equal(buf, "3");
	}
}

/*
 * Zone management commands are ordinary requests without data: their
 * lines drop "SECTOR + N" like any 0-byte event and C keeps the sector.
 * A zone append's C names the sector the device wrote.
 */
static void test_format_zone_operations(void **state)
{
	struct bt_event q = ev(BT_A_QUEUE, BT_TC_QUEUE | BT_TC_WRITE |
			       BT_TC_SYNC | BT_TC_ZONE_RESET, 0, 7, 2202,
			       1048576, 0);
	struct bt_event c = ev(BT_A_COMPLETE, BT_TC_COMPLETE | BT_TC_FS |
			       BT_TC_WRITE | BT_TC_ZONE_RESET, 0, 9, 0,
			       1048576, 0);
	struct bt_event d = ev(BT_A_ISSUE, BT_TC_ISSUE | BT_TC_FS |
			       BT_TC_ZONE_RESET_ALL | BT_TC_WRITE | BT_TC_SYNC,
			       1, 3, 2203, 0, 0);
	struct bt_event za = ev(BT_A_COMPLETE, BT_TC_COMPLETE | BT_TC_FS |
				BT_TC_WRITE | BT_TC_ZONE_APPEND, 2, 12, 0,
				524296, 4096);

	(void)state;
	check(&q, 5000, "blkzone", 0,
	      "  8,16   0        7     0.000005000  2202  Q ZRS [blkzone]\n");
	check(&c, 9000, NULL, 0,
	      "  8,16   0        9     0.000009000     0  C  ZR 1048576 [0]\n");
	check(&d, 6000, "blkzone", 0,
	      "  8,16   1        3     0.000006000  2203  D ZRAS [blkzone]\n");
	check(&za, 12000, NULL, 0,
	      "  8,16   2       12     0.000012000     0  C  ZA 524296 + 8 [0]\n");
	d.category = BT_TC_ISSUE | BT_TC_FS | BT_TC_ZONE_FINISH;
	check(&d, 6000, "zonefs", 0,
	      "  8,16   1        3     0.000006000  2203  D  ZF [zonefs]\n");
	d.category = BT_TC_ISSUE | BT_TC_FS | BT_TC_ZONE_OPEN;
	check(&d, 6000, "zonefs", 0,
	      "  8,16   1        3     0.000006000  2203  D  ZO [zonefs]\n");
	d.category = BT_TC_ISSUE | BT_TC_FS | BT_TC_WRITE | BT_TC_ZONE_CLOSE;
	check(&d, 6000, "zonefs", 0,
	      "  8,16   1        3     0.000006000  2203  D  ZC [zonefs]\n");
}

static void test_format_pc_dumps_command_bytes(void **state)
{
	unsigned char cdb[16] = { 0x28, 0, 0x12, 0, 0, 0xff };
	struct bt_event c = ev(BT_A_COMPLETE, BT_TC_READ | BT_TC_PC, 1, 10,
			       102, 0, 0);
	struct bt_event i = ev(BT_A_INSERT, BT_TC_READ | BT_TC_PC, 2, 16,
			       102, 0, 49152);
	struct bt_event q = ev(BT_A_QUEUE, BT_TC_READ | BT_TC_PC, 0, 4, 99,
			       0, 4096);

	(void)state;
	c.pdu = i.pdu = q.pdu = cdb;
	c.pdu_len = i.pdu_len = q.pdu_len = sizeof(cdb);
	check(&c, 29098, NULL, 0,
	      "  8,16   1       10     0.000029098   102  C   N (28 00 12 00 00 ff 00 ..) [0]\n");
	check(&i, 47264, NULL, 0,
	      "  8,16   2       16     0.000047264   102  I   R 49152 (28 00 12 00 00 ff 00 ..) [(null)]\n");
	/* blkparse dumps no payload for a PC queue event. */
	check(&q, 3000, NULL, 0,
	      "  8,16   0        4     0.000003000    99  Q   R 4096 [(null)]\n");
	/* Merges, plugs, remaps... of PC requests: "Bad pc action". */
	q.action = BT_A_BACKMERGE;
	assert_int_equal(bt_format_kind(&q, 0), -1);
	check(&q, 3000, NULL, 0, "");
}

static void test_format_messages_print_pid_zero(void **state)
{
	struct bt_event m = ev(BT_N_MESSAGE, BT_TC_NOTIFY, 1, 0, 55, 0, 0);
	const char nul[] = "msg\0with nul";

	(void)state;
	m.pdu = (const unsigned char *)"cfq100 add_to_rr";
	m.pdu_len = 16;
	check(&m, 612972, NULL, 0,
	      "  8,16   1        0     0.000612972     0  m   N cfq100 add_to_rr\n");
	m.pdu = (const unsigned char *)nul;
	m.pdu_len = sizeof(nul) - 1;
	check(&m, 613472, NULL, 0,
	      "  8,16   1        0     0.000613472     0  m   N msg\n");
	m.pdu_len = 0;	/* an empty message prints nothing */
	assert_int_equal(bt_format_kind(&m, 0), 0);
	check(&m, 1, NULL, 0, "");
}

static void test_format_cgroup_records_follow_1_3(void **state)
{
	struct bt_event m = ev(BT_N_MESSAGE, BT_TC_NOTIFY, 1, 0, 55, 0, 0);
	struct bt_event q = ev(BT_A_QUEUE, BT_TC_READ | BT_TC_QUEUE, 0, 225,
			       100, 8, 4096);

	(void)state;
	m.has_cgroup = 1;
	m.cgroup = 1;
	m.pdu = (const unsigned char *)"bfq100S add to busy";
	m.pdu_len = 19;
	check(&m, 614472, NULL, 0,
	      "  8,16   1        0     0.000614472    55 1,0  m   N bfq100S add to busy\n");
	m.cgroup = 0x0001234500000abcull;
	check(&m, 614472, NULL, 0,
	      "  8,16   1        0     0.000614472    55 abc,12345  m   N bfq100S add to busy\n");
	check(&m, 614472, NULL, BT_FMT_V120, "");
	assert_int_equal(bt_format_kind(&m, BT_FMT_V120), 0);

	q.has_cgroup = 1;
	q.cgroup = 77;
	check(&q, 615472, "fio", 0,
	      "  8,16   0      225     0.000615472   100  Q   R 8 + 8 [fio]\n");
	/* 1.2.0: "Bad fs action 110101" and no line. */
	assert_int_equal(bt_format_kind(&q, BT_FMT_V120), -1);
	check(&q, 615472, "fio", BT_FMT_V120, "");
}

static void test_format_wide_fields_and_wrapped_time(void **state)
{
	struct bt_event d = ev(BT_A_ISSUE, BT_TC_WRITE, 3, 3000000000u,
			       4000000000u, UINT64_MAX, 512);

	(void)state;
	d.dev = BT_DEV_MAKE(4095u, 1048575u);
	check(&d, 615972, NULL, 0,
	      "4095,1048575  3 -1294967296     0.000615972 4000000000  D   W 18446744073709551615 + 1 [(null)]\n");
	/* An event before the origin wraps like blkparse's unsigned time. */
	d = ev(BT_A_ISSUE, BT_TC_WRITE, 0, 1, 1, 0, 0);
	check(&d, (uint64_t)0 - 1, NULL, 0,
	      "  8,16   0        1 1266874889.709551615     1  D   W [(null)]\n");
}

/*
 * Every number of a line at the edges of its width and of the digit
 * conversion (one, two and eight digits at a time, 10^8 and 10^16
 * splits), against printf with blkparse's own format strings.
 */
static void test_format_numbers_match_printf(void **state)
{
	static const uint64_t edges[] = {
		0, 1, 9, 10, 99, 100, 999, 1000, 9999, 10000, 99999, 100000,
		9999999, 10000000, 99999999, 100000000, 999999999,
		1000000000, 4294967295ull, 4294969344ull, 9999999999ull,
		10000000000ull, 9999999999999999ull, 10000000000000000ull,
		UINT64_MAX,
	};
	const size_t n = sizeof(edges) / sizeof(edges[0]);
	char want[320];

	(void)state;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++) {
			uint64_t a = edges[i], b = edges[(i + j) % n];
			uint32_t maj = (uint32_t)(a % 4096), min = (uint32_t)(b % 1048576);
			uint32_t cpu = (uint32_t)b, seq = (uint32_t)a;
			uint32_t pid = (uint32_t)(b >> (j % 33));
			uint32_t bytes = (uint32_t)(a << 9);
			uint64_t rel = a * 7 + b;
			struct bt_event e = ev(BT_A_QUEUE, BT_TC_READ, cpu, seq,
					       pid, b, bytes);

			e.dev = BT_DEV_MAKE(maj, min);
			if (bytes >> 9)
				snprintf(want, sizeof(want),
					 "%3d,%-3d %2d %8d %5d.%09lu %5u  Q   R %llu + %u [x]\n",
					 (int)maj, (int)min, (int)cpu, (int)seq,
					 (int)(rel / 1000000000),
					 (unsigned long)(rel % 1000000000), pid,
					 (unsigned long long)b, bytes >> 9);
			else
				snprintf(want, sizeof(want),
					 "%3d,%-3d %2d %8d %5d.%09lu %5u  Q   N [x]\n",
					 (int)maj, (int)min, (int)cpu, (int)seq,
					 (int)(rel / 1000000000),
					 (unsigned long)(rel % 1000000000), pid);
			check(&e, rel, "x", 0, want);
		}
	}
}

static void test_format_skips_what_blkparse_skips(void **state)
{
	struct bt_event e = ev(BT_A_ABORT, BT_TC_READ, 0, 1, 1, 0, 0);

	(void)state;
	assert_int_equal(bt_format_kind(&e, 0), -1);	/* Bad fs action */
	e.action = BT_A_DRV_DATA;
	assert_int_equal(bt_format_kind(&e, 0), 0);	/* binary output only */
	e.action = BT_A_QUEUE;
	e.category = 0;		/* outside blkparse's category mask */
	assert_int_equal(bt_format_kind(&e, 0), 0);
	check(&e, 0, NULL, 0, "");
	e = ev(BT_N_PROCESS, BT_TC_NOTIFY, 0, 0, 1, 0, 0);
	assert_int_equal(bt_format_kind(&e, 0), 0);
	e = ev(40, BT_TC_READ, 0, 1, 1, 0, 0);
	assert_int_equal(bt_format_kind(&e, 0), -1);
}

static void test_format_flush_and_fua_rwbs(void **state)
{
	struct bt_event e = ev(BT_A_QUEUE, BT_TC_FLUSH | BT_TC_WRITE |
			       BT_TC_FUA | BT_TC_SYNC | BT_TC_QUEUE, 0, 1,
			       7, 64, 4096);

	(void)state;
	check(&e, 0, "jbd2/sda1-8", 0,
	      "  8,16   0        1     0.000000000     7  Q FWFS 64 + 8 [jbd2/sda1-8]\n");
	e = ev(BT_A_ISSUE, BT_TC_FLUSH, 0, 2, 7, 0, 0);
	check(&e, 0, NULL, 0,
	      "  8,16   0        2     0.000000000     7  D  FN [(null)]\n");
}

static void test_format_detail_for_csv(void **state)
{
	unsigned char pdu[16];
	char buf[512];
	struct bt_event a = ev(BT_A_REMAP, BT_TC_READ, 0, 1, 1, 10, 4096);
	struct bt_event m = ev(BT_N_MESSAGE, BT_TC_NOTIFY, 0, 0, 1, 0, 0);
	struct bt_event q = ev(BT_A_QUEUE, BT_TC_READ, 0, 1, 1, 10, 4096);
	size_t n;

	(void)state;
	be32(pdu, BT_DEV_MAKE(259, 3));
	be32(pdu + 4, BT_DEV_MAKE(259, 0));
	be64(pdu + 8, 2345510680u);
	a.pdu = pdu;
	a.pdu_len = 16;
	n = bt_format_detail(buf, &a);
	buf[n] = '\0';
	assert_string_equal(buf, "<- (259,3) 2345510680");
	a.action = BT_A_SPLIT;
	be64(pdu, 4096);
	n = bt_format_detail(buf, &a);
	buf[n] = '\0';
	assert_string_equal(buf, "/ 4096");
	m.pdu = (const unsigned char *)"elv switch: bfq";
	m.pdu_len = 15;
	n = bt_format_detail(buf, &m);
	buf[n] = '\0';
	assert_string_equal(buf, "elv switch: bfq");
	assert_int_equal(bt_format_detail(buf, &q), 0);
}

static void test_format_bound_holds_largest_dump(void **state)
{
	struct bt_event c = ev(BT_A_COMPLETE, BT_TC_READ | BT_TC_PC, 1, 10,
			       102, 0, 0);
	const char *head = "  8,16   1       10     0.000000000   102  C   N (ab ab";
	const char *tail = ") [65535]\n";
	unsigned char *cdb = malloc(65535);
	char *buf;
	size_t n;

	(void)state;
	assert_non_null(cdb);
	memset(cdb, 0xab, 65535);
	c.pdu = cdb;
	c.pdu_len = 65535;
	c.error = 65535;
	buf = malloc(bt_format_bound(&c));
	assert_non_null(buf);
	n = bt_format_line(buf, &c, 0, NULL, 0);
	assert_true(n <= bt_format_bound(&c));
	/* Header, "(" + 65535 "ab" joined by spaces + ") [65535]\n". */
	assert_int_equal(n, strlen(head) - 5 + 3 * 65535 - 1 + strlen(tail));
	assert_memory_equal(buf, head, strlen(head));
	assert_memory_equal(buf + n - strlen(tail) - 5, "ab ab) [65535]\n",
			    strlen(tail) + 5);
	free(buf);
	free(cdb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_queue_with_and_without_comm),
		cmocka_unit_test(test_format_zero_bytes_drop_the_range),
		cmocka_unit_test(test_format_task_names_of_every_length),
		cmocka_unit_test(test_format_complete_error_is_unsigned),
		cmocka_unit_test(test_format_remap_names_target_device),
		cmocka_unit_test(test_format_split_and_unplugs),
		cmocka_unit_test(test_format_zone_plug_and_unplug),
		cmocka_unit_test(test_format_zone_operations),
		cmocka_unit_test(test_format_pc_dumps_command_bytes),
		cmocka_unit_test(test_format_messages_print_pid_zero),
		cmocka_unit_test(test_format_cgroup_records_follow_1_3),
		cmocka_unit_test(test_format_wide_fields_and_wrapped_time),
		cmocka_unit_test(test_format_numbers_match_printf),
		cmocka_unit_test(test_format_skips_what_blkparse_skips),
		cmocka_unit_test(test_format_flush_and_fua_rwbs),
		cmocka_unit_test(test_format_detail_for_csv),
		cmocka_unit_test(test_format_bound_holds_largest_dump),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
