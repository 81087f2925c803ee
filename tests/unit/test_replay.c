// SPDX-License-Identifier: MIT
/*
 * test_replay.c - the replay engine: what loading keeps (one list per pid,
 * the most I/Os each had in flight, split remainders not replayed twice,
 * D requests owned by the pid of their first bio, flush requests by the
 * pid of the flush bio, a partition's start from its remaps, -p), and a
 * run onto a temporary file: offsets land where the trace says, I/O
 * over 1 MiB goes in pieces, a discard punches a hole, results
 * per pid, the absolute schedule holds I/O back, an I/O due while its
 * process's depth is in flight counts as held and its engine lag from the
 * completion that let it go, stop before the start issues nothing, what the writes touch saved and
 * written back.  Also the legacy scheduler names of lib/blkdev.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "btkit.h"
#include "event_fixture.h"

#define DEV	BT_DEV_MAKE(8, 0)
#define PART	BT_DEV_MAKE(8, 1)
#define MS	1000000ull

/* mk()'s event on DEV at t ns. */
static struct bt_event ev(uint64_t t, uint32_t act, uint32_t cat, uint32_t pid,
			  uint64_t sector, uint32_t bytes)
{
	struct bt_event e = mk(act, cat, 0, DEV, sector, bytes, pid);

	e.time = t;
	return e;
}

static void feed(struct bt_replay *rp, struct bt_event e)
{
	assert_int_equal(bt_replay_feed(rp, &e), 0);
}

static struct bt_replay *new_rp(int from_d)
{
	struct bt_replay_conf c = { 0 };
	struct bt_replay *rp;

	c.from_d = (uint8_t)from_d;
	assert_int_equal(bt_replay_new(&rp, &c), 0);
	return rp;
}

/* Run onto a fresh temporary file; skip where io_uring is not allowed. */
static int run_on_file(struct bt_replay *rp, int no_stall, double speed)
{
	char path[] = "/tmp/test_replay.XXXXXX";
	struct bt_replay_opts o = { speed, no_stall };
	int fd = mkstemp(path), rc;

	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(ftruncate(fd, 1 << 20), 0);
	for (size_t i = 0; i < bt_replay_ndevs(rp); i++)
		assert_int_equal(bt_replay_target(rp, i, fd, 0), 0);
	rc = bt_replay_run(rp, &o);
	if (rc == -ENOSYS || rc == -EPERM) {
		close(fd);
		skip();
	}
	assert_int_equal(rc, 0);
	return fd;
}

static void test_replay_depth_from_completions(void **state)
{
	struct bt_replay *rp = new_rp(0);
	struct bt_replay_proc p;
	(void)state;

	/* pid 10: three reads in flight at once; pid 20: one at a time. */
	feed(rp, ev(1 * MS, BT_A_QUEUE, BT_TC_READ, 10, 0, 4096));
	feed(rp, ev(1 * MS, BT_A_QUEUE, BT_TC_READ, 10, 8, 4096));
	feed(rp, ev(1 * MS, BT_A_QUEUE, BT_TC_READ, 10, 16, 4096));
	feed(rp, ev(2 * MS, BT_A_QUEUE, BT_TC_READ, 20, 100, 4096));
	/* One request of two merged bios completes both. */
	feed(rp, ev(3 * MS, BT_A_COMPLETE, BT_TC_READ, 0, 0, 8192));
	feed(rp, ev(3 * MS, BT_A_COMPLETE, BT_TC_READ, 0, 100, 4096));
	feed(rp, ev(4 * MS, BT_A_QUEUE, BT_TC_READ, 20, 200, 4096));
	feed(rp, ev(4 * MS, BT_A_QUEUE, BT_TC_READ, 10, 24, 4096));
	assert_int_equal(bt_replay_loaded(rp), 6);
	assert_int_equal(bt_replay_nprocs(rp), 2);
	close(run_on_file(rp, 1, 1.0));
	bt_replay_proc_get(rp, 0, &p);
	assert_int_equal(p.pid, 10);
	assert_int_equal(p.depth, 3);
	assert_int_equal(p.ios, 4);
	assert_int_equal(p.bytes, 4 * 4096);
	assert_int_equal(p.errors, 0);
	bt_replay_proc_get(rp, 1, &p);
	assert_int_equal(p.pid, 20);
	assert_int_equal(p.depth, 1);
	bt_replay_proc_get(rp, 2, &p);
	assert_int_equal(p.pid, 0);
	assert_int_equal(p.ios, 6);
	bt_replay_free(rp);
}

