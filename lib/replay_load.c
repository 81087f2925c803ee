// SPDX-License-Identifier: MIT
/*
 * replay_load.c - building btreplay's work from a trace.  Loading keeps,
 * per traced pid, a compact list of its I/Os (Q bios, or D requests
 * attributed to the pid of their first bio) and the most I/Os it ever had
 * in flight, learnt by matching completions to outstanding bios by
 * sector.  Running them is replay.c's job.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "replay_int.h"

#define MAX_DEPTH	1024u

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
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
