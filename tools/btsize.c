// SPDX-License-Identifier: MIT
/*
 * btsize - request-size histograms in power-of-two buckets, per device and
 * op: R, W, D (discard), F (flush without data) and N (any other request
 * without data), computed by lib/size.c (btkit(7) "Size histogram").  By
 * default every D event counts (what the device saw); --at=Q counts every
 * Q event instead (what was submitted).  -P splits by owner process, the
 * pid of the first bio of the request the event belongs to, which needs
 * the tracker; -g draws biolatency-style bar charts instead of the table.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"

struct size {
	struct tool_opts o;
	struct bt_size_opts so;
	bool graph;
	const struct bt_reader *r;
	struct bt_table *t;
};

/* Like bcc's biolatency: one bar per bucket, 40 stars for the largest. */
static void put_graph(const struct bt_size_hist *x, void *arg)
{
	static const char stars[] = "****************************************";
	const struct size *s = arg;
	uint64_t max = 0;
	unsigned lo, hi;

	bt_log2_span(x->h, &lo, &hi);
	for (unsigned k = lo; k <= hi; k++)
		if (x->h->count[k] > max)
			max = x->h->count[k];
	printf("dev %u,%u", BT_DEV_MAJOR(x->dev), BT_DEV_MINOR(x->dev));
	if (s->so.per_pid)
		printf(" pid %" PRIu32 " comm %s", x->pid,
		       tool_comm(s->r, x->pid));
	printf(" op %c (%s events)\n", x->op, s->so.at_q ? "Q" : "D");
	printf("%28s : count     distribution\n", "bytes");
	for (unsigned k = lo; k <= hi; k++) {
		uint64_t a, b;
		int n = (int)(40 * x->h->count[k] / max);

		bt_log2_bounds(k, &a, &b);
		printf("%12" PRIu64 " -> %-12" PRIu64 " : %-9" PRIu64
		       "|%-40.*s|\n", a, b, x->h->count[k], n, stars);
	}
	printf("\n");
}

static void usage(const char *prog)
{
	printf("Usage: %s [options] [TRACE...]\n"
	       "Request-size histograms in power-of-two buckets per device and\n"
	       "op (R, W, D discard, F flush, N other).  No TRACE or - reads\n"
	       "stdin.\n\n"
	       "Options (-p PID selects the requests PID owns; implies -P):\n%s"
	       "      --at=D|Q           count D events (default: what the device\n"
	       "                         saw) or Q events (what was submitted)\n"
	       "  -P, --per-process      histograms per owner process\n"
	       "  -g, --graph            bar charts instead of the table\n",
	       prog, tool_common_usage);
}

static void parse_args(struct size *s, int argc, char **argv)
{
	static const struct option longopts[] = {
		TOOL_LONGOPTS,
		{ "at", required_argument, NULL, 'A' },
		{ "per-process", no_argument, NULL, 'P' },
		{ "graph", no_argument, NULL, 'g' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	tool_opts_init(&s->o, argv[0]);
	while ((ch = tool_getopt(&s->o, argc, argv, TOOL_SHORTOPTS "Pg",
				 longopts, usage)) != -1) {
		switch (ch) {
		case 'A':
			if (!strcmp(optarg, "D"))
				s->so.at_q = 0;
			else if (!strcmp(optarg, "Q"))
				s->so.at_q = 1;
			else
				tool_usage_error(&s->o, "bad --at '%s' (want D or Q)",
					       optarg);
			break;
		case 'P':
			s->so.per_pid = 1;
			break;
		case 'g':
			s->graph = true;
			break;
		}
	}
	/* -p selects owners, not events: D runs in other contexts. */
	if (s->graph && s->o.csv)
		tool_usage_error(&s->o, "-g draws bar charts, which have no CSV "
			       "form: use -g or -c");
	s->so.has_pid = tool_take_pid(&s->o, &s->so.pid);
	if (s->so.has_pid)
		s->so.per_pid = 1;
}

int main(int argc, char **argv)
{
	static struct size s;
	struct bt_tracker *tr = NULL;
	const struct bt_request *rq = NULL;
	struct bt_size *sz;
	struct bt_reader *r;
	struct bt_event ev;
	uint64_t first = UINT64_MAX;
	uint32_t seen = 0, need;
	bool filtered;
	int rc, status;

	parse_args(&s, argc, argv);
	s.r = r = tool_open(&s.o, argc, argv);
	if (bt_size_new(&sz, &s.so) < 0)
		tool_nomem(&s.o);
	/* Owners need the tracker; plain histograms do not. */
	if (s.so.per_pid && bt_tracker_new(&tr, NULL) < 0)
		tool_nomem(&s.o);
	/*
	 * Without them, the reader need not deliver the other actions.  Not
	 * with -d or -w, which pass events by more than action: -w counts
	 * from the first event of any action, which the tool must see, and
	 * a message on what the trace lacks names the actions -d passed.
	 */
	if (!tr && !s.o.has_dev && !s.o.has_window)
		bt_reader_set_actions(r, bt_size_actions(sz));
	need = 1u << (s.so.at_q ? BT_A_QUEUE : BT_A_ISSUE);
	filtered = tool_filtered(&s.o);
	while ((rc = tool_next_as(filtered, &s.o, r, &ev, &first)) > 0) {
		if (!(seen & need))
			tool_seen(&seen, &ev);
		if (tr)
			bt_tracker_feed(tr, &ev, &rq);
		if (bt_size_feed(sz, &ev, rq) < 0)
			tool_nomem(&s.o);
	}
	if (s.graph) {
		bt_size_rows(sz, put_graph, &s);
	} else {
		s.t = tool_table(&s.o, bt_size_cols(sz));
		bt_size_table(sz, s.t, r);
	}
	tool_explain_empty(&s.o, r, seen, need,
			   s.so.at_q ? "btsize --at=Q" : "btsize", s.so.at_q ?
			   "--at=Q counts the bios submitted (Q)" :
			   "the histograms count the requests dispatched (D)");
	status = tool_done(&s.o, r, s.t, rc);
	bt_tracker_free(tr);
	bt_reader_free(r);
	bt_size_free(sz);
	return status;
}
