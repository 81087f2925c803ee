// SPDX-License-Identifier: MIT
/*
 * replay.c - the engine behind btreplay.  Loading keeps, per traced pid, a
 * compact list of its I/Os (Q bios, or D requests attributed to the pid of
 * their first bio) and the most I/Os it ever had in flight, learnt by
 * matching completions to outstanding bios by sector.  Running gives every
 * pid its own thread and io_uring: CFQ and BFQ keep one queue per I/O
 * context, so a single submitting thread would turn contention between
 * processes into one sequential stream.  Each thread issues its I/Os at
 * their recorded offset from the first I/O (divided by the speed), never
 * more in flight than recorded, and notes how late each went out.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <liburing.h>
#include "btkit.h"

enum rop { OP_READ, OP_WRITE, OP_DISCARD, OP_FLUSH };
#define F_FUA		1u	/* write with RWF_DSYNC */
#define F_PREFLUSH	2u	/* fdatasync before the write */

#define MAX_DEPTH	1024u
#define MAX_BUF		(64u << 20)	/* largest read or write replayed */
/*
 * Direct I/O of more than BIO_MAX_VECS pages is several bios, which the
 * kernel will not build without blocking: io_uring would hand the I/O to
 * an io-wq worker, whose pid a trace of the replay would show.  Bigger
 * I/Os go as pieces of this size, the bios the kernel would make anyway.
 */
#define PIECE		(1u << 20)
#define MAX_ENTRIES	4096u
#define HUGE		(2u << 20)	/* transparent huge page */
#define WAIT_SLICE_NS	50000000ull	/* wake at least this often to see stop */
#define SPIN_NS		50000ull	/* spin rather than sleep this close to due */

/* One I/O to replay: 24 bytes. */
struct rio {
	uint64_t time;		/* ns, as traced */
	uint64_t sector;	/* 512-byte sectors, whole-disk as traced */
	uint32_t bytes;
	uint8_t op;		/* enum rop */
	uint8_t flags;		/* F_* */
	uint16_t dev;		/* index into devs */
};

struct proc {
	struct bt_replay *rp;
	uint32_t pid;
	uint32_t depth;		/* most in flight in the trace */
	uint32_t inflight;	/* while loading */
	struct rio *io;
	size_t n, cap;
	uint64_t *lat, *lag;	/* per issued I/O, ns */
	uint8_t *left;		/* pieces in flight per I/O (0x80: one failed) */
	size_t issued;
	uint64_t bytes, errors;
	int first_error;
	uint32_t bufsz;
	char comm[16];		/* thread name: the original's comm */
	pthread_t th;
	int started;
};

/* An outstanding bio (Q) or request (D) while loading. */
struct pend {
	uint64_t sector;	/* key with dev; sector + 1 so that 0 means empty */
	uint32_t dev;
	uint32_t nsect;
	uint32_t proc;		/* index in procs */
	uint8_t kind;		/* BT_A_QUEUE or BT_A_ISSUE */
	uint8_t counted;	/* counts in its proc's in-flight depth */
};

/* The second piece of a split bio, queued again by the kernel: not new I/O. */
struct split {
	uint64_t sector;
	uint32_t dev;
	uint32_t pid;
};
#define NSPLITS		64

struct target {
	int fd;
	int is_blk;
};

struct bt_replay {
	struct bt_replay_conf conf;
	struct proc *procs;
	size_t nprocs, cprocs;
	uint32_t *pidx;		/* open addressing: pid -> proc index + 1 */
	size_t pcap;
	struct pend *pend;	/* open addressing on (dev, sector) */
	size_t pendcap, npend;
	struct bt_replay_dev *devs;
	struct target *targets;
	size_t ndevs;
	uint32_t last_flush_proc; /* owner of the latest flush bio: D FN has no Q */
	struct split splits[NSPLITS];	/* ring of split remainders expected */
	unsigned nsplit;
	uint64_t first;		/* ns: earliest I/O */
	int loaded;
	/* run */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t ready;		/* threads at the start gate */
	int go;
	uint64_t t0;		/* CLOCK_MONOTONIC ns of the first I/O */
	double speed;
	int no_stall;
	atomic_int stop;
	atomic_int failed;	/* -errno of a thread that could not start */
	struct bt_replay_proc total;
	int have_total;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

int bt_replay_new(struct bt_replay **out, const struct bt_replay_conf *c)
{
	struct bt_replay *rp = calloc(1, sizeof(*rp));

	*out = NULL;
	if (!rp)
		return -ENOMEM;
	if (c)
		rp->conf = *c;
	rp->first = UINT64_MAX;
	rp->last_flush_proc = UINT32_MAX;
	atomic_init(&rp->stop, 0);
	atomic_init(&rp->failed, 0);
	pthread_mutex_init(&rp->lock, NULL);
	pthread_cond_init(&rp->cond, NULL);
	*out = rp;
	return 0;
}

/* ------------------------------------------------------------- loading */

static int pid_grow(struct bt_replay *rp)
{
	size_t cap = rp->pcap ? rp->pcap * 2 : 64;
	uint32_t *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < rp->nprocs; i++) {
		size_t h = mix(rp->procs[i].pid) & (cap - 1);

		while (t[h])
			h = (h + 1) & (cap - 1);
		t[h] = (uint32_t)i + 1;
	}
	free(rp->pidx);
	rp->pidx = t;
	rp->pcap = cap;
	return 0;
}

