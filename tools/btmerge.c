// SPDX-License-Identifier: MIT
/*
 * btmerge - merge ratios per device and op (R, W, all), and with -P per
 * owner process: bios queued, back and front merges, requests dispatched,
 * bios per request, and the block counts of completions.  q, d, ratio and
 * blk_* are computed as btt's "Device Merge Information" computes #Q, #D,
 * Ratio, BLKmin/avg/max and Total: Q and D events with bytes, requeues
 * counted as Qs, #Q raised to #D, blocks from completions, their average
 * over #D, and nothing of a device counted before its first Q or A (btt
 * drops those events).  Unlike btt, cgroup-flagged events count.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "common.h"

enum { OP_R, OP_W, OP_ALL, NOPS };
static const char op_name[NOPS][4] = { "R", "W", "all" };

struct mstat {
	uint64_t q, back, front, d;
	uint64_t blk_n, blk_min, blk_max, blk_total;	/* 512-byte blocks */
	uint64_t rqs, bios;	/* completed requests with bytes, their bios */
};

struct grp {
	struct mstat st[NOPS];
};

struct devst {
	uint32_t dev;
	uint8_t used, live;	/* live: a Q or A was seen (btt's culling) */
};

struct merge {
	struct bt_opts o;
	bool per_pid;
	uint32_t want_pid;
	bool has_pid;
	struct bt_group *g;	/* struct grp by dev and owner pid */
	struct devst dv[256];
	const struct bt_reader *r;
};

static size_t hash2(uint32_t a, uint32_t b)
{
	return (size_t)((((uint64_t)a << 32 | b) * 0x9e3779b97f4a7c15ull) >> 40);
}

/* Devices: few, so a small table; past 256 every device counts as live. */
static struct devst *dev_get(struct merge *m, uint32_t dev)
{
	size_t i = hash2(dev, 0) & 255;

	for (size_t k = 0; k < 256; k++, i = (i + 1) & 255) {
		if (!m->dv[i].used) {
			m->dv[i].used = 1;
			m->dv[i].dev = dev;
			return &m->dv[i];
		}
		if (m->dv[i].dev == dev)
			return &m->dv[i];
	}
	return NULL;
}

static void add(struct merge *m, uint32_t dev, uint32_t pid, int op,
		void (*fn)(struct mstat *, uint64_t), uint64_t v)
{
	struct grp *g;

	if (m->has_pid && pid != m->want_pid)
		return;
	g = bt_group_get(m->g, dev, m->per_pid ? pid : 0, 0);
	if (!g)
		bt_tool_nomem(&m->o);
	fn(&g->st[op], v);
	fn(&g->st[OP_ALL], v);
}

static void add_q(struct mstat *s, uint64_t v) { (void)v; s->q++; }
static void add_back(struct mstat *s, uint64_t v) { (void)v; s->back++; }
static void add_front(struct mstat *s, uint64_t v) { (void)v; s->front++; }
static void add_d(struct mstat *s, uint64_t v) { (void)v; s->d++; }
static void add_bios(struct mstat *s, uint64_t v) { s->rqs++; s->bios += v; }

static void add_blk(struct mstat *s, uint64_t blks)
{
	if (!s->blk_n || blks < s->blk_min)
		s->blk_min = blks;
	if (!s->blk_n || blks > s->blk_max)
		s->blk_max = blks;
	s->blk_n++;
	s->blk_total += blks;
}

static int op_of(uint32_t category)
{
	return (category & BT_TC_WRITE) ? OP_W : OP_R;
}

static void on_done(const struct bt_request *rq, void *arg)
{
	struct merge *m = arg;
	struct devst *dv;

	if (rq->flags & (BT_RQ_EXPIRED | BT_RQ_OPEN) || !rq->bytes)
		return;
	dv = dev_get(m, rq->dev);
	if (dv && !dv->live)
		return;
	add(m, rq->dev, rq->pid, op_of(rq->category), add_bios, rq->nbios);
}

static void account(struct merge *m, const struct bt_event *ev,
		    const struct bt_request *rq)
{
	struct devst *dv = dev_get(m, ev->dev);
	uint32_t pid = rq ? rq->pid : ev->pid;
	int op = op_of(ev->category);

	if (ev->action == BT_A_QUEUE || ev->action == BT_A_REMAP) {
		if (dv)
			dv->live = 1;
	}
	if (dv && !dv->live)
		return;
	switch (ev->action) {
	case BT_A_QUEUE:
		if (ev->bytes)
			add(m, ev->dev, pid, op, add_q, 0);
		break;
	case BT_A_REQUEUE:
		add(m, ev->dev, pid, op, add_q, 0);
		break;
	case BT_A_BACKMERGE:
		add(m, ev->dev, pid, op, add_back, 0);
		break;
	case BT_A_FRONTMERGE:
		add(m, ev->dev, pid, op, add_front, 0);
		break;
	case BT_A_ISSUE:
		if (ev->bytes)
			add(m, ev->dev, pid, op, add_d, 0);
		break;
	case BT_A_COMPLETE:
		if (ev->bytes)
			add(m, ev->dev, rq ? rq->pid : 0, op, add_blk,
			    ev->bytes >> 9);
		break;
	}
}

