// SPDX-License-Identifier: MIT
/*
 * btgen.c - write a large, realistic blktrace for `make bench`: per-CPU
 * files NAME.blktrace.N, each time-ordered with sequences from 1 as
 * blktrace writes them, and the same records merged by time into NAME.bin
 * (what btcapture or `blkparse -d` produce).
 *
 * The workload is a small discrete-event model of one SATA disk (8,0)
 * under mq-deadline, traced through its partition 8,1 (so every bio has an
 * A remap): random 4 KiB readers, a sequential reader whose readahead
 * bios back-merge, a database writer doing write+fdatasync (empty
 * preflush, flush request without Q), a jbd2 thread committing with
 * PREFLUSH|FUA, and writeback kworkers whose large bios are split and
 * sometimes front-merged.  Each process waits for its own I/O, completions
 * land after log-uniform latencies on the CPU of the interrupt, and every
 * pid gets a PROCESS note before its first event.  Fixed seed: the output
 * depends only on the options.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "btkit.h"

#define DISK	BT_DEV_MAKE(8, 0)
#define PART	BT_DEV_MAKE(8, 1)
#define PART_START 2048ull		/* sectors: sda1 starts at 1 MiB */
#define MAXCPU	64
#define US	1000ull
#define MS	1000000ull

/* An event waiting in the time-ordered heap; pdu inline. */
struct gev {
	uint64_t time, order;		/* order: ties keep generation order */
	uint64_t sector;
	uint32_t bytes, action, category, pid, cpu;
	uint16_t error, pdu_len;
	unsigned char pdu[16];
};

struct heap {
	struct gev *v;
	size_t n, cap;
};

enum kind { READER, SEQREADER, DBWRITER, JOURNAL, WRITEBACK };

struct proc {
	uint32_t pid;
	const char *comm;
	enum kind kind;
	unsigned cpu;			/* home CPU */
	uint64_t next;			/* ns: when its next operation starts */
	uint64_t pos;			/* sectors: sequential position */
	int noted;
};

struct gen {
	struct heap h;
	uint64_t order;
	uint64_t rng;
	unsigned ncpu;
	uint32_t seq[MAXCPU];
	FILE *percpu[MAXCPU];
	FILE *merged;
	uint64_t written;
	uint64_t t0;
	struct proc *kworker;		/* dispatches on behalf of writeback */
	struct proc *flusher;		/* issues blk-flush requests */
};

static uint64_t rnd(struct gen *g)
{
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return g->rng * 0x2545f4914f6cdd1dull;
}

static uint64_t below(struct gen *g, uint64_t n)
{
	return rnd(g) % n;
}

/*
 * Roughly log-uniform in [lo, hi): a random octave, then uniform inside
 * it, so service times spread over decades without libm.
 */
static uint64_t logu(struct gen *g, uint64_t lo, uint64_t hi)
{
	unsigned octaves = 0;
	uint64_t base;

	while ((lo << (octaves + 1)) <= hi)
		octaves++;
	base = lo << below(g, octaves ? octaves : 1);
	return base + below(g, base);
}

static int less(const struct gev *a, const struct gev *b)
{
	return a->time < b->time || (a->time == b->time && a->order < b->order);
}