/* Index of pid's proc, created on first sight; -ENOMEM. */
static int64_t proc_of(struct bt_replay *rp, uint32_t pid)
{
	size_t h;
	struct proc *p;

	if ((rp->nprocs + 1) * 2 > rp->pcap && pid_grow(rp) < 0)
		return -ENOMEM;
	h = mix(pid) & (rp->pcap - 1);
	while (rp->pidx[h]) {
		if (rp->procs[rp->pidx[h] - 1].pid == pid)
			return rp->pidx[h] - 1;
		h = (h + 1) & (rp->pcap - 1);
	}
	if (rp->nprocs == rp->cprocs) {
		size_t cap = rp->cprocs ? rp->cprocs * 2 : 16;

		p = realloc(rp->procs, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		rp->procs = p;
		rp->cprocs = cap;
	}
	p = &rp->procs[rp->nprocs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	rp->pidx[h] = (uint32_t)rp->nprocs + 1;
	return (int64_t)rp->nprocs++;
}

static int dev_of(struct bt_replay *rp, uint32_t dev)
{
	struct bt_replay_dev *d;

	for (size_t i = 0; i < rp->ndevs; i++)
		if (rp->devs[i].dev == dev)
			return (int)i;
	if (rp->ndevs >= 65535)
		return -E2BIG;
	d = realloc(rp->devs, (rp->ndevs + 1) * sizeof(*d));
	if (!d)
		return -ENOMEM;
	rp->devs = d;
	memset(&d[rp->ndevs], 0, sizeof(*d));
	d[rp->ndevs].dev = dev;
	return (int)rp->ndevs++;
}

static size_t pend_slot(const struct bt_replay *rp, uint32_t dev, uint64_t sector)
{
	return mix(sector * 31 + dev) & (rp->pendcap - 1);
}

static struct pend *pend_find(struct bt_replay *rp, uint32_t dev,
			      uint64_t sector)
{
	size_t h;

	if (!rp->pendcap)
		return NULL;
	for (h = pend_slot(rp, dev, sector); rp->pend[h].sector;
	     h = (h + 1) & (rp->pendcap - 1))
		if (rp->pend[h].sector == sector + 1 && rp->pend[h].dev == dev)
			return &rp->pend[h];
	return NULL;
}

/* Linear probing delete: shift later entries of the run back. */
static void pend_del(struct bt_replay *rp, struct pend *e)
{
	size_t i = (size_t)(e - rp->pend), j = i, k;

	rp->pend[i].sector = 0;
	rp->npend--;
	for (;;) {
		j = (j + 1) & (rp->pendcap - 1);
		if (!rp->pend[j].sector)
			return;
		k = pend_slot(rp, rp->pend[j].dev, rp->pend[j].sector - 1);
		if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
			rp->pend[i] = rp->pend[j];
			rp->pend[j].sector = 0;
			i = j;
		}
	}
}

static void done_one(struct bt_replay *rp, const struct pend *e)
{
	struct proc *p = &rp->procs[e->proc];

	if (e->counted && p->inflight)
		p->inflight--;
}

static int pend_add(struct bt_replay *rp, uint32_t dev, uint64_t sector,
		    uint32_t nsect, uint32_t proc, uint8_t kind, int counted)
{
	struct pend *e;
	size_t h;

	if ((rp->npend + 1) * 2 > rp->pendcap) {
		size_t cap = rp->pendcap ? rp->pendcap * 2 : 1024;
		struct pend *old = rp->pend, *t = calloc(cap, sizeof(*t));
		size_t ocap = rp->pendcap;

		if (!t)
			return -ENOMEM;
		rp->pend = t;
		rp->pendcap = cap;
		for (size_t i = 0; i < ocap; i++) {
			if (!old[i].sector)
				continue;
			h = pend_slot(rp, old[i].dev, old[i].sector - 1);
			while (t[h].sector)
				h = (h + 1) & (cap - 1);
			t[h] = old[i];
		}
		free(old);
	}
	/* A second bio at a sector whose first never completed: drop the old. */
	e = pend_find(rp, dev, sector);
	if (e) {
		done_one(rp, e);
		pend_del(rp, e);
	}
	h = pend_slot(rp, dev, sector);
	while (rp->pend[h].sector)
		h = (h + 1) & (rp->pendcap - 1);
	rp->pend[h] = (struct pend){ sector + 1, dev, nsect, proc, kind,
				     (uint8_t)(counted && kind == (rp->conf.from_d ?
							BT_A_ISSUE : BT_A_QUEUE)) };
	rp->npend++;
	return 0;
}

/*
 * A request covers contiguous bios: walk them from its first sector.  A
 * piece of a split bio completes part of it; the rest stays outstanding.
 * Returns the proc of the earliest bio found (the request's owner).
 */
static uint32_t pend_complete(struct bt_replay *rp, uint32_t dev,
			      uint64_t sector, uint32_t nsect, uint8_t kind,
			      int count)
{
	uint64_t end = sector + nsect;
	uint32_t owner = UINT32_MAX;
	struct pend *e;

	do {
		struct pend cur;

		e = pend_find(rp, dev, sector);
		if (!e || e->kind != kind)
			break;
		cur = *e;
		if (owner == UINT32_MAX)
			owner = cur.proc;
		pend_del(rp, e);
		if (cur.nsect > end - sector && nsect) {
			/* Split: the rest waits for its own completion. */
			pend_add(rp, dev, end, cur.nsect - (uint32_t)(end - sector),
				 cur.proc, kind, 0);
			break;
		}
		if (count)
			done_one(rp, &cur);
		sector += cur.nsect;
	} while (sector < end);
	return owner;
}

static int add_io(struct bt_replay *rp, uint32_t proc, const struct bt_event *e,
		  int op, unsigned flags)
{
	struct proc *p = &rp->procs[proc];
	struct bt_replay_dev *d;
	struct rio *io;
	int di = dev_of(rp, e->dev);

	if (di < 0)
		return di;
	d = &rp->devs[di];
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;

		io = realloc(p->io, cap * sizeof(*io));
		if (!io)
			return -ENOMEM;
		p->io = io;
		p->cap = cap;
	}
	io = &p->io[p->n++];
	*io = (struct rio){ e->time, e->sector, e->bytes, (uint8_t)op,
			    (uint8_t)flags, (uint16_t)di };
	if (e->time < rp->first)
		rp->first = e->time;
	switch (op) {
	case OP_READ: d->reads++; break;
	case OP_WRITE: d->writes++; d->fua += !!(flags & F_FUA); break;
	case OP_DISCARD: d->discards++; break;
	default: d->flushes++; break;
	}
	if (op == OP_READ || op == OP_WRITE) {
		uint64_t end = e->sector * 512 + e->bytes;

		if (end > d->extent)
			d->extent = end;
		if (e->bytes > p->bufsz)
			p->bufsz = e->bytes;
	} else if (op == OP_DISCARD) {
		uint64_t end = e->sector * 512 + e->bytes;

		if (end > d->extent)
			d->extent = end;
	}
	if (op != OP_FLUSH) {
		if (++p->inflight > p->depth)
			p->depth = p->inflight;
	}
	return 0;
}

