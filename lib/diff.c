// SPDX-License-Identifier: MIT
/*
 * diff.c - the comparison engine behind btdiff, and behind any caller
 * that wants its recordings side by side (btreplay's captures): each
 * recording goes once through one tracker shared by every analysis (slice
 * waits, fdatasync episodes, merges, and the request counts and latency
 * kept here), and every sample lands in the group of its process at once,
 * so a group's percentiles are those of the pooled samples, never an
 * average of per-process percentiles.  Slice waits are kept from both
 * sources and one is chosen for every recording at the end, because
 * whether every recording had scheduler messages is known only then.
 * Groups are the union over the recordings: a group one recording lacks
 * gets empty cells there.  This file gathers; diff_rows.c makes the
 * cells, rows, table and verdict of what was gathered.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "diff_int.h"

static const char *const metric_name[BT_DIFF_NMETRICS] = {
	[BT_DIFF_IOS] = "ios",
	[BT_DIFF_BYTES] = "bytes",
	[BT_DIFF_IOPS] = "iops",
	[BT_DIFF_MB_S] = "mb_s",
	[BT_DIFF_FSYNC_EPISODES] = "fsync_episodes",
	[BT_DIFF_FSYNC_P50] = "fsync_p50_us",
	[BT_DIFF_FSYNC_P99] = "fsync_p99_us",
	[BT_DIFF_FSYNC_FLUSH_MEAN] = "fsync_flush_mean_us",
	[BT_DIFF_SLICE_P50] = "slice_wait_p50_us",
	[BT_DIFF_SLICE_P99] = "slice_wait_p99_us",
	[BT_DIFF_SLICE_SOURCE] = "slice_source",
	[BT_DIFF_Q2C_P50] = "q2c_p50_us",
	[BT_DIFF_Q2C_P99] = "q2c_p99_us",
	[BT_DIFF_D2C_P50] = "d2c_p50_us",
	[BT_DIFF_D2C_P99] = "d2c_p99_us",
	[BT_DIFF_MERGE_RATIO] = "merge_ratio",
	[BT_DIFF_RQ_BYTES_MEAN] = "request_bytes_mean",
};

const char *bt_diff_metric_name(unsigned m)
{
	return m < BT_DIFF_NMETRICS ? metric_name[m] : NULL;
}

int bt_diff_metric_find(const char *name)
{
	for (unsigned m = 0; m < BT_DIFF_NMETRICS; m++)
		if (!strcmp(name, metric_name[m]))
			return (int)m;
	return -EINVAL;
}

static int add_group(struct bt_diff *d, const char *name, uint64_t order)
{
	struct dgroup *g;

	if (bt_array_room(&d->grp, &d->capgrp, d->ngrp, sizeof(*d->grp), 16) < 0)
		return -ENOMEM;
	g = &d->grp[d->ngrp];
	snprintf(g->name, sizeof(g->name), "%s", name);
	g->order = order;
	return (int)d->ngrp++;
}

int bt_diff_new(struct bt_diff **out, const struct bt_diff_opts *opts)
{
	struct bt_diff *d;

	*out = NULL;
	if (!opts || opts->by < BT_DIFF_BY_COMM || opts->by > BT_DIFF_BY_CGROUP ||
	    opts->nmetrics > BT_DIFF_NMETRICS)
		return -EINVAL;
	for (size_t i = 0; opts->metrics && i < opts->nmetrics; i++)
		if (opts->metrics[i] >= BT_DIFF_NMETRICS)
			return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->o = *opts;
	d->o.metrics = NULL;
	if (opts->metrics && opts->nmetrics) {
		memcpy(d->metric, opts->metrics, opts->nmetrics * sizeof(unsigned));
		d->nmetric = opts->nmetrics;
	} else {
		for (unsigned m = 0; m < BT_DIFF_NMETRICS; m++)
			d->metric[m] = m;
		d->nmetric = BT_DIFF_NMETRICS;
	}
	bt_map_init(&d->idx);
	if (add_group(d, "all", 0) < 0) {
		free(d);
		return -ENOMEM;
	}
	*out = d;
	return 0;
}

/*
 * pgbench's backends are all "postgres"; per-CPU kernel threads carry
 * their CPU after a slash (kworker/3:1H, jbd2/sda1-8): the name up to
 * its first '/' pools them.
 */
static void comm_key(const char *comm, char key[17])
{
	size_t n = 0;

	memset(key, 0, 17);
	if (comm)
		while (n < 16 && comm[n] && comm[n] != '/') {
			key[n] = comm[n];
			n++;
		}
	if (!n)
		key[0] = '-';	/* no name known */
}