static void test_replay_split_remainder_not_replayed(void **state)
{
	struct bt_replay *rp = new_rp(0);
	struct bt_replay_proc p;
	struct bt_event x = ev(1 * MS, BT_A_SPLIT, BT_TC_WRITE, 7, 1000, 1 << 20);
	unsigned char pdu[8] = { 0, 0, 0, 0, 0, 0, 0x05, 0xe8 };	/* be64 1512 */
	(void)state;

	x.pdu = pdu;
	x.pdu_len = sizeof(pdu);
	feed(rp, ev(1 * MS, BT_A_QUEUE, BT_TC_WRITE, 7, 1000, 1 << 20));
	feed(rp, x);
	/* The kernel queues the second piece (its 768 KiB) again: not new I/O. */
	feed(rp, ev(1 * MS, BT_A_QUEUE, BT_TC_WRITE, 7, 1512, (1 << 20) - 512 * 512));
	feed(rp, ev(2 * MS, BT_A_QUEUE, BT_TC_WRITE, 7, 1512, 4096));
	assert_int_equal(bt_replay_loaded(rp), 2);
	close(run_on_file(rp, 1, 1.0));
	bt_replay_proc_get(rp, 0, &p);
	assert_int_equal(p.bytes, (1 << 20) + 4096);
	bt_replay_free(rp);
}

static void test_replay_d_owner_is_first_bio(void **state)
{
	struct bt_replay *rp = new_rp(1);
	struct bt_replay_dev d;
	struct bt_replay_proc p;
	(void)state;

	/* pid 5's two bios merge into one request that kworker 99 dispatches. */
	feed(rp, ev(1 * MS, BT_A_QUEUE, BT_TC_WRITE | BT_TC_SYNC, 5, 64, 4096));
	feed(rp, ev(1 * MS, BT_A_QUEUE, BT_TC_WRITE | BT_TC_SYNC, 5, 72, 4096));
	feed(rp, ev(1 * MS, BT_A_BACKMERGE, BT_TC_WRITE | BT_TC_SYNC, 5, 72, 4096));
	feed(rp, ev(2 * MS, BT_A_ISSUE, BT_TC_WRITE | BT_TC_SYNC | BT_TC_ISSUE,
		    99, 64, 8192));
	/* pid 6's empty preflush: the flush request (no Q) is pid 6's. */
	feed(rp, ev(3 * MS, BT_A_QUEUE, BT_TC_WRITE | BT_TC_FLUSH | BT_TC_SYNC,
		    6, 0, 0));
	feed(rp, ev(4 * MS, BT_A_ISSUE, BT_TC_FLUSH | BT_TC_ISSUE, 99, 0, 0));
	assert_int_equal(bt_replay_loaded(rp), 2);
	assert_int_equal(bt_replay_nprocs(rp), 2);
	bt_replay_dev_get(rp, 0, &d);
	assert_int_equal(d.writes, 1);
	assert_int_equal(d.flushes, 1);
	close(run_on_file(rp, 1, 1.0));
	bt_replay_proc_get(rp, 0, &p);
	assert_int_equal(p.pid, 5);
	assert_int_equal(p.bytes, 8192);
	bt_replay_proc_get(rp, 1, &p);
	assert_int_equal(p.pid, 6);
	assert_int_equal(p.ios, 1);
	assert_int_equal(p.errors, 0);
	bt_replay_free(rp);
}

/*
 * A request sent back (R) and dispatched again is one I/O of its owner,
 * not a second one of the kworker that dispatched it again.
 */
