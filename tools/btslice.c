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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"

struct slicer {
	struct tool_opts o;
	int from;		/* enum bt_slice_from */
	bool per_episode;
	bool has_pid;
	uint32_t want_pid;
	uint64_t tau;		/* ns */
	uint64_t first;		/* ns: first event, for start_s */
	uint32_t seen;		/* tool_seen() of the events read, to the first in need */
	struct bt_slice_sum *sum;	/* the per-process rows */
	struct bt_slice *sl;
	struct bt_reader *r;
	struct bt_table *t;	/* -e: episodes as they end */
};

static void on_episode(const struct bt_slice_ep *ep, void *arg)
{
	struct slicer *s = arg;

	if (s->has_pid && (ep->pid < 0 || (uint32_t)ep->pid != s->want_pid))
		return;
	if (bt_slice_sum_add(s->sum, ep) < 0)
		tool_nomem(&s->o);
	if (s->t && !ep->censored &&
	    bt_slice_wanted(s->sl, s->from, ep->dev, ep->source))
		bt_slice_ep_row(s->t, ep, s->first, s->r);
}

#define EVENTS	(1u << BT_A_GETRQ | 1u << BT_A_INSERT)

/* What a source needs to see a wait: tool_seen() bits. */
static uint32_t need_of(const struct slicer *s)
{
	switch (s->from) {
	case BT_SLICE_FROM_MESSAGES:
		return TOOL_SEEN_MESSAGE;
	case BT_SLICE_FROM_EVENTS:
		return EVENTS;
	default:
		return EVENTS | TOOL_SEEN_MESSAGE;
	}
}

/* Without the events a source needs there is no wait to see. */
static void explain(const struct slicer *s)
{
	switch (s->from) {
	case BT_SLICE_FROM_MESSAGES:
		tool_explain_empty(&s->o, s->r, s->seen, need_of(s),
				   "btslice --from=messages", "--from=messages "
				   "follows CFQ's or BFQ's queue messages");
		break;
	case BT_SLICE_FROM_EVENTS:
		tool_explain_empty(&s->o, s->r, s->seen, need_of(s),
				   "btslice --from=events", "a wait starts when "
				   "a request enters the scheduler (G, or I)");
		break;
	default:
		tool_explain_empty(&s->o, s->r, s->seen, need_of(s),
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
	       prog, tool_common_usage);
}

static void parse_args(struct slicer *s, int argc, char **argv)
{
	static const struct option longopts[] = {
		TOOL_LONGOPTS,
		{ "from", required_argument, NULL, 'F' },
		{ "tau", required_argument, NULL, 't' },
		{ "episodes", no_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	double ms;
	int ch;

	tool_opts_init(&s->o, argv[0]);
	s->tau = 8000000;
	while ((ch = tool_getopt(&s->o, argc, argv, TOOL_SHORTOPTS "t:e",
				 longopts, usage)) != -1) {
		switch (ch) {
		case 'F':
			if (!strcmp(optarg, "auto"))
				s->from = BT_SLICE_FROM_AUTO;
			else if (!strcmp(optarg, "messages"))
				s->from = BT_SLICE_FROM_MESSAGES;
			else if (!strcmp(optarg, "events"))
				s->from = BT_SLICE_FROM_EVENTS;
			else
				tool_usage_error(&s->o, "--from: '%s' is not auto, "
					       "messages or events", optarg);
			break;
		case 't':
			errno = 0;
			ms = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(ms > 0) ||
			    ms > 3600000)
				tool_usage_error(&s->o, "-t: '%s' is not a time in "
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
	s->has_pid = tool_take_pid(&s->o, &s->want_pid);
}

int main(int argc, char **argv)
{
	static struct slicer s;
	struct bt_tracker_opts to = { 0 };
	struct bt_slice_opts so = { 0 };
	struct bt_tracker *tr;
	const struct bt_request *rq;
	struct bt_event ev;
	uint32_t seen = 0, need;
	bool filtered;
	int rc, status;

	parse_args(&s, argc, argv);
	s.r = tool_open(&s.o, argc, argv);
	s.first = UINT64_MAX;
	so.tau_ns = s.tau;
	so.top_other = s.per_episode;
	so.episode = on_episode;
	so.arg = &s;
	if (bt_slice_new(&s.sl, &so) < 0)
		tool_nomem(&s.o);
	bt_slice_attach(s.sl, &to);
	if (bt_tracker_new(&tr, &to) < 0 || bt_slice_sum_new(&s.sum) < 0)
		tool_nomem(&s.o);
	if (s.per_episode)
		s.t = tool_table(&s.o, bt_slice_ep_cols());
	need = need_of(&s);
	filtered = tool_filtered(&s.o);
	while ((rc = tool_next_as(filtered, &s.o, s.r, &ev, &s.first)) > 0) {
		if (!(seen & need))
			tool_seen(&seen, &ev);
		rq = NULL;
		if (ev.category & BT_TC_PC)
			continue;
		if (!bt_event_is_note(&ev))
			bt_tracker_feed(tr, &ev, &rq);
		else if (!tool_note_in_window(&s.o, s.first, &ev))
			continue;
		if (bt_slice_feed(s.sl, &ev, rq) < 0)
			tool_nomem(&s.o);
	}
	s.seen = seen;
	bt_slice_finish(s.sl);
	if (!s.per_episode) {
		s.t = tool_table(&s.o, bt_slice_sum_cols());
		bt_slice_sum_table(s.sum, s.t, s.sl, s.from, s.r);
	}
	explain(&s);
	status = tool_done(&s.o, s.r, s.t, rc);
	bt_slice_sum_free(s.sum);
	bt_slice_free(s.sl);
	bt_tracker_free(tr);
	bt_reader_free(s.r);
	return status;
}