/* Group index for a key, added under name if new; -ENOMEM. */
static int group_get(struct bt_diff *d, uint64_t k0, uint64_t k1,
		     const char *name, uint64_t order)
{
	uint32_t v = bt_map_get(&d->idx, k0, k1);
	int gi;

	if (v)
		return (int)v - 1;
	gi = add_group(d, name, order);
	if (gi < 0)
		return gi;
	if (bt_map_put(&d->idx, k0, k1, (uint32_t)gi + 1) < 0) {
		d->ngrp--;
		return -ENOMEM;
	}
	return gi;
}

/* The kernel's cgroup id as blkparse prints it: "ino,gen" in hex. */
static int cgroup_group(struct bt_diff *d, uint64_t cg)
{
	char name[NAME_LEN];

	if (!cg)
		return group_get(d, 2, 0, "-", 0);
	snprintf(name, sizeof(name), "%" PRIx32 ",%" PRIx32, (uint32_t)cg,
		 (uint32_t)(cg >> 32));
	return group_get(d, 1, cg, name, cg);
}

/* The group of pid's samples (cgroup: of the request, else the pid's). */
static int group_of(struct bt_diff *d, uint32_t pid, uint64_t cgroup)
{
	const char *comm = d->p.r ? bt_reader_comm(d->p.r, pid) : NULL;
	char key[17], name[NAME_LEN];
	uint64_t k0, k1;
	uint32_t v;

	switch (d->o.by) {
	case BT_DIFF_BY_PID:
		snprintf(name, sizeof(name), "%s[%" PRIu32 "]",
			 comm ? comm : "", pid);
		return group_get(d, pid, 0, name, pid);
	case BT_DIFF_BY_CGROUP:
		if (cgroup)
			return cgroup_group(d, cgroup);
		v = bt_map_get(&d->p.pid_cg, pid, 0);
		return v ? (int)v - 1 : cgroup_group(d, 0);
	default:
		comm_key(comm, key);
		memcpy(&k0, key, 8);
		memcpy(&k1, key + 8, 8);
		return group_get(d, k0, k1, key, 0);
	}
}

/* This recording's figures of group gi, marked present. */
static struct gstat *stat_of(struct bt_diff *d, int gi)
{
	struct rec *r = &d->rec[d->nrec - 1];

	if (gi < 0)
		return NULL;
	if ((size_t)gi >= r->ng) {
		size_t n = d->capgrp;
		struct gstat *g = realloc(r->g, n * sizeof(*g));

		if (!g)
			return NULL;
		memset(g + r->ng, 0, (n - r->ng) * sizeof(*g));
		r->g = g;
		r->ng = n;
	}
	r->g[gi].present = 1;
	return &r->g[gi];
}

/* The group of pid and "all", for a sample; NULL (err set) on ENOMEM. */
static int stats_for(struct bt_diff *d, uint32_t pid, uint64_t cgroup,
		     struct gstat *out[2])
{
	out[0] = stat_of(d, group_of(d, pid, cgroup));
	out[1] = out[0] ? stat_of(d, ALL) : NULL;
	if (!out[1]) {
		d->err = -ENOMEM;
		return 0;
	}
	return 1;
}

static void dist_add(struct bt_diff *d, struct bt_dist *x, uint64_t v)
{
	if (bt_dist_add(x, v) < 0)
		d->err = -ENOMEM;
}

/*
 * Request latency, one sample per completed request as btlat counts by
 * default (btkit(7) "Latency").  Kept apart so that it can move to the
 * library's latency object once there is one.
 */
static void lat_add(struct bt_diff *d, struct gstat *g,
		    const struct bt_request *rq)
{
	if (rq->q != BT_TIME_NONE && rq->c >= rq->q)
		dist_add(d, &g->q2c, rq->c - rq->q);
	if (rq->d != BT_TIME_NONE && rq->c >= rq->d)
		dist_add(d, &g->d2c, rq->c - rq->d);
}

static void on_done(const struct bt_request *rq, void *arg)
{
	struct bt_diff *d = arg;
	struct gstat *g[2];

	if ((rq->flags & (BT_RQ_EXPIRED | BT_RQ_OPEN)) ||
	    rq->c == BT_TIME_NONE)
		return;
	if (d->o.has_pid && rq->pid != d->o.pid)
		return;
	if (!stats_for(d, rq->pid, rq->cgroup, g))
		return;
	for (int k = 0; k < 2; k++) {
		lat_add(d, g[k], rq);
		/* Discards would count terabytes the device never moved. */
		if (rq->bytes && (rq->op == 'R' || rq->op == 'W')) {
			g[k]->ios++;
			g[k]->bytes += rq->bytes;
		}
	}
}