static void test_replay_requeued_request_replayed_once(void **state)
{
	struct bt_replay *rp = new_rp(1);
	const uint32_t w = BT_TC_WRITE | BT_TC_SYNC;
	(void)state;

	feed(rp, ev(1 * MS, BT_A_QUEUE, w, 200, 6000, 4096));
	feed(rp, ev(1 * MS, BT_A_GETRQ, w, 200, 6000, 4096));
	feed(rp, ev(1 * MS, BT_A_INSERT, w, 200, 6000, 4096));
	feed(rp, ev(2 * MS, BT_A_ISSUE, w | BT_TC_ISSUE, 300, 6000, 4096));
	feed(rp, ev(3 * MS, BT_A_REQUEUE, w | BT_TC_REQUEUE, 200, 6000, 4096));
	feed(rp, ev(3 * MS, BT_A_INSERT, w, 200, 6000, 4096));
	feed(rp, ev(4 * MS, BT_A_ISSUE, w | BT_TC_ISSUE, 300, 6000, 4096));
	feed(rp, ev(5 * MS, BT_A_COMPLETE, w | BT_TC_COMPLETE, 0, 6000, 4096));
	assert_int_equal(bt_replay_loaded(rp), 1);
	assert_int_equal(bt_replay_nprocs(rp), 1);
	assert_int_equal(bt_replay_proc_pid(rp, 0), 200);
	bt_replay_free(rp);
}

/*
 * pid 2's bio merged into pid 1's request completes with it: pid 2 has
 * nothing in flight afterwards, so its next bios count from zero.
 */
static void test_replay_merged_bio_completes_with_its_request(void **state)
{
	struct bt_replay *rp = new_rp(0);
	struct bt_replay_proc p;
	(void)state;

	feed(rp, ev(1 * MS, BT_A_QUEUE, BT_TC_READ, 1, 0, 4096));
	feed(rp, ev(1 * MS, BT_A_GETRQ, BT_TC_READ, 1, 0, 4096));
	feed(rp, ev(1 * MS, BT_A_QUEUE, BT_TC_READ, 2, 8, 4096));
	feed(rp, ev(1 * MS, BT_A_BACKMERGE, BT_TC_READ, 2, 8, 4096));
	feed(rp, ev(1 * MS, BT_A_INSERT, BT_TC_READ, 1, 0, 8192));
	feed(rp, ev(2 * MS, BT_A_ISSUE, BT_TC_READ | BT_TC_ISSUE, 9, 0, 8192));
	feed(rp, ev(3 * MS, BT_A_COMPLETE, BT_TC_READ | BT_TC_COMPLETE, 0, 0, 8192));
	feed(rp, ev(4 * MS, BT_A_QUEUE, BT_TC_READ, 2, 100, 4096));
	feed(rp, ev(4 * MS, BT_A_QUEUE, BT_TC_READ, 2, 200, 4096));
	assert_int_equal(bt_replay_loaded(rp), 4);
	close(run_on_file(rp, 1, 1.0));
	bt_replay_proc_get(rp, 0, &p);
	assert_int_equal(p.pid, 1);
	assert_int_equal(p.depth, 1);
	bt_replay_proc_get(rp, 1, &p);
	assert_int_equal(p.pid, 2);
	assert_int_equal(p.depth, 2);
	bt_replay_free(rp);
}