static void push(struct gen *g, const struct gev *e)
{
	struct heap *h = &g->h;
	size_t i;

	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 4096;
		struct gev *v = realloc(h->v, cap * sizeof(*v));

		if (!v) {
			perror("btgen");
			exit(1);
		}
		h->v = v;
		h->cap = cap;
	}
	i = h->n++;
	h->v[i] = *e;
	h->v[i].order = g->order++;
	while (i && less(&h->v[i], &h->v[(i - 1) / 2])) {
		struct gev tmp = h->v[i];

		h->v[i] = h->v[(i - 1) / 2];
		h->v[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
}

static void pop(struct heap *h, struct gev *out)
{
	size_t i = 0;

	*out = h->v[0];
	h->v[0] = h->v[--h->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct gev tmp;

		if (l < h->n && less(&h->v[l], &h->v[m]))
			m = l;
		if (r < h->n && less(&h->v[r], &h->v[m]))
			m = r;
		if (m == i)
			break;
		tmp = h->v[i];
		h->v[i] = h->v[m];
		h->v[m] = tmp;
		i = m;
	}
}

static void write_one(struct gen *g, const struct gev *e)
{
	struct bt_event ev;
	unsigned char buf[BT_HDR_V8 + 32];
	int len;

	memset(&ev, 0, sizeof(ev));
	ev.time = e->time;
	ev.sector = e->sector;
	ev.bytes = e->bytes;
	ev.action = e->action;
	ev.category = e->category;
	ev.pid = e->pid;
	ev.dev = DISK;
	ev.cpu = e->cpu;
	ev.error = e->error;
	ev.pdu_len = e->pdu_len;
	ev.pdu = e->pdu;
	/* Notes carry sequence 0; events count per CPU from 1. */
	ev.sequence = (e->category & BT_TC_NOTIFY) ? 0 : ++g->seq[e->cpu];
	len = bt_event_encode(&ev, buf, sizeof(buf), 0);
	if (len < 0) {
		fprintf(stderr, "btgen: encode: %s\n", strerror(-len));
		exit(1);
	}
	if (fwrite(buf, 1, (size_t)len, g->percpu[e->cpu]) != (size_t)len ||
	    fwrite(buf, 1, (size_t)len, g->merged) != (size_t)len) {
		perror("btgen: write");
		exit(1);
	}
	g->written++;
}

/* Write every queued event older than t: nothing generated later precedes it. */
static void drain(struct gen *g, uint64_t t)
{
	struct gev e;

	while (g->h.n && g->h.v[0].time < t) {
		pop(&g->h, &e);
		write_one(g, &e);
	}
}

/* Category bits of a request. */
#define R	BT_TC_READ
#define W	BT_TC_WRITE
#define S	BT_TC_SYNC
#define A	BT_TC_AHEAD
#define FL	BT_TC_FLUSH
#define FUA	BT_TC_FUA
#define M	BT_TC_META

static void ev_pdu(struct gen *g, uint64_t t, unsigned act, uint32_t cat,
		   const struct proc *p, unsigned cpu, uint64_t sector,
		   uint32_t bytes, const unsigned char *pdu, uint16_t pdu_len,
		   uint16_t error)
{
	struct gev e;

	memset(&e, 0, sizeof(e));
	if (pdu_len)
		memcpy(e.pdu, pdu, pdu_len);
	e.pdu_len = pdu_len;
	e.error = error;
	e.time = t;
	e.action = act;
	/* The action's own category bit, as the kernel's BLK_TA_* carry it. */
	switch (act) {
	case BT_A_QUEUE: case BT_A_BACKMERGE: case BT_A_FRONTMERGE:
	case BT_A_GETRQ: case BT_A_INSERT: case BT_A_REMAP: case BT_A_PLUG:
	case BT_A_UNPLUG_IO: case BT_A_UNPLUG_TIMER:
		cat |= BT_TC_QUEUE;
		break;
	case BT_A_ISSUE:
		cat |= BT_TC_ISSUE;
		break;
	case BT_A_COMPLETE:
		cat |= BT_TC_COMPLETE;
		break;
	}
	e.category = cat;
	e.pid = p ? p->pid : 0;
	e.cpu = cpu;
	e.sector = sector;
	e.bytes = bytes;
	push(g, &e);
}

static void ev(struct gen *g, uint64_t t, unsigned act, uint32_t cat,
	       const struct proc *p, unsigned cpu, uint64_t sector,
	       uint32_t bytes)
{
	ev_pdu(g, t, act, cat, p, cpu, sector, bytes, NULL, 0, 0);
}

static void be32(unsigned char *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static void be64(unsigned char *p, uint64_t v)
{
	be32(p, (uint32_t)(v >> 32));
	be32(p + 4, (uint32_t)v);
}

static void remap_q(struct gen *g, uint64_t t, uint32_t cat,
		    const struct proc *p, unsigned cpu, uint64_t sector,
		    uint32_t bytes)
{
	unsigned char pdu[16];

	be32(pdu, PART);
	be32(pdu + 4, DISK);
	be64(pdu + 8, sector - PART_START);
	ev_pdu(g, t, BT_A_REMAP, cat, p, cpu, sector, bytes, pdu, 16, 0);
	ev(g, t + 100 + below(g, 100), BT_A_QUEUE, cat, p, cpu, sector, bytes);
}

static void plug_unplug(struct gen *g, uint64_t tp, uint64_t tu,
			const struct proc *p, unsigned cpu, uint64_t nr)
{
	unsigned char pdu[8];

	be64(pdu, nr);
	ev(g, tp, BT_A_PLUG, 0, p, cpu, 0, 0);
	ev_pdu(g, tu, BT_A_UNPLUG_IO, 0, p, cpu, 0, 0, pdu, 8, 0);
}

static void note_process(struct gen *g, struct proc *p, uint64_t t,
			 unsigned cpu)
{
	struct gev e;

	if (p->noted)
		return;
	p->noted = 1;
	memset(&e, 0, sizeof(e));
	e.time = t;
	e.action = BT_N_PROCESS;
	e.category = BT_TC_NOTIFY;
	e.pid = p->pid;
	e.cpu = cpu;
	memcpy(e.pdu, p->comm, strnlen(p->comm, 15));	/* NUL padded */
	e.pdu_len = 16;
	push(g, &e);
}

static unsigned irq_cpu(struct gen *g)
{
	return (unsigned)below(g, g->ncpu);
}

/* Insert, dispatch and complete one request; returns the completion time. */
static uint64_t finish_rq(struct gen *g, uint64_t t, uint32_t cat,
			  const struct proc *issuer, unsigned cpu,
			  uint64_t sector, uint32_t bytes, uint64_t lat_lo,
			  uint64_t lat_hi)
{
	uint64_t td = t + 300 + below(g, 2 * US);
	uint64_t tc = td + logu(g, lat_lo, lat_hi);
	/* A rare medium error, as real disks give. */
	uint16_t error = (cat & R) && below(g, 200000) == 0 ? (uint16_t)-EIO : 0;

	ev(g, t, BT_A_INSERT, cat, issuer, cpu, sector, bytes);
	ev(g, td, BT_A_ISSUE, cat, issuer, cpu, sector, bytes);
	ev_pdu(g, tc, BT_A_COMPLETE, cat, NULL, irq_cpu(g), sector, bytes,
	       NULL, 0, error);
	return tc;
}

static uint64_t op_reader(struct gen *g, struct proc *p, uint64_t t,
			  unsigned cpu)
{
	uint64_t s = PART_START + below(g, 200000000) / 8 * 8;

	remap_q(g, t, R, p, cpu, s, 4096);
	ev(g, t + 600, BT_A_GETRQ, R, p, cpu, s, 4096);
	plug_unplug(g, t + 700, t + 900, p, cpu, 1);
	return finish_rq(g, t + 1000, R, p, cpu, s, 4096, 60 * US, 8 * MS);
}

/* Readahead: four 128 KiB bios back-merged into one 512 KiB request. */
static uint64_t op_seqreader(struct gen *g, struct proc *p, uint64_t t,
			     unsigned cpu)
{
	uint64_t s = p->pos, tt = t;
	const uint32_t bio = 128 * 1024;

	remap_q(g, tt, R | A, p, cpu, s, bio);
	ev(g, tt + 500, BT_A_GETRQ, R | A, p, cpu, s, bio);
	plug_unplug(g, tt + 600, tt + 4 * US, p, cpu, 1);
	for (unsigned k = 1; k < 4; k++) {
		tt += 700 + below(g, 300);
		remap_q(g, tt, R | A, p, cpu, s + k * 256, bio);
		ev(g, tt + 400, BT_A_BACKMERGE, R | A, p, cpu, s + k * 256, bio);
	}
	p->pos += 1024;
	if (p->pos > PART_START + 150000000)
		p->pos = PART_START + 100000000;
	return finish_rq(g, t + 4 * US + 200, R | A, p, cpu, s, 4 * bio,
			 300 * US, 4 * MS);
}

/* Blk-flush: the device cache flush that has no Q of its own. */
static uint64_t flush_rq(struct gen *g, uint64_t t)
{
	unsigned cpu = g->flusher->cpu;
	uint64_t tc = t + logu(g, 200 * US, 3 * MS);

	ev(g, t, BT_A_ISSUE, FL, g->flusher, cpu, 0, 0);
	ev(g, tc, BT_A_COMPLETE, FL, NULL, irq_cpu(g), 0, 0);
	return tc;
}

/* write() of 1-4 pages then fdatasync(): sync writes, then an empty preflush. */
static uint64_t op_dbwriter(struct gen *g, struct proc *p, uint64_t t,
			    unsigned cpu)
{
	unsigned n = 1 + (unsigned)below(g, 4);
	uint64_t done = t, s = PART_START + 300000000 + below(g, 1000000) * 8;
	uint64_t tt = t, tc;

	for (unsigned i = 0; i < n; i++, s += 64, tt += 3 * US) {
		remap_q(g, tt, W | S, p, cpu, s, 8192);
		ev(g, tt + 500, BT_A_GETRQ, W | S, p, cpu, s, 8192);
		plug_unplug(g, tt + 600, tt + 800, p, cpu, 1);
		tc = finish_rq(g, tt + 900, W | S, p, cpu, s, 8192,
			       30 * US, 2 * MS);
		if (tc > done)
			done = tc;
	}
	/* fdatasync: the preflush bio is queued once the data is on disk. */
	tt = done + 5 * US;
	ev(g, tt, BT_A_QUEUE, FL | W | S, p, cpu, 0, 0);
	ev(g, tt + 400, BT_A_GETRQ, FL | W | S, p, cpu, 0, 0);
	tc = flush_rq(g, tt + 2 * US);
	ev(g, tc + 2 * US, BT_A_COMPLETE, FL | W | S, NULL, irq_cpu(g), 0, 0);
	return tc + 2 * US;
}

/* jbd2 commit: journal blocks, then a PREFLUSH|FUA commit block. */
static uint64_t op_journal(struct gen *g, struct proc *p, uint64_t t,
			   unsigned cpu)
{
	uint64_t s = p->pos, tt = t, done = t, tc;
	unsigned n = 2 + (unsigned)below(g, 6);

	for (unsigned i = 0; i < n; i++, s += 8, tt += 2 * US) {
		remap_q(g, tt, W | S | M, p, cpu, s, 4096);
		if (i == 0) {
			ev(g, tt + 400, BT_A_GETRQ, W | S | M, p, cpu, s, 4096);
			plug_unplug(g, tt + 500, tt + 2 * n * US, p, cpu, 1);
		} else {
			ev(g, tt + 400, BT_A_BACKMERGE, W | S | M, p, cpu, s,
			   4096);
		}
	}
	tc = finish_rq(g, t + 2 * n * US + 300, W | S | M, p, cpu, p->pos,
		       4096 * n, 50 * US, 2 * MS);
	if (tc > done)
		done = tc;
	/* The commit block: preflush, then the FUA write itself. */
	tt = done + 3 * US;
	remap_q(g, tt, FL | W | FUA | S | M, p, cpu, s, 4096);
	ev(g, tt + 400, BT_A_GETRQ, FL | W | FUA | S | M, p, cpu, s, 4096);
	tc = flush_rq(g, tt + 1 * US);
	tc = finish_rq(g, tc + 2 * US, W | FUA | S | M, p, cpu, s, 4096,
		       40 * US, 1 * MS);
	p->pos = s + 8 > PART_START + 2000000 ? PART_START + 1000000 : s + 8;
	return tc;
}

/*
 * Writeback: a 1 MiB bio split at the 512 KiB max request size (the
 * remainder is queued again), and now and then a page written behind its
 * neighbour (front merge).
 */
static uint64_t op_writeback(struct gen *g, struct proc *p, uint64_t t,
			     unsigned cpu)
{
	uint64_t s = PART_START + 400000000 + below(g, 10000000) * 8;
	uint64_t tt = t, done = t, tc;
	unsigned char pdu[8];

	remap_q(g, tt, W, p, cpu, s, 1024 * 1024);
	be64(pdu, s + 1024);
	ev_pdu(g, tt + 300, BT_A_SPLIT, W, p, cpu, s, 1024 * 1024, pdu, 8, 0);
	plug_unplug(g, tt + 400, tt + 3 * US, p, cpu, 2);
	for (unsigned half = 0; half < 2; half++) {
		uint64_t hs = s + half * 1024;

		/* The remainder goes round submit_bio() again: its own Q, no A. */
		if (half)
			ev(g, tt + 750, BT_A_QUEUE, W, p, cpu, hs, 512 * 1024);
		ev(g, tt + 600 + half * 300, BT_A_GETRQ, W, p, cpu, hs,
		   512 * 1024);
		tc = finish_rq(g, tt + 3 * US + 200 + half * 200, W, g->kworker,
			       cpu, hs, 512 * 1024, 200 * US, 6 * MS);
		if (tc > done)
			done = tc;
	}
	if (below(g, 4) == 0) {
		/* Page at s+2056 queued first, then its predecessor merges in front. */
		tt = done + 10 * US;
		remap_q(g, tt, W, p, cpu, s + 2056, 4096);
		ev(g, tt + 500, BT_A_GETRQ, W, p, cpu, s + 2056, 4096);
		plug_unplug(g, tt + 600, tt + 3 * US, p, cpu, 1);
		remap_q(g, tt + 1 * US, W, p, cpu, s + 2048, 4096);
		ev(g, tt + 1 * US + 400, BT_A_FRONTMERGE, W, p, cpu, s + 2048,
		   4096);
		done = finish_rq(g, tt + 3 * US + 200, W, g->kworker, cpu,
				 s + 2048, 8192, 50 * US, 2 * MS);
	}
	return done;
}

/*
 * The merge-heavy workload (-m): eight processes streaming through their
 * own regions with several requests in flight each, every request one Q
 * and G, then 0..MERGES further bios that back-merge (Q M), then I D C.
 * Plain 48-byte records (no remap, no plug): what the tracker's merge
 * path and the reader cost, not the disk model.
 */
static uint64_t op_merger(struct gen *g, struct proc *p, uint64_t t,
			  unsigned cpu, unsigned merges)
{
	uint32_t cat = p->kind == READER ? R : W;
	uint32_t bio = 4096 * (1 + (uint32_t)below(g, 16));
	uint32_t bytes = bio;
	unsigned k = (unsigned)below(g, merges + 1);
	uint64_t s = p->pos, tt = t + 300 + below(g, 200);

	ev(g, t, BT_A_QUEUE, cat, p, cpu, s, bio);
	ev(g, tt, BT_A_GETRQ, cat, p, cpu, s, bio);
	for (unsigned i = 0; i < k; i++) {
		tt += 500 + below(g, 500);
		ev(g, tt, BT_A_QUEUE, cat, p, cpu, s + (bytes >> 9), bio);
		ev(g, tt + 200, BT_A_BACKMERGE, cat, p, cpu, s + (bytes >> 9),
		   bio);
		bytes += bio;
	}
	/* Each stream wraps inside its own 2^30 sectors (512 GiB). */
	p->pos = s + (bytes >> 9);
	if (((p->pos - PART_START) & ((1ull << 30) - 1)) > (1ull << 30) - 4096)
		p->pos = PART_START + ((p->pos - PART_START) >> 30 << 30);
	finish_rq(g, tt + 500, cat, p, cpu, s, bytes, 50 * US, 4 * MS);
	/* Asynchronous I/O: the next request does not wait for this one. */
	return tt + 500;
}

static struct proc mprocs[] = {
	{ 5101, "fio", READER, 0, 0, PART_START + (0ull << 30), 0 },
	{ 5102, "fio", READER, 1, 0, PART_START + (1ull << 30), 0 },
	{ 5103, "fio", READER, 2, 0, PART_START + (2ull << 30), 0 },
	{ 5104, "fio", READER, 3, 0, PART_START + (3ull << 30), 0 },
	{ 5201, "dd", WRITEBACK, 0, 0, PART_START + (4ull << 30), 0 },
	{ 5202, "dd", WRITEBACK, 1, 0, PART_START + (5ull << 30), 0 },
	{ 5203, "dd", WRITEBACK, 2, 0, PART_START + (6ull << 30), 0 },
	{ 5204, "dd", WRITEBACK, 3, 0, PART_START + (7ull << 30), 0 },
};

static struct proc procs[] = {
	{ 2101, "fio", READER, 0, 0, 0, 0 },
	{ 2102, "fio", READER, 1, 0, 0, 0 },
	{ 2103, "fio", READER, 2, 0, 0, 0 },
	{ 2104, "fio", READER, 3, 0, 0, 0 },
	{ 2210, "cp", SEQREADER, 1, 0, PART_START + 100000000, 0 },
	{ 3301, "postgres", DBWRITER, 2, 0, 0, 0 },
	{ 3302, "postgres", DBWRITER, 3, 0, 0, 0 },
	{ 412, "jbd2/sda1-8", JOURNAL, 0, 0, PART_START + 1000000, 0 },
	{ 97, "kworker/u8:2", WRITEBACK, 1, 0, 0, 0 },
};
static struct proc kworker = { 152, "kworker/1:1H", WRITEBACK, 1, 0, 0, 0 };
static struct proc flusher = { 61, "kworker/0:1H", WRITEBACK, 0, 0, 0, 0 };

#define NPROC (sizeof(procs) / sizeof(procs[0]))

/* Idle time before a process's next operation. */
static uint64_t think(struct gen *g, const struct proc *p)
{
	switch (p->kind) {
	case READER:	return below(g, 20 * US);
	case SEQREADER:	return 5 * US + below(g, 50 * US);
	case DBWRITER:	return 100 * US + below(g, 2 * MS);
	case JOURNAL:	return 2 * MS + below(g, 5 * MS);
	case WRITEBACK:	return 1 * MS + below(g, 4 * MS);
	}
	return 0;
}

static uint64_t think_merger(struct gen *g)
{
	return 5 * US + below(g, 40 * US);
	return 0;
}

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: btgen [-n EVENTS] [-c CPUS] [-m MERGES] [-o DIR] [-b NAME] [-s SEED]\n"
		"Write DIR/NAME.blktrace.0..CPUS-1 (per-CPU) and DIR/NAME.bin (merged),\n"
		"about EVENTS records (default 10000000) over CPUS CPUs (default 4).\n"
		"-m: the merge-heavy workload instead of the disk model: 8 streaming\n"
		"processes, each request Q G, 0..MERGES back-merged bios (Q M), I D C.\n");
}