static void on_sync(const struct bt_sync_ep *ep, void *arg)
{
	struct bt_diff *d = arg;
	struct gstat *g[2];

	if (ep->flags & BT_SYNC_CENSORED)
		return;		/* never closed: no latency */
	if (d->o.has_pid && ep->pid != d->o.pid)
		return;
	if (!stats_for(d, ep->pid, 0, g) || (ep->flags & BT_SYNC_INVALID))
		return;
	for (int k = 0; k < 2; k++) {
		dist_add(d, &g[k]->fsync, ep->lat);
		g[k]->flush_sum += ep->flush;
	}
}

static void on_slice(const struct bt_slice_ep *ep, void *arg)
{
	struct bt_diff *d = arg;
	struct gstat *g[2];

	if (ep->censored)
		return;
	if (d->o.has_pid && (ep->pid < 0 || (uint32_t)ep->pid != d->o.pid))
		return;
	/* Async and shared scheduler queues are nobody's: "all" only. */
	if (ep->queue != BT_SLICE_PROC) {
		g[1] = stat_of(d, ALL);
		if (!g[1])
			d->err = -ENOMEM;
		else
			dist_add(d, &g[1]->slice[ep->source & 1], ep->wait);
		return;
	}
	if (!stats_for(d, (uint32_t)ep->pid, 0, g))
		return;
	for (int k = 0; k < 2; k++)
		dist_add(d, &g[k]->slice[ep->source & 1], ep->wait);
}

static void pass_free(struct pass *p)
{
	bt_tracker_free(p->tr);
	bt_slice_free(p->sl);
	bt_sync_free(p->sy);
	bt_merge_free(p->mg_pid);
	bt_merge_free(p->mg_dev);
	bt_map_free(&p->pid_cg);
	bt_map_free(&p->devs);
	free(p->dev);
	memset(p, 0, sizeof(*p));
}

static int pass_new(struct bt_diff *d, const struct bt_reader *r)
{
	struct bt_tracker_opts to = { .reader = r, .done = on_done, .arg = d };
	struct bt_slice_opts so = { .episode = on_slice, .arg = d };
	struct bt_sync_opts yo = { .episode = on_sync, .arg = d };
	struct bt_merge_opts mo = { .per_pid = 1, .has_pid = d->o.has_pid,
				    .pid = d->o.pid };
	struct pass *p = &d->p;
	int rc;

	memset(p, 0, sizeof(*p));
	p->r = r;
	bt_map_init(&p->pid_cg);
	bt_map_init(&p->devs);
	rc = bt_slice_new(&p->sl, &so);
	if (!rc)
		rc = bt_sync_new(&p->sy, &yo);
	if (!rc)
		rc = bt_merge_new(&p->mg_pid, &mo);
	mo.per_pid = 0;
	if (!rc)
		rc = bt_merge_new(&p->mg_dev, &mo);
	if (!rc) {
		bt_slice_attach(p->sl, &to);
		bt_merge_attach(p->mg_pid, &to);
		bt_merge_attach(p->mg_dev, &to);
		rc = bt_tracker_new(&p->tr, &to);
	}
	if (rc)
		pass_free(p);
	return rc;
}

int bt_diff_begin(struct bt_diff *d, const char *label,
		  const struct bt_reader *r)
{
	struct rec *rec;
	int rc;

	if (d->active || !label)
		return -EINVAL;
	if (bt_array_room(&d->rec, &d->caprec, d->nrec, sizeof(*d->rec), 4) < 0)
		return -ENOMEM;
	rec = &d->rec[d->nrec];
	memset(rec, 0, sizeof(*rec));
	rec->first = UINT64_MAX;
	rec->label = strdup(label);
	if (!rec->label)
		return -ENOMEM;
	rc = pass_new(d, r);
	if (rc) {
		free(rec->label);
		return rc;
	}
	d->nrec++;
	d->active = 1;
	d->err = 0;
	if (!stat_of(d, ALL))
		d->err = -ENOMEM;
	return d->err;
}

/* Remember a device the recording dispatched to, for its slice source. */
static void note_dev(struct bt_diff *d, uint32_t dev)
{
	struct pass *p = &d->p;

	if (bt_map_get(&p->devs, dev, 0))
		return;
	if (bt_array_room(&p->dev, &p->capdev, p->ndev, sizeof(*p->dev), 8) < 0) {
		d->err = -ENOMEM;
		return;
	}
	if (bt_map_put(&p->devs, dev, 0, 1) < 0) {
		d->err = -ENOMEM;
		return;
	}
	p->dev[p->ndev++] = dev;
}

/* by cgroup: a pid's episodes go to the cgroup of its own I/O. */
static void note_cgroup(struct bt_diff *d, const struct bt_event *ev)
{
	struct rec *r = &d->rec[d->nrec - 1];
	int gi;

	r->has_cgroup = 1;
	if (d->o.by != BT_DIFF_BY_CGROUP || ev->action != BT_A_QUEUE)
		return;
	gi = cgroup_group(d, ev->cgroup);
	if (gi < 0 || bt_map_put(&d->p.pid_cg, ev->pid, 0, (uint32_t)gi + 1) < 0)
		d->err = -ENOMEM;
}

