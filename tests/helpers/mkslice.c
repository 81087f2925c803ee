// SPDX-License-Identifier: MIT
/*
 * mkslice - write a small hand-made trace for the btslice/btsync golden
 * tests: a "postgres" process committing (sync write, then its own flush
 * on even rounds and a jbd2 commit on odd ones) behind two random readers,
 * with BFQ's queue messages (or none with -n, as under the none scheduler).
 * -N leaves out the PROCESS notes, as tracefs captures do.  -C writes
 * CFQ's messages instead, as a 3.x kernel with group scheduling did: no
 * cgroup id in the record, the blkcg path as a token after the queue.  Every time is
 * fixed, so the expected outputs are exact.
 *
 *   mkslice [-n] [-N] [-C] [-r ROUNDS] > trace.bin
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "btkit.h"

#define US 1000ull
#define MS 1000000ull
#define DEV BT_DEV_MAKE(7, 0)
#define MAXEV 8192

static struct bt_event evs[MAXEV];
static char texts[MAXEV][64];
static size_t nev;
static int with_messages = 1;
static int with_names = 1;
static int cfq;

static struct bt_event *add(uint64_t t, unsigned act, uint32_t cat,
			    uint32_t pid, uint64_t sector, uint32_t bytes)
{
	struct bt_event *e;

	if (nev == MAXEV) {
		fprintf(stderr, "mkslice: too many events\n");
		exit(1);
	}
	e = &evs[nev++];
	memset(e, 0, sizeof(*e));
	e->time = t;
	e->action = act;
	e->category = cat;
	e->pid = pid;
	e->sector = sector;
	e->bytes = bytes;
	e->dev = DEV;
	e->offset = nev;	/* tie-break: creation order */
	return e;
}

static void note(uint64_t t, unsigned kind, uint32_t pid, const char *text,
		 size_t len, int cgroup)
{
	struct bt_event *e = add(t, kind, BT_TC_NOTIFY, pid, 0, 0);
	char *buf = texts[nev - 1];

	memcpy(buf, text, len);
	e->pdu = (const unsigned char *)buf;
	e->pdu_len = (uint16_t)len;
	if (cgroup) {
		e->has_cgroup = 1;
		e->cgroup = 1;
	}
}

/*
 * A queue message: BFQ's "bfq<pid>S text", cgroup-flagged as 4.x+ write
 * it, or with -C CFQ's "cfq<pid>S  /path text" (two spaces: no N).
 */
static void msg(uint64_t t, uint32_t pid, const char *text)
{
	static const struct { const char *bfq, *cfq; } words[] = {
		{ "add to busy", "add_to_rr" },
		{ "del from busy", "del_from_rr" },
		{ "set_in_service_queue, cur-budget = 16384",
		  "set_active wl_class:1 wl_type:2" },
		{ "expire (1, slow 0, num_disp 1, short_ttime 1)",
		  "slice expired t=0" },
	};
	char buf[96];
	int n;

	if (!with_messages)
		return;
	if (!cfq) {
		n = snprintf(buf, sizeof(buf), "bfq%uS %s", pid, text);
		note(t, BT_N_MESSAGE, 0, buf, (size_t)n, 1);
		return;
	}
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(text, words[i].bfq))
			text = words[i].cfq;
	n = snprintf(buf, sizeof(buf), "cfq%uS  /system.slice/pg %s", pid, text);
	note(t, BT_N_MESSAGE, 0, buf, (size_t)n, 0);
}

static void process(uint32_t pid, const char *comm)
{
	char buf[16] = { 0 };

	if (!with_names)
		return;
	strncpy(buf, comm, sizeof(buf) - 1);
	note(0, BT_N_PROCESS, pid, buf, sizeof(buf), 0);
}

