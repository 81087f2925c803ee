// SPDX-License-Identifier: MIT
/*
 * size.c - request-size histograms (btkit(7) "Size histogram"): bytes in
 * power-of-two buckets per device and op, optionally per owner process,
 * of the D events (what the device saw) or of the Q events (what was
 * submitted).  Every D counts, completed or not: a disk utility's SCSI
 * pass-through commands (`D   N 0 [gnome-disks]`, never completed in many
 * traces) are requests the device saw too, owned by their own pid since
 * the tracker does not follow them.  Memory follows the number of
 * (device, owner) pairs, never the trace length.
 */
#include <errno.h>
#include <stdlib.h>
#include "btkit.h"
#include "internal.h"

enum { OP_R, OP_W, OP_D, OP_F, OP_N, NOPS };
static const char op_name[NOPS] = { 'R', 'W', 'D', 'F', 'N' };

struct hists {
	struct bt_log2 h[NOPS];
};

struct bt_size {
	struct bt_size_opts o;
	uint32_t action;	/* BT_A_QUEUE with at_q, else BT_A_ISSUE */
	struct bt_group *g;	/* struct hists by dev and owner */
};

static int op_of(const struct bt_event *ev)
{
	if (ev->category & BT_TC_DISCARD)
		return OP_D;
	if (ev->bytes == 0)
		return (ev->category & BT_TC_FLUSH) ? OP_F : OP_N;
	return (ev->category & BT_TC_WRITE) ? OP_W : OP_R;
}

int bt_size_new(struct bt_size **out, const struct bt_size_opts *opts)
{
	struct bt_size *s;

	*out = NULL;
	if (!opts)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->o = *opts;
	s->action = s->o.at_q ? BT_A_QUEUE : BT_A_ISSUE;
	if (bt_group_new(&s->g, sizeof(struct hists)) < 0) {
		free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

uint32_t bt_size_actions(const struct bt_size *s)
{
	return 1u << s->action;
}

int bt_size_feed(struct bt_size *s, const struct bt_event *ev,
		 const struct bt_request *rq)
{
	uint32_t pid;
	struct hists *x;

	/* Most events are of the other actions: turned away first. */
	if (ev->action != s->action || bt_event_is_note(ev))
		return 0;
	pid = rq ? rq->pid : ev->pid;
	if (s->o.has_pid && pid != s->o.pid)
		return 0;
	x = bt_group_get(s->g, ev->dev, s->o.per_pid ? pid : 0, 0);
	if (!x)
		return -ENOMEM;
	bt_log2_add(&x->h[op_of(ev)], ev->bytes);
	return 0;
}

void bt_size_rows(struct bt_size *s,
		  void (*hist)(const struct bt_size_hist *h, void *arg),
		  void *arg)
{
	struct bt_group_key key;
	const struct hists *x;
	struct bt_size_hist out;

	bt_group_sort(s->g, NULL);
	for (size_t i = 0; (x = bt_group_at(s->g, i, &key)); i++) {
		for (int op = 0; op < NOPS; op++) {
			if (!x->h[op].total)
				continue;
			out.dev = key.dev;
			out.pid = key.pid;
			out.op = op_name[op];
			out.h = &x->h[op];
			hist(&out, arg);
		}
	}
}

void bt_size_free(struct bt_size *s)
{
	if (!s)
		return;
	bt_group_free(s->g);
	free(s);
}

/* btsize's table, here so that btsize and btplot's report print the same. */
static const char *const dev_cols[] = {
	"dev", "op", "lo_bytes", "hi_bytes", "count", "pct",
};
static const char *const pid_cols[] = {
	"dev", "pid", "comm", "op", "lo_bytes", "hi_bytes", "count", "pct",
};

struct size_table {
	const struct bt_size *s;
	struct bt_table *t;
	const struct bt_reader *r;
};

struct bt_table_cols bt_size_cols(const struct bt_size *s)
{
	if (s->o.per_pid)
		return (struct bt_table_cols){ pid_cols, BT_TABLE_NCOLS(pid_cols) };
	return (struct bt_table_cols){ dev_cols, BT_TABLE_NCOLS(dev_cols) };
}

/* One row per bucket from the first non-empty one to the last. */
static void put_hist(const struct bt_size_hist *x, void *arg)
{
	const struct size_table *st = arg;
	struct bt_table *t = st->t;
	const char op[2] = { x->op, 0 };
	unsigned lo, hi;

	bt_log2_span(x->h, &lo, &hi);
	for (unsigned k = lo; k <= hi; k++) {
		uint64_t a, b;

		bt_log2_bounds(k, &a, &b);
		bt_table_dev(t, x->dev);
		if (st->s->o.per_pid) {
			bt_table_u64(t, x->pid);
			bt_table_comm(t, st->r, x->pid);
		}
		bt_table_str(t, op);
		bt_table_u64(t, a);
		bt_table_u64(t, b);
		bt_table_u64(t, x->h->count[k]);
		bt_table_double(t, 100.0 * (double)x->h->count[k] /
				(double)x->h->total, 2);
		bt_table_end_row(t);
	}
}

void bt_size_table(struct bt_size *s, struct bt_table *t,
		   const struct bt_reader *r)
{
	struct size_table st = { s, t, r };

	bt_size_rows(s, put_hist, &st);
}