int main(int argc, char **argv)
{
	struct gen g;
	const char *dir = ".", *name = "bench";
	uint64_t target = 10000000, seed = 1;
	unsigned merges = 0;
	int merger = 0;
	struct proc *pv = procs;
	size_t np = NPROC;
	char path[4096];
	int c;

	memset(&g, 0, sizeof(g));
	g.ncpu = 4;
	while ((c = getopt(argc, argv, "n:c:m:o:b:s:h")) != -1) {
		switch (c) {
		case 'n': target = strtoull(optarg, NULL, 0); break;
		case 'c': g.ncpu = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'm':
			merges = (unsigned)strtoul(optarg, NULL, 0);
			merger = 1;
			break;
		case 'o': dir = optarg; break;
		case 'b': name = optarg; break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || g.ncpu < 1 || g.ncpu > MAXCPU || !target) {
		usage(stderr);
		return 2;
	}
	g.rng = 0x9e3779b97f4a7c15ull ^ (seed * 0xbf58476d1ce4e5b9ull);
	if (!g.rng)
		g.rng = 1;
	for (unsigned i = 0; i < g.ncpu; i++) {
		snprintf(path, sizeof(path), "%s/%s.blktrace.%u", dir, name, i);
		g.percpu[i] = fopen(path, "wb");
		if (!g.percpu[i] || setvbuf(g.percpu[i], NULL, _IOFBF, 1 << 20)) {
			fprintf(stderr, "btgen: %s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	snprintf(path, sizeof(path), "%s/%s.bin", dir, name);
	g.merged = fopen(path, "wb");
	if (!g.merged || setvbuf(g.merged, NULL, _IOFBF, 1 << 20)) {
		fprintf(stderr, "btgen: %s: %s\n", path, strerror(errno));
		return 1;
	}
	g.kworker = &kworker;
	g.flusher = &flusher;
	kworker.cpu %= g.ncpu;
	flusher.cpu %= g.ncpu;
	g.t0 = 86400ull * 1000000000ull;	/* a day of uptime */

	/* Wall clock at trace start, as blktrace notes it. */
	{
		struct gev e;
		uint32_t ts[2] = { 1764500000u, 123456789u };

		memset(&e, 0, sizeof(e));
		e.time = g.t0;
		e.action = BT_N_TIMESTAMP;
		e.category = BT_TC_NOTIFY;
		e.pdu_len = 8;
		memcpy(e.pdu, ts, 8);
		push(&g, &e);
	}
	if (merger) {
		pv = mprocs;
		np = sizeof(mprocs) / sizeof(mprocs[0]);
	}
	for (size_t i = 0; i < np; i++) {
		pv[i].cpu %= g.ncpu;
		pv[i].next = g.t0 + 1000 + below(&g, 100 * US);
	}

	while (g.written + g.h.n < target) {
		struct proc *p = &pv[0];
		unsigned cpu;
		uint64_t t, end = 0;

		for (size_t i = 1; i < np; i++)
			if (pv[i].next < p->next)
				p = &pv[i];
		t = p->next;
		drain(&g, t);
		/* Now and then the scheduler moves a process to another CPU. */
		cpu = below(&g, 64) ? p->cpu : irq_cpu(&g);
		note_process(&g, p, t, cpu);
		if (merger) {
			end = op_merger(&g, p, t, cpu, merges);
			p->next = end + think_merger(&g);
			continue;
		}
		if (p->kind == WRITEBACK)
			note_process(&g, &kworker, t, kworker.cpu);
		if (p->kind == DBWRITER || p->kind == JOURNAL)
			note_process(&g, &flusher, t, flusher.cpu);
		switch (p->kind) {
		case READER:	end = op_reader(&g, p, t, cpu); break;
		case SEQREADER:	end = op_seqreader(&g, p, t, cpu); break;
		case DBWRITER:	end = op_dbwriter(&g, p, t, cpu); break;
		case JOURNAL:	end = op_journal(&g, p, t, cpu); break;
		case WRITEBACK:	end = op_writeback(&g, p, t, cpu); break;
		}
		p->next = end + think(&g, p);
	}
	drain(&g, UINT64_MAX);
	for (unsigned i = 0; i < g.ncpu; i++)
		if (fclose(g.percpu[i])) {
			perror("btgen: close");
			return 1;
		}
	if (fclose(g.merged)) {
		perror("btgen: close");
		return 1;
	}
	fprintf(stderr, "btgen: %" PRIu64 " records, %u CPUs, %s/%s.*\n",
		g.written, g.ncpu, dir, name);
	free(g.h.v);
	return 0;
}