static void test_replay_counts_per_device(void **state)
{
	struct bt_replay *rp = new_rp(0);
	struct bt_replay_dev d;
	(void)state;

	feed(rp, ev(1, BT_A_QUEUE, BT_TC_READ, 1, 8, 4096));
	feed(rp, ev(2, BT_A_QUEUE, BT_TC_WRITE | BT_TC_FUA | BT_TC_SYNC, 1, 16, 4096));
	feed(rp, ev(3, BT_A_QUEUE, BT_TC_WRITE | BT_TC_FLUSH | BT_TC_FUA, 1, 24, 4096));
	feed(rp, ev(4, BT_A_QUEUE, BT_TC_WRITE | BT_TC_DISCARD, 1, 2048, 1 << 20));
	feed(rp, ev(5, BT_A_QUEUE, BT_TC_WRITE | BT_TC_FLUSH, 1, 0, 0));
	/* Nothing to replay: a 0-byte bio that is no flush; a note. */
	feed(rp, ev(6, BT_A_QUEUE, BT_TC_READ, 1, 0, 0));
	feed(rp, ev(7, BT_N_PROCESS, BT_TC_NOTIFY, 1, 0, 0));
	assert_int_equal(bt_replay_loaded(rp), 5);
	assert_int_equal(bt_replay_ndevs(rp), 1);
	bt_replay_dev_get(rp, 0, &d);
	assert_int_equal(d.dev, DEV);
	assert_int_equal(d.reads, 1);
	assert_int_equal(d.writes, 2);
	assert_int_equal(d.fua, 2);
	assert_int_equal(d.discards, 1);
	assert_int_equal(d.flushes, 1);
	assert_int_equal(d.extent, 2048 * 512 + (1 << 20));
	bt_replay_free(rp);
}

static void test_replay_partition_base_from_remap(void **state)
{
	struct bt_replay *rp = new_rp(0);
	struct bt_replay_dev d;
	/* be32 from 8,1, be32 to 8,0, be64 partition sector 8 */
	unsigned char pdu[16] = { 0x00, 0x80, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00,
				  0, 0, 0, 0, 0, 0, 0, 8 };
	struct bt_event a = ev(1, BT_A_REMAP, BT_TC_READ, 3, 2048 + 8, 4096);
	struct bt_event q = ev(1, BT_A_QUEUE, BT_TC_READ, 3, 2048 + 8, 4096);
	(void)state;

	/* A trace of the partition: its dev_t on every record. */
	a.dev = q.dev = PART;
	a.pdu = pdu;
	a.pdu_len = sizeof(pdu);
	feed(rp, a);
	feed(rp, q);
	assert_int_equal(bt_replay_loaded(rp), 1);
	bt_replay_dev_get(rp, 0, &d);
	assert_int_equal(d.dev, PART);
	assert_int_equal(d.base, 2048);
	assert_int_equal(d.extent, 8 * 512 + 4096);
	bt_replay_free(rp);
}

static void test_replay_pid_filter(void **state)
{
	struct bt_replay_conf c = { 0 };
	struct bt_replay *rp;
	struct bt_replay_proc p;
	(void)state;

	c.has_pid = 1;
	c.pid = 2;
	assert_int_equal(bt_replay_new(&rp, &c), 0);
	feed(rp, ev(1, BT_A_QUEUE, BT_TC_READ, 1, 0, 4096));
	feed(rp, ev(2, BT_A_QUEUE, BT_TC_READ, 2, 8, 4096));
	feed(rp, ev(3, BT_A_QUEUE, BT_TC_READ, 2, 16, 4096));
	feed(rp, ev(4, BT_A_COMPLETE, BT_TC_READ, 0, 8, 4096));
	assert_int_equal(bt_replay_loaded(rp), 2);
	assert_int_equal(bt_replay_nprocs(rp), 1);
	close(run_on_file(rp, 1, 1.0));
	bt_replay_proc_get(rp, 0, &p);
	assert_int_equal(p.pid, 2);
	assert_int_equal(p.depth, 2);
	bt_replay_free(rp);
}