/* A request's whole life: Q G I at q, D at d, C at c. */
static void request(uint32_t pid, uint32_t cat, uint64_t sector,
		    uint32_t bytes, uint64_t q, uint64_t d, uint64_t c)
{
	add(q, BT_A_QUEUE, cat | BT_TC_QUEUE, pid, sector, bytes);
	add(q + 1 * US / 10, BT_A_GETRQ, cat, pid, sector, bytes);
	add(q + 2 * US / 10, BT_A_INSERT, cat, pid, sector, bytes);
	add(d, BT_A_ISSUE, cat | BT_TC_ISSUE, pid, sector, bytes);
	add(c, BT_A_COMPLETE, cat | BT_TC_COMPLETE, 0, sector, bytes);
}

static void serve(uint32_t pid, uint64_t start, uint64_t end)
{
	msg(start, pid, "set_in_service_queue, cur-budget = 16384");
	msg(end, pid, "expire (1, slow 0, num_disp 1, short_ttime 1)");
	msg(end, pid, "del from busy");
}

static int by_time(const void *a, const void *b)
{
	const struct bt_event *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

int main(int argc, char **argv)
{
	const uint32_t R = BT_TC_READ | BT_TC_SYNC, W = BT_TC_WRITE | BT_TC_SYNC;
	unsigned rounds = 20;
	unsigned char buf[512];
	int c;

	while ((c = getopt(argc, argv, "nNCr:")) != -1) {
		if (c == 'n')
			with_messages = 0;
		else if (c == 'N')
			with_names = 0;
		else if (c == 'C')
			cfq = 1;
		else if (c == 'r')
			rounds = (unsigned)atoi(optarg);
		else
			return 2;
	}
	if (rounds < 1 || rounds > 200)
		return 2;
	process(100, "postgres");
	process(200, "reader");
	process(201, "reader");
	process(300, "jbd2/loop0-8");
	if (with_messages)
		note(0, BT_N_MESSAGE, 0, cfq ? "elv switch: cfq" :
			"elv switch: bfq", 15, 0);
	for (unsigned r = 0; r < rounds; r++) {
		uint64_t b = 1 * MS + r * 20 * MS;

		/* reader 200 is served first */
		request(200, R, 1000 + r * 128, 65536, b, b + 100 * US, b + 2 * MS);
		msg(b + 1 * US, 200, "add to busy");
		serve(200, b + 50 * US, b + 2 * MS);
		/* postgres' WAL write waits behind it */
		request(100, W, 50000 + r * 16, 8192, b + 500 * US,
			b + 2100 * US, b + 3 * MS);
		msg(b + 501 * US, 100, "add to busy");
		serve(100, b + 2 * MS, b + 3 * MS);
		/* reader 201 waits for both */
		request(201, R, 200000 + r * 256, 131072, b + 1 * MS,
			b + 3100 * US, b + 4500 * US);
		msg(b + 1001 * US, 201, "add to busy");
		serve(201, b + 3 * MS, b + 4500 * US);
		/* the flush: postgres' own, or jbd2's commit block */
		if (r % 2 == 0) {
			add(b + 3500 * US, BT_A_QUEUE, W | BT_TC_FLUSH | BT_TC_QUEUE,
			    100, 0, 0);
			add(b + 3600 * US, BT_A_ISSUE, BT_TC_FLUSH | BT_TC_ISSUE,
			    0, 0, 0);
			add(b + 5 * MS, BT_A_COMPLETE,
			    BT_TC_FLUSH | BT_TC_COMPLETE, 0, 0, 0);
		} else {
			request(300, W | BT_TC_FLUSH | BT_TC_FUA,
				90000 + r * 8, 4096, b + 3500 * US,
				b + 4600 * US, b + 6 * MS);
		}
	}
	qsort(evs, nev, sizeof(evs[0]), by_time);
	for (size_t i = 0; i < nev; i++) {
		int n = bt_event_encode(&evs[i], buf, sizeof(buf), 0);

		if (n < 0 || fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			return 1;
	}
	return fflush(stdout) ? 1 : 0;
}