/* What a bio or request asks for; -1: nothing to replay (0-byte non-flush). */
static int op_of(const struct bt_event *e, unsigned *flags)
{
	*flags = 0;
	if (e->category & BT_TC_DISCARD)
		return e->bytes ? OP_DISCARD : -1;
	if (e->bytes == 0)
		return (e->category & (BT_TC_FLUSH | BT_TC_FUA)) ? OP_FLUSH : -1;
	if (e->category & BT_TC_WRITE) {
		if (e->category & BT_TC_FUA)
			*flags |= F_FUA;
		if (e->category & BT_TC_FLUSH)
			*flags |= F_PREFLUSH;
		return OP_WRITE;
	}
	return OP_READ;
}

int bt_replay_feed(struct bt_replay *rp, const struct bt_event *e)
{
	unsigned flags;
	int64_t pi;
	uint32_t owner;
	int op, rc, di;

	if (bt_event_is_note(e) || rp->loaded)
		return 0;
	switch (e->action) {
	case BT_A_REMAP: {
		struct bt_remap r;

		/*
		 * A partition's trace: its records carry the partition's
		 * dev_t and whole-disk sectors; the remap tells the start.
		 */
		if (bt_event_remap(e, &r) == 0 && r.dev_from == e->dev &&
		    e->sector >= r.sector_from) {
			di = dev_of(rp, e->dev);
			if (di < 0)
				return di;
			if (!rp->devs[di].base)
				rp->devs[di].base = e->sector - r.sector_from;
		}
		return 0;
	}
	case BT_A_SPLIT: {
		struct split *sp = &rp->splits[rp->nsplit++ % NSPLITS];
		uint64_t second;

		struct pend *q;

		if (bt_event_split(e, &second) < 0)
			return 0;
		*sp = (struct split){ second, e->dev, e->pid };
		/*
		 * Two bios now, whose requests may be dispatched and completed
		 * in any order: the outstanding entry becomes two.
		 */
		q = pend_find(rp, e->dev, e->sector);
		if (q && second > e->sector && second - e->sector < q->nsect) {
			uint32_t rest = q->nsect - (uint32_t)(second - e->sector);

			q->nsect = (uint32_t)(second - e->sector);
			return pend_add(rp, e->dev, second, rest, q->proc, q->kind, 0);
		}
		return 0;
	}
	case BT_A_QUEUE:
		op = op_of(e, &flags);
		if (op < 0)
			return 0;
		for (unsigned i = 0; i < NSPLITS; i++) {
			struct split *sp = &rp->splits[i];

			if (sp->sector == e->sector && sp->dev == e->dev &&
			    sp->pid == e->pid && sp->sector) {
				sp->sector = 0;
				return 0;	/* replaying the whole bio splits it again */
			}
		}
		if (rp->conf.has_pid && e->pid != rp->conf.pid)
			return 0;
		pi = proc_of(rp, e->pid);
		if (pi < 0)
			return (int)pi;
		if (op == OP_FLUSH)
			rp->last_flush_proc = (uint32_t)pi;
		if (rp->conf.from_d) {
			if (op == OP_FLUSH)
				return 0;
			return pend_add(rp, e->dev, e->sector, e->bytes >> 9,
					(uint32_t)pi, BT_A_QUEUE, 1);
		}
		rc = add_io(rp, (uint32_t)pi, e, op, flags);
		if (rc == 0 && op != OP_FLUSH)
			rc = pend_add(rp, e->dev, e->sector, e->bytes >> 9,
				      (uint32_t)pi, BT_A_QUEUE, 1);
		return rc;
	case BT_A_ISSUE:
		if (!rp->conf.from_d)
			return 0;
		op = op_of(e, &flags);
		if (op < 0)
			return 0;
		/* D runs in kworkers: the owner is the pid of the first bio. */
		if (op == OP_FLUSH)
			owner = rp->last_flush_proc;
		else
			owner = pend_complete(rp, e->dev, e->sector, e->bytes >> 9,
					      BT_A_QUEUE, 0);
		if (owner == UINT32_MAX) {
			if (rp->conf.has_pid && e->pid != rp->conf.pid)
				return 0;
			pi = proc_of(rp, e->pid);
			if (pi < 0)
				return (int)pi;
			owner = (uint32_t)pi;
		}
		rc = add_io(rp, owner, e, op, flags);
		if (rc == 0 && op != OP_FLUSH)
			rc = pend_add(rp, e->dev, e->sector, e->bytes >> 9, owner,
				      BT_A_ISSUE, 1);
		return rc;
	case BT_A_COMPLETE:
		pend_complete(rp, e->dev, e->sector, e->bytes >> 9,
			      rp->conf.from_d ? BT_A_ISSUE : BT_A_QUEUE, 1);
		return 0;
	case BT_A_REQUEUE:
		/* Goes back to the queue and will be dispatched again. */
		if (rp->conf.from_d) {
			struct pend *p = pend_find(rp, e->dev, e->sector);

			if (p && p->kind == BT_A_ISSUE) {
				done_one(rp, p);
				pend_del(rp, p);
			}
		}
		return 0;
	}
	return 0;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int64_t bt_replay_loaded(struct bt_replay *rp)
{
	int64_t n = 0;
	size_t j = 0;

	if (rp->loaded)
		return -EINVAL;
	rp->loaded = 1;
	free(rp->pend);
	rp->pend = NULL;
	rp->pendcap = rp->npend = 0;
	free(rp->pidx);
	rp->pidx = NULL;
	/* Processes with nothing to replay (only 0-byte bios) go. */
	for (size_t i = 0; i < rp->nprocs; i++) {
		if (!rp->procs[i].n)
			continue;
		rp->procs[j++] = rp->procs[i];
	}
	rp->nprocs = j;
	if (j)
		qsort(rp->procs, rp->nprocs, sizeof(*rp->procs), cmp_proc);
	for (size_t i = 0; i < rp->nprocs; i++) {
		struct proc *p = &rp->procs[i];

		p->rp = rp;
		if (!p->depth)
			p->depth = 1;
		if (p->depth > MAX_DEPTH)
			p->depth = MAX_DEPTH;
		n += (int64_t)p->n;
	}
	for (size_t i = 0; i < rp->ndevs; i++) {
		struct bt_replay_dev *d = &rp->devs[i];

		d->extent = d->extent > d->base * 512 ? d->extent - d->base * 512 : 0;
	}
	rp->targets = calloc(rp->ndevs ? rp->ndevs : 1, sizeof(*rp->targets));
	if (!rp->targets)
		return -ENOMEM;
	for (size_t i = 0; i < rp->ndevs; i++)
		rp->targets[i].fd = -1;
	return n;
}

size_t bt_replay_ndevs(const struct bt_replay *rp)
{
	return rp->ndevs;
}

void bt_replay_dev_get(const struct bt_replay *rp, size_t i,
		       struct bt_replay_dev *out)
{
	*out = rp->devs[i];
}

int bt_replay_target(struct bt_replay *rp, size_t i, int fd, int is_blkdev)
{
	if (!rp->loaded || i >= rp->ndevs)
		return -EINVAL;
	rp->targets[i].fd = fd;
	rp->targets[i].is_blk = is_blkdev;
	return 0;
}

/* ------------------------------------------------------------- running */

static void fail(struct proc *p, int err)
{
	p->errors++;
	if (!p->first_error)
		p->first_error = err;
}

/* Flushes and discards are synchronous, from this thread: see the header. */
static void sync_op(struct bt_replay *rp, struct proc *p, const struct rio *io,
		    uint64_t off)
{
	const struct target *t = &rp->targets[io->dev];
	int rc;

	if (io->op == OP_DISCARD) {
		uint64_t range[2] = { off, io->bytes };

		if (t->is_blk)
			rc = ioctl(t->fd, BLKDISCARD, range);
		else
			rc = fallocate(t->fd, FALLOC_FL_PUNCH_HOLE |
				       FALLOC_FL_KEEP_SIZE, (off_t)off, io->bytes);
	} else {
		rc = fdatasync(t->fd);
	}
	if (rc < 0)
		fail(p, errno);
}

/* user_data: I/O index, and the piece in the top 16 bits. */
#define UD_PIECE_SHIFT	48

static uint32_t piece_len(const struct rio *io, unsigned k)
{
	uint32_t done = k * PIECE;

	return io->bytes - done < PIECE ? io->bytes - done : PIECE;
}

static void reap(struct proc *p, struct io_uring *ring, unsigned *inflight)
{
	struct io_uring_cqe *cqe;
	uint64_t now = 0;

	while (io_uring_peek_cqe(ring, &cqe) == 0) {
		size_t k = (size_t)(cqe->user_data & ((1ull << UD_PIECE_SHIFT) - 1));
		unsigned piece = (unsigned)(cqe->user_data >> UD_PIECE_SHIFT);
		int res = cqe->res, bad = 0;

		if (res < 0)
			bad = -res;
		else if ((uint32_t)res != piece_len(&p->io[k], piece))
			bad = EIO;
		io_uring_cqe_seen(ring, cqe);
		if (p->left && p->left[k]) {
			/* One piece of several: the I/O ends with its last. */
			if (bad && !(p->left[k] & 0x80)) {
				fail(p, bad);
				p->left[k] |= 0x80;
			}
			if ((--p->left[k] & 0x7f) != 0)
				continue;
			p->left[k] = 0;
		} else if (bad) {
			fail(p, bad);
		}
		if (!now)
			now = now_ns();
		p->lat[k] = now > p->lat[k] ? now - p->lat[k] : 0;
		(*inflight)--;
	}
}

static uint64_t due_of(const struct bt_replay *rp, const struct rio *io)
{
	uint64_t rel = io->time - rp->first;

	if (rp->speed != 1.0)
		rel = (uint64_t)((double)rel / rp->speed);
	return rp->t0 + rel;
}

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__asm__ volatile("" ::: "memory");
#endif
}