static void test_replay_writes_land_at_their_offset(void **state)
{
	struct bt_replay *rp = new_rp(0);
	unsigned char buf[4096];
	int fd;
	(void)state;

	feed(rp, ev(1, BT_A_QUEUE, BT_TC_WRITE, 4, 16, 4096));
	feed(rp, ev(2, BT_A_QUEUE, BT_TC_WRITE | BT_TC_FUA, 4, 48, 4096));
	feed(rp, ev(3, BT_A_QUEUE, BT_TC_WRITE | BT_TC_FLUSH, 4, 0, 0));
	assert_int_equal(bt_replay_loaded(rp), 3);
	fd = run_on_file(rp, 0, 1.0);
	assert_int_equal(pread(fd, buf, 4096, 0), 4096);
	assert_int_equal(buf[0], 0);
	assert_int_equal(pread(fd, buf, 4096, 16 * 512), 4096);
	assert_int_equal(buf[0], 0xa5);
	assert_int_equal(buf[4095], 0xa5);
	assert_int_equal(pread(fd, buf, 4096, 32 * 512), 4096);
	assert_int_equal(buf[0], 0);
	assert_int_equal(pread(fd, buf, 4096, 48 * 512), 4096);
	assert_int_equal(buf[0], 0xa5);
	close(fd);
	bt_replay_free(rp);
}

static void test_replay_big_io_in_pieces(void **state)
{
	struct bt_replay *rp = new_rp(0);
	struct bt_replay_proc p;
	unsigned char c;
	uint32_t big = (3u << 20) + 4096;	/* four pieces, the last 4 KiB */
	int fd;
	(void)state;

	/* The read follows the write's completion: it reads what was written. */
	feed(rp, ev(1, BT_A_QUEUE, BT_TC_WRITE, 4, 2048, big));
	feed(rp, ev(2, BT_A_COMPLETE, BT_TC_WRITE, 0, 2048, big));
	feed(rp, ev(3, BT_A_QUEUE, BT_TC_READ, 4, 2048, big));
	assert_int_equal(bt_replay_loaded(rp), 2);
	fd = run_on_file(rp, 1, 1.0);
	bt_replay_proc_get(rp, 0, &p);
	assert_int_equal(p.ios, 2);
	assert_int_equal(p.errors, 0);
	assert_int_equal(p.bytes, 2ull * big);
	assert_int_equal(pread(fd, &c, 1, 2048 * 512 + big - 1), 1);
	assert_int_equal(c, 0xa5);
	assert_int_equal(lseek(fd, 0, SEEK_END), 2048 * 512 + big);
	close(fd);
	bt_replay_free(rp);
}

static void test_replay_discard_punches_a_file(void **state)
{
	struct bt_replay *rp = new_rp(0);
	struct bt_replay_proc p;
	unsigned char c;
	int fd;
	(void)state;

	feed(rp, ev(1, BT_A_QUEUE, BT_TC_WRITE, 4, 0, 65536));
	feed(rp, ev(2, BT_A_COMPLETE, BT_TC_WRITE, 0, 0, 65536));
	feed(rp, ev(3, BT_A_QUEUE, BT_TC_WRITE | BT_TC_DISCARD, 4, 0, 65536));
	assert_int_equal(bt_replay_loaded(rp), 2);
	fd = run_on_file(rp, 0, 1.0);
	bt_replay_proc_get(rp, 0, &p);
	assert_int_equal(p.ios, 2);
	assert_int_equal(p.errors, 0);
	assert_int_equal(pread(fd, &c, 1, 4096), 1);
	assert_int_equal(c, 0);
	close(fd);
	bt_replay_free(rp);
}

/*
 * What a replay writes goes back: writes at sectors 16 (4 KiB) and 20
 * (overlapping: 16..28 in all) and a discard at 64 (4 KiB) over a file
 * of 0x11; the read at 128 is not saved.  Saved: 6 KiB + 4 KiB.
 */
