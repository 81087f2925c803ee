// SPDX-License-Identifier: MIT
/*
 * replay_load.c - building btreplay's work from a trace.  Loading keeps,
 * per traced pid, a compact list of its I/Os (Q bios, or D requests
 * attributed to the pid of their first bio) and the most I/Os it ever had
 * in flight.  Which request a merge, dispatch or completion belongs to,
 * and so its owner, is the request tracker's answer (lib/track.c), the
 * same the analyses get; in flight counts a process's bios from their Q
 * (or its requests from their D) until the request holding them is done.
 * Running them is replay.c's job.
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

/* Index of pid's proc, -ENOENT when it has none yet. */
static int64_t proc_find(const struct bt_replay *rp, uint32_t pid)
{
	size_t h;

	if (!rp->pcap)
		return -ENOENT;
	h = mix(pid) & (rp->pcap - 1);
	while (rp->pidx[h]) {
		if (rp->procs[rp->pidx[h] - 1].pid == pid)
			return rp->pidx[h] - 1;
		h = (h + 1) & (rp->pcap - 1);
	}
	return -ENOENT;
}

/* Index of pid's proc, created on first sight; -ENOMEM. */
static int64_t proc_of(struct bt_replay *rp, uint32_t pid)
{
	int64_t i = proc_find(rp, pid);
	size_t h;
	struct proc *p;

	if (i >= 0)
		return i;
	if ((rp->nprocs + 1) * 2 > rp->pcap && pid_grow(rp) < 0)
		return -ENOMEM;
	h = mix(pid) & (rp->pcap - 1);
	while (rp->pidx[h])
		h = (h + 1) & (rp->pcap - 1);
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

/*
 * The tracker handed over a finished request (completed, given up, or
 * open at the end): its bios (Q) or it (D) are no longer in flight for
 * its owner.  A blk-flush flush carries no data and was never counted.
 */
static void on_done(const struct bt_request *rq, void *arg)
{
	struct bt_replay *rp = arg;
	int64_t pi = proc_find(rp, rq->pid);
	uint32_t n = rp->conf.from_d ? rq->d != BT_TIME_NONE : rq->nbios;
	struct proc *p;

	if (pi < 0 || rq->op == 'F')
		return;
	p = &rp->procs[pi];
	p->inflight = p->inflight > n ? p->inflight - n : 0;
}

static int on_queue(struct bt_replay *rp, const struct bt_event *e,
		    const struct bt_request *rq)
{
	unsigned flags;
	int op = op_of(e, &flags);
	int64_t pi;

	if (op < 0)
		return 0;
	if (rq && (rq->flags & BT_RQ_SPLIT)) {
		/*
		 * The second piece of a split bio, queued again by the kernel:
		 * replaying the whole bio splits it again, so it is not new
		 * I/O, but it is in flight until its own completion.
		 */
		pi = proc_find(rp, rq->pid);
		if (pi >= 0 && !rp->conf.from_d)
			rp->procs[pi].inflight++;
		return 0;
	}
	if (rp->conf.has_pid && e->pid != rp->conf.pid)
		return 0;
	pi = proc_of(rp, e->pid);
	if (pi < 0)
		return (int)pi;
	if (op == OP_FLUSH)
		rp->last_flush_proc = (uint32_t)pi;
	return rp->conf.from_d ? 0 : add_io(rp, (uint32_t)pi, e, op, flags);
}

/* A bio of another process joined the request: it completes with it. */
static void on_merge(struct bt_replay *rp, const struct bt_event *e,
		     const struct bt_request *rq)
{
	int64_t from, to;

	if (rp->conf.from_d || !rq || rq->pid == e->pid)
		return;
	from = proc_find(rp, e->pid);
	to = proc_find(rp, rq->pid);
	if (from < 0 || to < 0 || !rp->procs[from].inflight)
		return;
	rp->procs[from].inflight--;
	rp->procs[to].inflight++;
}

static int on_issue(struct bt_replay *rp, const struct bt_event *e,
		    const struct bt_request *rq)
{
	unsigned flags;
	int op = op_of(e, &flags);
	uint32_t owner;
	int64_t pi;

	/* A requeued request dispatched again is still the one I/O. */
	if (!rp->conf.from_d || op < 0 || (rq && rq->nrequeue))
		return 0;
	/* D runs in kworkers: the owner is the pid of the first bio. */
	if (op == OP_FLUSH && rp->last_flush_proc != UINT32_MAX) {
		owner = rp->last_flush_proc;
	} else {
		uint32_t pid = rq ? rq->pid : e->pid;

		if (rp->conf.has_pid && pid != rp->conf.pid)
			return 0;
		pi = proc_of(rp, pid);
		if (pi < 0)
			return (int)pi;
		owner = (uint32_t)pi;
	}
	return add_io(rp, owner, e, op, flags);
}

int bt_replay_feed(struct bt_replay *rp, const struct bt_event *e)
{
	const struct bt_request *rq = NULL;
	int rc, di;

	if (bt_event_is_note(e) || rp->loaded)
		return 0;
	if (!rp->tr) {
		struct bt_tracker_opts to = { .done = on_done, .arg = rp };

		rc = bt_tracker_new(&rp->tr, &to);
		if (rc < 0)
			return rc;
	}
	rc = bt_tracker_feed(rp->tr, e, &rq);
	if (rc < 0)
		return rc;
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
	case BT_A_QUEUE:
		return on_queue(rp, e, rq);
	case BT_A_BACKMERGE:
	case BT_A_FRONTMERGE:
		on_merge(rp, e, rq);
		return 0;
	case BT_A_ISSUE:
		return on_issue(rp, e, rq);
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
	bt_tracker_free(rp->tr);
	rp->tr = NULL;
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
