// SPDX-License-Identifier: MIT
/*
 * btslice - per-process scheduler slice waits: how long each process (or
 * scheduler queue) waited for the device while others were served.  With
 * --from=auto each device uses its scheduler's messages when the trace has
 * them (CFQ, BFQ) and the events alone otherwise; the source column says
 * which.  Async and shared scheduler queues are rows of their own, never
 * charged to a pid.  Definitions: btslice(1) and btkit(7) "Slice wait".
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"

enum from { FROM_AUTO, FROM_MESSAGES, FROM_EVENTS };

struct row {
	uint64_t episodes, censored;
	uint64_t total, idle, foreign;	/* ns, ns, bytes */
	struct bt_dist wait;		/* ns */
};

/* Rows are grouped by dev, pid (-1: none) and source and queue in sub. */
#define SUB(source, queue)	((uint32_t)(source) << 8 | (queue))
#define SUB_SOURCE(sub)		((sub) >> 8)
#define SUB_QUEUE(sub)		((sub) & 0xff)

struct slicer {
	struct bt_opts o;
	enum from from;
	bool per_episode;
	bool has_pid;
	uint32_t want_pid;
	uint64_t tau;		/* ns */
	uint64_t first;		/* ns: first event, for start_s */
	uint32_t seen;		/* tool_seen() of the events read */
	struct bt_group *rows;	/* struct row */
	struct bt_slice *sl;
	struct bt_reader *r;
	struct bt_table *t;	/* -e: episodes as they end */
};

static bool wanted_source(const struct slicer *s, uint32_t dev,
			  unsigned source)
{
	switch (s->from) {
	case FROM_MESSAGES:
		return source == BT_SLICE_MESSAGES;
	case FROM_EVENTS:
		return source == BT_SLICE_EVENTS;
	default:
		return source == (bt_slice_has_messages(s->sl, dev) ?
				  BT_SLICE_MESSAGES : BT_SLICE_EVENTS);
	}
}

static const char *comm_of(const struct slicer *s, int32_t pid,
			   unsigned queue)
{
	if (queue == BT_SLICE_ASYNC)
		return "[async]";
	if (queue == BT_SLICE_SHARED)
		return "[shared]";
	return pid >= 0 ? bt_tool_comm(s->r, (uint32_t)pid) : "-";
}

static void put_pid(struct bt_table *t, int32_t pid)
{
	if (pid < 0)
		bt_table_str(t, "-");
	else
		bt_table_u64(t, (uint64_t)pid);
}

static void on_episode(const struct bt_slice_ep *ep, void *arg)
{
	struct slicer *s = arg;
	struct row *r;

	if (s->has_pid && (ep->pid < 0 || (uint32_t)ep->pid != s->want_pid))
		return;
	r = bt_group_get(s->rows, ep->dev, (uint32_t)ep->pid,
			 SUB(ep->source, ep->queue));
	if (!r)
		bt_tool_nomem(&s->o);
	if (ep->censored) {
		r->censored++;
		return;
	}
	r->episodes++;
	r->total += ep->wait;
	r->idle += ep->dev_idle;
	r->foreign += ep->foreign_bytes;
	if (bt_dist_add(&r->wait, ep->wait) < 0)
		bt_tool_nomem(&s->o);
	if (s->t && wanted_source(s, ep->dev, ep->source)) {
		bt_table_s(s->t, ep->start > s->first ? ep->start - s->first : 0);
		put_pid(s->t, ep->pid);
		bt_table_str(s->t, comm_of(s, ep->pid, ep->queue));
		bt_table_us(s->t, ep->wait);
		bt_table_us(s->t, ep->dev_idle);
		bt_table_u64(s->t, ep->foreign_bytes);
		put_pid(s->t, ep->top_other);
		bt_table_end_row(s->t);
	}
}

static int cmp_row(const void *a, const void *b)
{
	const struct bt_group_key *x = a, *y = b;
	int32_t xpid = (int32_t)x->pid, ypid = (int32_t)y->pid;

	if (SUB_QUEUE(x->sub) != SUB_QUEUE(y->sub))
		return SUB_QUEUE(x->sub) < SUB_QUEUE(y->sub) ? -1 : 1;
	if (xpid != ypid)
		return xpid < ypid ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return (int)SUB_SOURCE(x->sub) - (int)SUB_SOURCE(y->sub);
}

static void print(struct slicer *s, struct bt_table *t)
{
	struct bt_group_key k;
	struct row *r;

	bt_group_sort(s->rows, cmp_row);
	for (size_t i = 0; (r = bt_group_at(s->rows, i, &k)); i++) {
		int32_t pid = (int32_t)k.pid;
		unsigned source = SUB_SOURCE(k.sub);

		if (!wanted_source(s, k.dev, source))
			continue;
		put_pid(t, pid);
		bt_table_str(t, comm_of(s, pid, SUB_QUEUE(k.sub)));
		bt_table_str(t, source == BT_SLICE_MESSAGES ? "messages" :
							      "events");
		bt_table_u64(t, r->episodes);
		bt_table_u64(t, r->censored);
		bt_table_us(t, r->total);
		tool_put_dist(t, &r->wait);
		if (r->episodes)
			bt_table_double(t, r->total ? (double)r->idle /
						      (double)r->total : 0.0, 3);
		else
			tool_put_empty(t, 1);	/* no wait: no share of it */
		bt_table_u64(t, r->foreign);
		bt_table_end_row(t);
	}
}

/*
 * Notes pass the common filters unwindowed; scheduler messages outside
 * -w would open waits whose dispatches were filtered out.
 */