static void test_replay_snap_restores_what_writes_touch(void **state)
{
	char path[] = "/tmp/test_replay_snap.XXXXXX";
	struct bt_replay_opts o = { 1.0, 1 };
	struct bt_replay *rp = new_rp(0);
	struct bt_replay_snap *snap;
	static unsigned char buf[1 << 16];
	int fd = mkstemp(path), rc;
	(void)state;

	assert_true(fd >= 0);
	unlink(path);
	memset(buf, 0x11, sizeof(buf));
	assert_int_equal(pwrite(fd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	feed(rp, ev(1, BT_A_QUEUE, BT_TC_WRITE, 4, 16, 4096));
	feed(rp, ev(2, BT_A_QUEUE, BT_TC_WRITE, 5, 20, 4096));
	feed(rp, ev(3, BT_A_QUEUE, BT_TC_WRITE | BT_TC_DISCARD, 4, 64, 4096));
	feed(rp, ev(4, BT_A_QUEUE, BT_TC_READ, 4, 128, 4096));
	assert_int_equal(bt_replay_loaded(rp), 4);
	assert_int_equal(bt_replay_target(rp, 0, fd, 0), 0);
	assert_int_equal(bt_replay_snap_save(rp, 0, NULL, &snap), 0);
	assert_int_equal(bt_replay_snap_bytes(snap), 6144 + 4096);
	rc = bt_replay_run(rp, &o);
	if (rc == -ENOSYS || rc == -EPERM) {
		bt_replay_snap_free(snap);
		close(fd);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_int_equal(pread(fd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	assert_int_equal(buf[16 * 512], 0xa5);
	assert_int_equal(buf[28 * 512 - 1], 0xa5);
	assert_int_equal(buf[64 * 512], 0);
	assert_int_equal(bt_replay_snap_restore(snap), 0);
	assert_int_equal(pread(fd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	for (size_t i = 0; i < sizeof(buf); i++)
		if (buf[i] != 0x11)
			fail_msg("byte %zu is 0x%02x after the restore", i, buf[i]);
	bt_replay_snap_free(snap);
	close(fd);
	bt_replay_free(rp);
}

static void test_replay_failed_io_counted(void **state)
{
	struct bt_replay *rp = new_rp(0);
	struct bt_replay_opts o = { 1.0, 1 };
	struct bt_replay_proc p;
	int fd = open("/dev/null", O_RDONLY), rc;
	(void)state;

	/*
	 * Writes onto a read-only descriptor fail, a read of /dev/null is
	 * short; one at a time (each completes before the next), in order.
	 */
	feed(rp, ev(1, BT_A_QUEUE, BT_TC_WRITE, 9, 0, 4096));
	feed(rp, ev(2, BT_A_COMPLETE, BT_TC_WRITE, 0, 0, 4096));
	feed(rp, ev(3, BT_A_QUEUE, BT_TC_WRITE, 9, 8, 4096));
	feed(rp, ev(4, BT_A_COMPLETE, BT_TC_WRITE, 0, 8, 4096));
	feed(rp, ev(5, BT_A_QUEUE, BT_TC_READ, 9, 16, 4096));
	assert_int_equal(bt_replay_loaded(rp), 3);
	assert_true(fd >= 0);
	assert_int_equal(bt_replay_target(rp, 0, fd, 0), 0);
	rc = bt_replay_run(rp, &o);
	if (rc == -ENOSYS || rc == -EPERM) {
		close(fd);
		skip();
	}
	assert_int_equal(rc, 0);
	bt_replay_proc_get(rp, 0, &p);
	assert_int_equal(p.ios, 3);
	/* Two writes refused, the read of /dev/null short (0 bytes). */
	assert_int_equal(p.errors, 3);
	assert_int_equal(p.first_error, EBADF);
	bt_replay_proc_get(rp, 1, &p);
	assert_int_equal(p.errors, 3);
	close(fd);
	bt_replay_free(rp);
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void test_replay_schedule_holds_io_back(void **state)
{
	struct bt_replay *rp = new_rp(0);
	struct bt_replay_proc p;
	uint64_t t;
	(void)state;

	/* 60 ms apart in the trace: at speed 2 the run lasts at least 30 ms. */
	feed(rp, ev(1000 * MS, BT_A_QUEUE, BT_TC_READ, 1, 0, 4096));
	feed(rp, ev(1060 * MS, BT_A_QUEUE, BT_TC_READ, 1, 8, 4096));
	assert_int_equal(bt_replay_loaded(rp), 2);
	t = mono_ms();
	close(run_on_file(rp, 0, 2.0));
	assert_true(mono_ms() - t >= 30);
	bt_replay_proc_get(rp, 0, &p);
	assert_int_equal(p.ios, 2);
	assert_true(p.lag_max < 1000 * MS);
	bt_replay_free(rp);
}

static void test_replay_held_io_lags_from_its_slot(void **state)
{
	struct bt_replay *rp = new_rp(0);
	struct bt_replay_proc p;
	(void)state;

	/*
	 * Depth 1, the second read due 2 ns after the first: it cannot go
	 * before the first completes, so it is held, and the engine's lag of
	 * every I/O is at most its lag from the due time.
	 */
	feed(rp, ev(1000, BT_A_QUEUE, BT_TC_READ, 1, 0, 4096));
	feed(rp, ev(1001, BT_A_COMPLETE, BT_TC_READ, 0, 0, 4096));
	feed(rp, ev(1002, BT_A_QUEUE, BT_TC_READ, 1, 8, 4096));
	feed(rp, ev(1003, BT_A_COMPLETE, BT_TC_READ, 0, 8, 4096));
	assert_int_equal(bt_replay_loaded(rp), 2);
	close(run_on_file(rp, 0, 1.0));
	bt_replay_proc_get(rp, 0, &p);
	assert_int_equal(p.depth, 1);
	assert_int_equal(p.ios, 2);
	assert_int_equal(p.held, 1);
	assert_true(p.lag_max > 0);
	assert_true(p.elag_max <= p.lag_max);
	assert_true(p.elag_p99 <= p.lag_p99);
	assert_true(p.elag_p50 <= p.lag_p50);
	assert_true(p.span > 0);
	bt_replay_proc_get(rp, 1, &p);
	assert_int_equal(p.held, 1);
	assert_true(p.span > 0);
	/* Without the schedule nothing is late and nothing is held. */
	close(run_on_file(rp, 1, 1.0));
	bt_replay_proc_get(rp, 0, &p);
	assert_int_equal(p.held, 0);
	assert_int_equal(p.lag_max, 0);
	assert_int_equal(p.elag_max, 0);
	assert_true(p.span > 0);
	bt_replay_free(rp);
}

static void test_replay_stop_before_start_issues_nothing(void **state)
{
	struct bt_replay *rp = new_rp(0);
	struct bt_replay_proc p;
	(void)state;

	feed(rp, ev(1, BT_A_QUEUE, BT_TC_READ, 1, 0, 4096));
	assert_int_equal(bt_replay_loaded(rp), 1);
	bt_replay_stop(rp);
	close(run_on_file(rp, 0, 1.0));
	bt_replay_proc_get(rp, 1, &p);
	assert_int_equal(p.ios, 0);
	bt_replay_free(rp);
}

static void test_replay_run_needs_targets(void **state)
{
	struct bt_replay *rp = new_rp(0);
	struct bt_replay_opts o = { 1.0, 0 };
	(void)state;

	feed(rp, ev(1, BT_A_QUEUE, BT_TC_READ, 1, 0, 4096));
	assert_int_equal(bt_replay_run(rp, &o), -EINVAL);	/* not loaded */
	assert_int_equal(bt_replay_loaded(rp), 1);
	assert_int_equal(bt_replay_run(rp, &o), -EBADF);
	assert_int_equal(bt_replay_target(rp, 1, 0, 0), -EINVAL);
	bt_replay_free(rp);
}

static void test_blkdev_legacy_names(void **state)
{
	struct bt_blkdev b;
	(void)state;

	assert_string_equal(bt_blkdev_sched_legacy("noop"), "none");
	assert_string_equal(bt_blkdev_sched_legacy("deadline"), "mq-deadline");
	assert_string_equal(bt_blkdev_sched_legacy("cfq"), "bfq");
	assert_string_equal(bt_blkdev_sched_legacy("as"), "bfq");
	assert_null(bt_blkdev_sched_legacy("bfq"));
	assert_null(bt_blkdev_sched_legacy("kyber"));
	assert_int_equal(bt_blkdev_info("/dev/null", &b), -ENOTBLK);
	assert_int_equal(bt_blkdev_info("/no/such/device", &b), -ENOENT);
}

/* --map first, then one --target for a one-device trace, else scratch. */
static void test_replay_target_path_by_map_or_target(void **state)
{
	const struct bt_replay_map map[] = {
		{ BT_DEV_MAKE(8, 0), "/dev/loop1" }, { BT_DEV_MAKE(8, 16), "/dev/loop2" } };
	const char *p;

	(void)state;
	assert_int_equal(bt_replay_target_path(map, 2, NULL, BT_DEV_MAKE(8, 16), 2, &p), 0);
	assert_string_equal(p, "/dev/loop2");
	assert_int_equal(bt_replay_target_path(map, 2, NULL, BT_DEV_MAKE(8, 32), 2, &p),
			 -ENOENT);
	assert_int_equal(bt_replay_target_path(NULL, 0, "/dev/loop1", 7, 2, &p), -E2BIG);
	assert_int_equal(bt_replay_target_path(NULL, 0, "/dev/loop1", 7, 1, &p), 0);
	assert_string_equal(p, "/dev/loop1");
	assert_int_equal(bt_replay_target_path(NULL, 0, NULL, 7, 3, &p), 0);
	assert_null(p);
}

/* The rules a regular file can meet: size, writes, what it is. */
static void test_replay_check_target_refuses(void **state)
{
	char path[] = "/tmp/test_replay_target.XXXXXX";
	struct bt_replay_dev d = { .extent = 8192, .writes = 3, .discards = 1 };
	struct bt_replay_verdict v;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 4096), 0);
	assert_int_equal(bt_replay_check_target(path, &d, BT_TGT_WRITE, &v), 0);
	assert_int_equal(v.refused, BT_TGT_TOO_SMALL);
	assert_string_equal(v.why, "refused: the trace reaches byte 8192 but the "
			    "device ends at 4096");
	assert_int_equal(ftruncate(fd, 8192), 0);
	assert_int_equal(bt_replay_check_target(path, &d, 0, &v), 0);
	assert_int_equal(v.refused, BT_TGT_WRITES);
	assert_string_equal(v.why, "refused: the trace has 3 writes and 1 discards "
			    "that would overwrite it; add --write");
	assert_int_equal(bt_replay_check_target(path, &d, BT_TGT_WRITE, &v), 0);
	assert_int_equal(v.refused, 0);
	assert_int_equal(v.is_blk, 0);
	assert_int_equal(v.size, 8192);
	assert_int_equal(bt_replay_check_target("/dev/null", &d, BT_TGT_WRITE, &v),
			 -EINVAL);
	assert_string_equal(v.why, "not a block device or regular file");
	close(fd);
	unlink(path);
	assert_int_equal(bt_replay_check_target(path, &d, BT_TGT_WRITE, &v), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay_depth_from_completions),
		cmocka_unit_test(test_replay_target_path_by_map_or_target),
		cmocka_unit_test(test_replay_check_target_refuses),
		cmocka_unit_test(test_replay_split_remainder_not_replayed),
		cmocka_unit_test(test_replay_d_owner_is_first_bio),
		cmocka_unit_test(test_replay_requeued_request_replayed_once),
		cmocka_unit_test(test_replay_merged_bio_completes_with_its_request),
		cmocka_unit_test(test_replay_counts_per_device),
		cmocka_unit_test(test_replay_partition_base_from_remap),
		cmocka_unit_test(test_replay_pid_filter),
		cmocka_unit_test(test_replay_writes_land_at_their_offset),
		cmocka_unit_test(test_replay_big_io_in_pieces),
		cmocka_unit_test(test_replay_discard_punches_a_file),
		cmocka_unit_test(test_replay_snap_restores_what_writes_touch),
		cmocka_unit_test(test_replay_failed_io_counted),
		cmocka_unit_test(test_replay_schedule_holds_io_back),
		cmocka_unit_test(test_replay_held_io_lags_from_its_slot),
		cmocka_unit_test(test_replay_stop_before_start_issues_nothing),
		cmocka_unit_test(test_replay_run_needs_targets),
		cmocka_unit_test(test_blkdev_legacy_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