int bt_diff_feed(struct bt_diff *d, const struct bt_event *ev)
{
	const struct bt_request *rq = NULL;
	struct pass *p = &d->p;
	const char *comm;
	struct rec *r;

	if (!d->active)
		return -EINVAL;
	r = &d->rec[d->nrec - 1];
	/* Pass-through commands are no one's I/O, as btslice and btsync see it. */
	if (ev->category & BT_TC_PC)
		return d->err;
	if (!bt_event_is_note(ev)) {
		if (r->first == UINT64_MAX)
			r->first = ev->time;
		if (ev->time > r->last)
			r->last = ev->time;
		if (ev->has_cgroup)
			note_cgroup(d, ev);
		if (ev->action == BT_A_ISSUE)
			note_dev(d, ev->dev);
		bt_tracker_feed(p->tr, ev, &rq);
		if (bt_merge_feed(p->mg_pid, ev, rq) < 0 ||
		    bt_merge_feed(p->mg_dev, ev, rq) < 0)
			d->err = -ENOMEM;
		comm = bt_sync_wants_comm(ev) && p->r ?
		       bt_reader_comm(p->r, ev->pid) : NULL;
		if (bt_sync_feed(p->sy, ev, comm) < 0)
			d->err = -ENOMEM;
	}
	if (bt_slice_feed(p->sl, ev, rq) < 0)
		d->err = -ENOMEM;
	return d->err;
}

static void merge_row(const struct bt_merge_row *m, void *arg)
{
	struct bt_diff *d = arg;
	struct gstat *g;

	/*
	 * A device that dispatched nothing (dm, md above a disk) only
	 * passed its bios down, where they are queued again.
	 */
	if (strcmp(m->op, "all") || !m->d)
		return;
	g = stat_of(d, group_of(d, m->pid, 0));
	if (!g) {
		d->err = -ENOMEM;
		return;
	}
	g->mq += m->q;
	g->md += m->d;
}

static void merge_all_row(const struct bt_merge_row *m, void *arg)
{
	struct bt_diff *d = arg;
	struct gstat *g;

	if (strcmp(m->op, "all") || !m->d)
		return;
	/* The per-device rows make "all", as btmerge counts each device. */
	g = stat_of(d, ALL);
	if (!g) {
		d->err = -ENOMEM;
		return;
	}
	g->mq += m->q;
	g->md += m->d;
}

int bt_diff_end(struct bt_diff *d)
{
	struct pass *p = &d->p;
	struct rec *r;
	int rc;

	if (!d->active)
		return -EINVAL;
	r = &d->rec[d->nrec - 1];
	bt_tracker_flush(p->tr);
	bt_slice_finish(p->sl);
	bt_sync_finish(p->sy);
	if (bt_merge_rows(p->mg_pid, merge_row, d) < 0 ||
	    bt_merge_rows(p->mg_dev, merge_all_row, d) < 0)
		d->err = -ENOMEM;
	r->has_messages = p->ndev > 0;
	for (size_t i = 0; i < p->ndev; i++)
		if (!bt_slice_has_messages(p->sl, p->dev[i]))
			r->has_messages = 0;
	pass_free(p);
	d->active = 0;
	rc = d->err;
	if (!rc && d->o.by == BT_DIFF_BY_CGROUP && !r->has_cgroup)
		rc = -ENOMSG;
	return rc;
}

size_t bt_diff_recordings(const struct bt_diff *d)
{
	return d->nrec;
}

int bt_diff_slice_source(const struct bt_diff *d)
{
	size_t done = d->nrec - (d->active ? 1 : 0);

	for (size_t i = 0; i < done; i++)
		if (!d->rec[i].has_messages)
			return BT_SLICE_EVENTS;
	return done ? BT_SLICE_MESSAGES : BT_SLICE_EVENTS;
}

static void rec_free(struct rec *r)
{
	for (size_t gi = 0; gi < r->ng; gi++) {
		struct gstat *g = &r->g[gi];

		bt_dist_free(&g->fsync);
		bt_dist_free(&g->slice[0]);
		bt_dist_free(&g->slice[1]);
		bt_dist_free(&g->q2c);
		bt_dist_free(&g->d2c);
	}
	free(r->g);
	free(r->label);
}

void bt_diff_free(struct bt_diff *d)
{
	if (!d)
		return;
	if (d->active)
		pass_free(&d->p);
	for (size_t i = 0; i < d->nrec; i++)
		rec_free(&d->rec[i]);
	free(d->rec);
	free(d->grp);
	bt_map_free(&d->idx);
	free(d->cell);
	free(d->ratio);
	free(d);
}