static bool in_window(const struct slicer *s, const struct bt_event *ev)
{
	uint64_t rel;

	if (!s->o.has_window)
		return true;
	if (s->first == UINT64_MAX)
		return s->o.win_start == 0;
	rel = ev->time > s->first ? ev->time - s->first : 0;
	return rel >= s->o.win_start && rel < s->o.win_end;
}

/* Without the events a source needs there is no wait to see. */
static void explain(const struct slicer *s)
{
	static const uint32_t events = 1u << BT_A_GETRQ | 1u << BT_A_INSERT;

	switch (s->from) {
	case FROM_MESSAGES:
		tool_explain_empty(&s->o, s->seen, TOOL_SEEN_MESSAGE,
				   "btslice --from=messages", "--from=messages "
				   "follows CFQ's or BFQ's queue messages");
		break;
	case FROM_EVENTS:
		tool_explain_empty(&s->o, s->seen, events,
				   "btslice --from=events", "a wait starts when "
				   "a request enters the scheduler (G, or I)");
		break;
	default:
		tool_explain_empty(&s->o, s->seen, events | TOOL_SEEN_MESSAGE,
				   "btslice", "a wait starts when a request "
				   "enters the scheduler (G, or I) or at a "
				   "scheduler message");
	}
}

static void usage(const char *prog)
{
	printf("Usage: %s [options] [TRACE...]\n"
	       "Per-process scheduler slice waits.  No TRACE or - reads stdin.\n\n"
	       "Options:\n%s"
	       "      --from=SRC         auto (default): scheduler messages on a\n"
	       "                         device whose trace has them, else events;\n"
	       "                         messages; or events\n"
	       "  -t, --tau MS           events: quiet time before a new episode\n"
	       "                         (default 8)\n"
	       "  -e, --episodes         one line per episode instead of per process\n",
	       prog, bt_common_usage);
}

static void parse_args(struct slicer *s, int argc, char **argv)
{
	static const struct option longopts[] = {
		BT_COMMON_LONGOPTS,
		{ "from", required_argument, NULL, 'F' },
		{ "tau", required_argument, NULL, 't' },
		{ "episodes", no_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	double ms;
	int ch;

	bt_opts_init(&s->o, argv[0]);
	s->tau = 8000000;
	while ((ch = tool_getopt(&s->o, argc, argv, BT_COMMON_SHORTOPTS "t:e",
				 longopts, usage)) != -1) {
		switch (ch) {
		case 'F':
			if (!strcmp(optarg, "auto"))
				s->from = FROM_AUTO;
			else if (!strcmp(optarg, "messages"))
				s->from = FROM_MESSAGES;
			else if (!strcmp(optarg, "events"))
				s->from = FROM_EVENTS;
			else
				bt_usage_error(&s->o, "--from: '%s' is not auto, "
					       "messages or events", optarg);
			break;
		case 't':
			errno = 0;
			ms = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(ms > 0) ||
			    ms > 3600000)
				bt_usage_error(&s->o, "-t: '%s' is not a time in "
					       "milliseconds", optarg);
			s->tau = (uint64_t)(ms * 1e6);
			if (!s->tau)
				s->tau = 1;
			break;
		case 'e':
			s->per_episode = true;
			break;
		}
	}
	/* -p selects owners, not events: D and C run in other contexts. */
	s->has_pid = bt_opts_take_pid(&s->o, &s->want_pid);
}

int main(int argc, char **argv)
{
	static const char *const cols[] = {
		"pid", "comm", "source", "episodes", "censored",
		"wait_total_us", "wait_mean_us", "wait_p50_us", "wait_p95_us",
		"wait_p99_us", "wait_max_us", "idle_share", "foreign_bytes",
	};
	static const char *const ecols[] = {
		"start_s", "pid", "comm", "wait_us", "dev_idle_us",
		"foreign_bytes", "top_other_pid",
	};
	static struct slicer s;
	struct bt_tracker_opts to = { 0 };
	struct bt_slice_opts so = { 0 };
	struct bt_tracker *tr;
	const struct bt_request *rq;
	struct bt_event ev;
	int rc, status;

	parse_args(&s, argc, argv);
	s.r = bt_tool_open(&s.o, argc, argv);
	s.first = UINT64_MAX;
	so.tau_ns = s.tau;
	so.top_other = s.per_episode;
	so.episode = on_episode;
	so.arg = &s;
	if (bt_slice_new(&s.sl, &so) < 0)
		bt_tool_nomem(&s.o);
	bt_slice_attach(s.sl, &to);
	if (bt_tracker_new(&tr, &to) < 0 ||
	    bt_group_new(&s.rows, sizeof(struct row)) < 0)
		bt_tool_nomem(&s.o);
	if (s.per_episode)
		s.t = bt_tool_table(&s.o, ecols, BT_NCOLS(ecols));
	while ((rc = bt_tool_next(&s.o, s.r, &ev, &s.first)) > 0) {
		tool_seen(&s.seen, &ev);
		rq = NULL;
		if (ev.category & BT_TC_PC)
			continue;
		if (!bt_event_is_note(&ev))
			bt_tracker_feed(tr, &ev, &rq);
		else if (!in_window(&s, &ev))
			continue;
		if (bt_slice_feed(s.sl, &ev, rq) < 0)
			bt_tool_nomem(&s.o);
	}
	bt_slice_finish(s.sl);
	if (!s.per_episode) {
		s.t = bt_tool_table(&s.o, cols, BT_NCOLS(cols));
		print(&s, s.t);
	}
	explain(&s);
	status = tool_done(&s.o, s.r, s.t, rc);
	tool_free_rows(s.rows, offsetof(struct row, wait));
	bt_slice_free(s.sl);
	bt_tracker_free(tr);
	bt_reader_free(s.r);
	return status;
}