/*
 * Sleep until shortly before until, then spin: waking from a timer takes
 * tens of microseconds on an idle virtual machine, a good part of the lag
 * budget.  Only briefly: on a busy machine a spinning thread spends its
 * fair share of CPU and is then scheduled late (measured: 100 us of spin
 * raised the median lag tenfold under load).  Returns early when a
 * completion arrives.
 */
static void wait_until(struct io_uring *ring, unsigned inflight, uint64_t until)
{
	uint64_t now = now_ns(), d;

	if (until <= now)
		return;
	d = until - now;
	if (d <= SPIN_NS) {
		while (now_ns() < until) {
			if (inflight && io_uring_cq_ready(ring))
				return;
			relax();
		}
		return;
	}
	d -= SPIN_NS;
	if (d > WAIT_SLICE_NS)
		d = WAIT_SLICE_NS;
	if (inflight) {
		struct __kernel_timespec ts = { (long long)(d / 1000000000u),
						(long long)(d % 1000000000u) };
		struct io_uring_cqe *cqe;

		io_uring_wait_cqe_timeout(ring, &cqe, &ts);
	} else {
		struct timespec ts;

		until = now + d;
		ts.tv_sec = (time_t)(until / 1000000000u);
		ts.tv_nsec = (long)(until % 1000000000u);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

/* Wait at the start gate until every thread is ready and t0 is set. */
static int gate(struct bt_replay *rp)
{
	pthread_mutex_lock(&rp->lock);
	rp->ready++;
	pthread_cond_broadcast(&rp->cond);
	while (!rp->go)
		pthread_cond_wait(&rp->cond, &rp->lock);
	pthread_mutex_unlock(&rp->lock);
	return atomic_load(&rp->failed);
}

static void *run_proc(void *arg)
{
	struct proc *p = arg;
	struct bt_replay *rp = p->rp;
	struct io_uring ring;
	unsigned entries = 4, inflight = 0;
	void *buf = NULL;
	size_t next = 0;
	int rc, have_ring;

	if (p->comm[0])
		pthread_setname_np(pthread_self(), p->comm);
	/* The default 50 us timer slack would be most of the lag budget. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	while (entries < p->depth * ((p->bufsz + PIECE - 1) / PIECE) &&
	       entries < MAX_ENTRIES)
		entries *= 2;
	rc = io_uring_queue_init(entries, &ring, 0);
	have_ring = rc == 0;
	if (rc == 0 && p->bufsz) {
		size_t sz = p->bufsz > MAX_BUF ? MAX_BUF : p->bufsz;

		/*
		 * Large I/O from scattered 4 KiB pages needs more segments than
		 * many devices take (loop: 128): the kernel must split the bio,
		 * which it refuses under IOCB_NOWAIT, so io_uring would punt it
		 * to an io-wq worker.  Huge pages keep the buffer contiguous.
		 */
		if (sz > 65536) {
			sz = (sz + HUGE - 1) & ~(size_t)(HUGE - 1);
			rc = posix_memalign(&buf, HUGE, sz) ? -ENOMEM : 0;
			if (rc == 0)
				madvise(buf, sz, MADV_HUGEPAGE);
		} else {
			sz = (sz + 4095) & ~(size_t)4095;
			rc = posix_memalign(&buf, 4096, sz) ? -ENOMEM : 0;
		}
		if (rc < 0)
			buf = NULL;
		else
			memset(buf, 0xa5, sz);
	}
	if (rc < 0) {
		int zero = 0;

		atomic_compare_exchange_strong(&rp->failed, &zero, rc);
	}
	if (gate(rp))
		goto out;
	for (;;) {
		unsigned queued = 0;	/* SQEs not submitted yet */
		int block;
		uint64_t now, due = 0;
		int stop = atomic_load_explicit(&rp->stop, memory_order_relaxed);

		if (inflight)
			reap(p, &ring, &inflight);
		if ((next >= p->n || stop) && !inflight)
			break;
		now = now_ns();
		while (!stop && next < p->n && inflight < p->depth) {
			const struct rio *io = &p->io[next];
			const struct target *t = &rp->targets[io->dev];
			uint64_t off = (io->sector - rp->devs[io->dev].base) * 512;
			struct io_uring_sqe *sqe;
			unsigned pieces;

			due = due_of(rp, io);
			if (!rp->no_stall && due > now)
				break;
			if (io->sector < rp->devs[io->dev].base) {
				/* Before the traced partition: nowhere to go. */
				p->lag[next] = p->lat[next] = 0;
				fail(p, EINVAL);
				next++;
				continue;
			}
			if (io->op == OP_FLUSH || io->op == OP_DISCARD ||
			    (io->flags & F_PREFLUSH)) {
				/* Keep the order: what is queued goes first. */
				if (queued) {
					io_uring_submit(&ring);
					queued = 0;
				}
				now = now_ns();
				p->lag[next] = now > due && !rp->no_stall ? now - due : 0;
				if (io->op == OP_WRITE) {
					if (fdatasync(t->fd) < 0)
						fail(p, errno);
				} else {
					sync_op(rp, p, io, off);
					p->bytes += io->bytes;
					p->lat[next++] = now_ns() - now;
					now = now_ns();
					continue;
				}
				now = now_ns();
			} else {
				p->lag[next] = now > due && !rp->no_stall ? now - due : 0;
			}
			if (io->bytes > MAX_BUF) {
				fail(p, EFBIG);
				p->lat[next++] = 0;
				continue;
			}
			pieces = (io->bytes + PIECE - 1) / PIECE;
			if (io_uring_sq_space_left(&ring) < pieces && queued) {
				io_uring_submit(&ring);
				queued = 0;
			}
			if (io_uring_sq_space_left(&ring) < pieces)
				break;
			for (unsigned k = 0; k < pieces; k++) {
				char *at = (char *)buf + (size_t)k * PIECE;
				uint32_t len = piece_len(io, k);

				sqe = io_uring_get_sqe(&ring);
				if (io->op == OP_READ) {
					io_uring_prep_read(sqe, t->fd, at, len,
							   off + (uint64_t)k * PIECE);
				} else {
					io_uring_prep_write(sqe, t->fd, at, len,
							    off + (uint64_t)k * PIECE);
					if (io->flags & F_FUA)
						sqe->rw_flags = RWF_DSYNC;
				}
				sqe->user_data = next | ((uint64_t)k << UD_PIECE_SHIFT);
				queued++;
			}
			if (pieces > 1)
				p->left[next] = (uint8_t)pieces;
			p->bytes += io->bytes;
			p->lat[next++] = now;	/* issue time until completion */
			inflight++;
		}
		/* Nothing more to issue until a completion: wait in the same call. */
		block = !stop && inflight &&
			!(next < p->n && inflight < p->depth && !rp->no_stall);
		if (queued) {
			do
				rc = block ? io_uring_submit_and_wait(&ring, 1) :
					     io_uring_submit(&ring);
			while (rc == -EINTR || rc == -EAGAIN);
			if (rc < 0) {
				/* The ring is unusable: stop everyone. */
				fail(p, -rc);
				atomic_store(&rp->stop, 1);
				break;
			}
		} else if (block) {
			struct io_uring_cqe *cqe;

			io_uring_wait_cqe(&ring, &cqe);
		}
		if (stop) {
			if (inflight)
				wait_until(&ring, inflight, now_ns() + WAIT_SLICE_NS);
		} else if (!block && next < p->n) {
			wait_until(&ring, inflight, due_of(rp, &p->io[next]));
		}
	}
out:
	p->issued = next;
	if (have_ring)
		io_uring_queue_exit(&ring);
	free(buf);
	return NULL;
}

int bt_replay_run(struct bt_replay *rp, const struct bt_replay_opts *o)
{
	size_t n = rp->nprocs, started = 0;
	int rc;

	if (!rp->loaded)
		return -EINVAL;
	for (size_t i = 0; i < rp->ndevs; i++)
		if (rp->targets[i].fd < 0)
			return -EBADF;
	rp->speed = o && o->speed > 0 ? o->speed : 1.0;
	rp->no_stall = o ? o->no_stall : 0;
	for (size_t i = 0; i < n; i++) {
		struct proc *p = &rp->procs[i];

		free(p->lat);
		free(p->lag);
		free(p->left);
		p->lat = malloc(p->n * sizeof(*p->lat));
		p->lag = malloc(p->n * sizeof(*p->lag));
		p->left = p->bufsz > PIECE ? calloc(p->n, 1) : NULL;
		if (!p->lat || !p->lag || (p->bufsz > PIECE && !p->left))
			return -ENOMEM;
		p->issued = 0;
		p->bytes = p->errors = 0;
		p->first_error = 0;
	}
	rp->have_total = 0;
	rp->ready = 0;
	rp->go = 0;
	atomic_store(&rp->failed, 0);
	for (; started < n; started++) {
		rc = pthread_create(&rp->procs[started].th, NULL, run_proc,
				    &rp->procs[started]);
		if (rc) {
			atomic_store(&rp->failed, -rc);
			break;
		}
	}
	pthread_mutex_lock(&rp->lock);
	while (rp->ready < started)
		pthread_cond_wait(&rp->cond, &rp->lock);
	rp->t0 = now_ns() + 2000000u;	/* everyone ready: start together */
	rp->go = 1;
	pthread_cond_broadcast(&rp->cond);
	pthread_mutex_unlock(&rp->lock);
	for (size_t i = 0; i < started; i++)
		pthread_join(rp->procs[i].th, NULL);
	return atomic_load(&rp->failed);
}

void bt_replay_stop(struct bt_replay *rp)
{
	atomic_store(&rp->stop, 1);
}

size_t bt_replay_nprocs(const struct bt_replay *rp)
{
	return rp->nprocs;
}

uint32_t bt_replay_proc_pid(const struct bt_replay *rp, size_t i)
{
	return i < rp->nprocs ? rp->procs[i].pid : 0;
}

int bt_replay_proc_name(struct bt_replay *rp, size_t i, const char *comm)
{
	if (!rp->loaded || i >= rp->nprocs || !comm)
		return -EINVAL;
	snprintf(rp->procs[i].comm, sizeof(rp->procs[i].comm), "%.15s", comm);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank on sorted v[0..n). */
static uint64_t rank(const uint64_t *v, size_t n, double q)
{
	size_t k;

	if (!n)
		return 0;
	k = (size_t)(q * (double)n + 0.999999999);
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return v[k - 1];
}

static void fill(struct bt_replay_proc *out, uint64_t *lat, uint64_t *lag,
		 size_t n)
{
	if (!n)
		return;
	qsort(lat, n, sizeof(*lat), cmp_u64);
	qsort(lag, n, sizeof(*lag), cmp_u64);
	out->lat_p50 = rank(lat, n, 0.5);
	out->lat_p99 = rank(lat, n, 0.99);
	out->lag_p50 = rank(lag, n, 0.5);
	out->lag_p99 = rank(lag, n, 0.99);
	out->lag_max = n ? lag[n - 1] : 0;
}

static void make_total(struct bt_replay *rp)
{
	struct bt_replay_proc *t = &rp->total;
	uint64_t *lat, *lag;
	size_t n = 0, k = 0;

	memset(t, 0, sizeof(*t));
	rp->have_total = 1;
	for (size_t i = 0; i < rp->nprocs; i++) {
		struct proc *p = &rp->procs[i];

		n += p->issued;
		t->bytes += p->bytes;
		t->errors += p->errors;
		if (!t->first_error)
			t->first_error = p->first_error;
		t->depth += p->depth;
	}
	t->ios = n;
	lat = malloc((n ? n : 1) * sizeof(*lat));
	lag = malloc((n ? n : 1) * sizeof(*lag));
	if (lat && lag) {
		for (size_t i = 0; i < rp->nprocs; i++) {
			struct proc *p = &rp->procs[i];

			if (!p->lat)
				continue;
			memcpy(lat + k, p->lat, p->issued * sizeof(*lat));
			memcpy(lag + k, p->lag, p->issued * sizeof(*lag));
			k += p->issued;
		}
		fill(t, lat, lag, k);
	}
	free(lat);
	free(lag);
}

void bt_replay_proc_get(struct bt_replay *rp, size_t i,
			struct bt_replay_proc *out)
{
	struct proc *p;

	memset(out, 0, sizeof(*out));
	if (i >= rp->nprocs) {
		if (!rp->have_total)
			make_total(rp);
		*out = rp->total;
		return;
	}
	p = &rp->procs[i];
	out->pid = p->pid;
	out->depth = p->depth;
	out->ios = p->issued;
	out->bytes = p->bytes;
	out->errors = p->errors;
	out->first_error = p->first_error;
	if (p->lat && p->lag)
		fill(out, p->lat, p->lag, p->issued);
}

void bt_replay_free(struct bt_replay *rp)
{
	if (!rp)
		return;
	for (size_t i = 0; i < rp->nprocs; i++) {
		free(rp->procs[i].io);
		free(rp->procs[i].lat);
		free(rp->procs[i].lag);
		free(rp->procs[i].left);
	}
	free(rp->procs);
	free(rp->pidx);
	free(rp->pend);
	free(rp->devs);
	free(rp->targets);
	pthread_mutex_destroy(&rp->lock);
	pthread_cond_destroy(&rp->cond);
	free(rp);
}