static void print(struct merge *m, struct bt_table *t)
{
	struct bt_group_key key;
	const struct grp *g;

	bt_group_sort(m->g, NULL);
	for (size_t i = 0; (g = bt_group_at(m->g, i, &key)); i++) {

		for (int op = 0; op < NOPS; op++) {
			const struct mstat *s = &g->st[op];
			uint64_t q = s->q < s->d ? s->d : s->q;

			if (!s->q && !s->d && !s->back && !s->front &&
			    !s->blk_n && op != OP_ALL)
				continue;
			bt_table_dev(t, key.dev);
			if (m->per_pid) {
				bt_table_u64(t, key.pid);
				bt_table_str(t, bt_tool_comm(m->r, key.pid));
			}
			bt_table_str(t, op_name[op]);
			bt_table_u64(t, q);
			bt_table_u64(t, s->back);
			bt_table_u64(t, s->front);
			bt_table_u64(t, s->d);
			bt_table_double(t, s->d ? (double)q / (double)s->d : 0,
					2);
			bt_table_double(t, s->rqs ? (double)s->bios /
					(double)s->rqs : 0, 2);
			bt_table_u64(t, s->blk_min);
			bt_table_u64(t, s->d ? s->blk_total / s->d : 0);
			bt_table_u64(t, s->blk_max);
			bt_table_u64(t, s->blk_total);
			bt_table_end_row(t);
		}
	}
}

static void usage(const char *prog)
{
	printf("Usage: %s [options] [TRACE...]\n"
	       "Merge ratios per device and op (R, W, all), computed as btt's\n"
	       "\"Device Merge Information\".  No TRACE or - reads stdin.\n\n"
	       "Options (-p PID selects the requests PID owns; implies -P):\n%s"
	       "  -P, --per-process      rows per owner process (pid of the\n"
	       "                         first bio of each request)\n",
	       prog, bt_common_usage);
}

static void parse_args(struct merge *m, int argc, char **argv)
{
	static const struct option longopts[] = {
		BT_COMMON_LONGOPTS,
		{ "per-process", no_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	bt_opts_init(&m->o, argv[0]);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, BT_COMMON_SHORTOPTS "P",
				 longopts, NULL)) != -1) {
		if (bt_opts_common(&m->o, ch, optarg))
			continue;
		if (ch == 'h') {
			usage(m->o.prog);
			exit(BT_EXIT_OK);
		} else if (ch == 'P') {
			m->per_pid = true;
		} else {
			bt_opts_bad_option(&m->o, argv, "dpw");
		}
	}
	/* -p selects owners, not events: D and C run in other contexts. */
	m->has_pid = bt_opts_take_pid(&m->o, &m->want_pid);
	if (m->has_pid)
		m->per_pid = true;
}

int main(int argc, char **argv)
{
	static const char *const cols[] = {
		"dev", "op", "q", "back_merges", "front_merges", "d", "ratio",
		"bios_per_rq", "blk_min", "blk_avg", "blk_max", "blk_total",
	};
	static const char *const pcols[] = {
		"dev", "pid", "comm", "op", "q", "back_merges", "front_merges",
		"d", "ratio", "bios_per_rq", "blk_min", "blk_avg", "blk_max",
		"blk_total",
	};
	static struct merge m;
	struct bt_tracker_opts to = { .done = on_done, .arg = &m };
	struct bt_tracker *tr;
	const struct bt_request *rq;
	struct bt_reader *r;
	struct bt_table *t;
	struct bt_event ev;
	uint64_t first = UINT64_MAX;
	int rc, status = BT_EXIT_OK;

	parse_args(&m, argc, argv);
	r = bt_tool_open(&m.o, argc, argv);
	m.r = to.reader = r;
	if (bt_tracker_new(&tr, &to) < 0 ||
	    bt_group_new(&m.g, sizeof(struct grp)) < 0)
		bt_tool_nomem(&m.o);
	while ((rc = bt_tool_next(&m.o, r, &ev, &first)) > 0) {
		if (bt_event_is_note(&ev) || (ev.category & BT_TC_PC))
			continue;
		bt_tracker_feed(tr, &ev, &rq);
		account(&m, &ev, rq);
	}
	if (rc < 0)
		status = BT_EXIT_DATA;
	bt_tracker_flush(tr);
	t = m.per_pid ? bt_tool_table(&m.o, pcols, BT_NCOLS(pcols)) :
			bt_tool_table(&m.o, cols, BT_NCOLS(cols));
	print(&m, t);
	if (bt_tool_table_done(&m.o, t))
		status = BT_EXIT_DATA;
	bt_tool_warnings(&m.o, r);
	bt_tracker_free(tr);
	bt_reader_free(r);
	bt_group_free(m.g);
	return status;
}
