// SPDX-License-Identifier: MIT
/*
 * btsize - request-size histograms in power-of-two buckets, per device and
 * op: R, W, D (discard), F (flush without data) and N (any other request
 * without data).  By default every D event counts (what the device saw);
 * --at=Q counts every Q event instead (what was submitted).  -P splits by
 * owner process, the pid of the first bio of the request the event belongs
 * to; -g draws biolatency-style bar charts instead of the table.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"

enum { OP_R, OP_W, OP_D, OP_F, OP_N, NOPS };
static const char op_name[NOPS][2] = { "R", "W", "D", "F", "N" };

struct grp {
	struct bt_log2 h[NOPS];
};

struct size {
	struct bt_opts o;
	bool per_pid, graph, at_q, has_pid;
	uint32_t want_pid;
	struct bt_group *g;	/* struct grp by dev and owner pid */
	const struct bt_reader *r;
};

static struct grp *grp_get(struct size *s, uint32_t dev, uint32_t pid)
{
	struct grp *x = bt_group_get(s->g, dev, s->per_pid ? pid : 0, 0);

	if (!x)
		bt_tool_nomem(&s->o);
	return x;
}

static int op_of(const struct bt_event *ev)
{
	if (ev->category & BT_TC_DISCARD)
		return OP_D;
	if (ev->bytes == 0)
		return (ev->category & BT_TC_FLUSH) ? OP_F : OP_N;
	return (ev->category & BT_TC_WRITE) ? OP_W : OP_R;
}

/* Buckets from the first to the last non-empty one. */
static int span(const struct bt_log2 *h, unsigned *lo, unsigned *hi)
{
	unsigned k;

	if (!h->total)
		return 0;
	for (k = 0; !h->count[k]; k++)
		;
	*lo = k;
	for (k = 64; !h->count[k]; k--)
		;
	*hi = k;
	return 1;
}

static void print_table(struct size *s, struct bt_table *t)
{
	struct bt_group_key key;
	const struct grp *g;

	for (size_t i = 0; (g = bt_group_at(s->g, i, &key)); i++) {

		for (int op = 0; op < NOPS; op++) {
			const struct bt_log2 *h = &g->h[op];
			unsigned lo, hi;

			if (!span(h, &lo, &hi))
				continue;
			for (unsigned k = lo; k <= hi; k++) {
				uint64_t a, b;

				bt_log2_bounds(k, &a, &b);
				bt_table_dev(t, key.dev);
				if (s->per_pid) {
					bt_table_u64(t, key.pid);
					bt_table_str(t, bt_tool_comm(s->r, key.pid));
				}
				bt_table_str(t, op_name[op]);
				bt_table_u64(t, a);
				bt_table_u64(t, b);
				bt_table_u64(t, h->count[k]);
				bt_table_double(t, 100.0 * (double)h->count[k] /
						(double)h->total, 2);
				bt_table_end_row(t);
			}
		}
	}
}

/* Like bcc's biolatency: one bar per bucket, 40 stars for the largest. */
static void print_graph(struct size *s)
{
	static const char stars[] = "****************************************";

	struct bt_group_key key;
	const struct grp *g;

	for (size_t i = 0; (g = bt_group_at(s->g, i, &key)); i++) {

		for (int op = 0; op < NOPS; op++) {
			const struct bt_log2 *h = &g->h[op];
			uint64_t max = 0;
			unsigned lo, hi;

			if (!span(h, &lo, &hi))
				continue;
			for (unsigned k = lo; k <= hi; k++)
				if (h->count[k] > max)
					max = h->count[k];
			printf("dev %u,%u", BT_DEV_MAJOR(key.dev),
			       BT_DEV_MINOR(key.dev));
			if (s->per_pid)
				printf(" pid %" PRIu32 " comm %s", key.pid,
				       bt_tool_comm(s->r, key.pid));
			printf(" op %s (%s events)\n", op_name[op],
			       s->at_q ? "Q" : "D");
			printf("%28s : count     distribution\n", "bytes");
			for (unsigned k = lo; k <= hi; k++) {
				uint64_t a, b;
				int n = (int)(40 * h->count[k] / max);

				bt_log2_bounds(k, &a, &b);
				printf("%12" PRIu64 " -> %-12" PRIu64 " : %-9"
				       PRIu64 "|%-40.*s|\n", a, b, h->count[k],
				       n, stars);
			}
			printf("\n");
		}
	}
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
	       prog, bt_common_usage);
}

static void parse_args(struct size *s, int argc, char **argv)
{
	static const struct option longopts[] = {
		BT_COMMON_LONGOPTS,
		{ "at", required_argument, NULL, 'A' },
		{ "per-process", no_argument, NULL, 'P' },
		{ "graph", no_argument, NULL, 'g' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	bt_opts_init(&s->o, argv[0]);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, BT_COMMON_SHORTOPTS "Pg",
				 longopts, NULL)) != -1) {
		if (bt_opts_common(&s->o, ch, optarg))
			continue;
		switch (ch) {
		case 'h':
			usage(s->o.prog);
			exit(BT_EXIT_OK);
		case 'A':
			if (!strcmp(optarg, "D"))
				s->at_q = false;
			else if (!strcmp(optarg, "Q"))
				s->at_q = true;
			else
				bt_usage_error(&s->o, "bad --at '%s' (want D or Q)",
					       optarg);
			break;
		case 'P':
			s->per_pid = true;
			break;
		case 'g':
			s->graph = true;
			break;
		default:
			bt_opts_bad_option(&s->o, argv, "dpw");
		}
	}
	/* -p selects owners, not events: D runs in other contexts. */
	s->has_pid = bt_opts_take_pid(&s->o, &s->want_pid);
	if (s->has_pid)
		s->per_pid = true;
}

int main(int argc, char **argv)
{
	static const char *const cols[] = {
		"dev", "op", "lo_bytes", "hi_bytes", "count", "pct",
	};
	static const char *const pcols[] = {
		"dev", "pid", "comm", "op", "lo_bytes", "hi_bytes", "count",
		"pct",
	};
	static struct size s;
	struct bt_tracker *tr = NULL;
	const struct bt_request *rq;
	struct bt_reader *r;
	struct bt_event ev;
	uint64_t first = UINT64_MAX;
	uint32_t want;
	int rc, status = BT_EXIT_OK;

	parse_args(&s, argc, argv);
	r = bt_tool_open(&s.o, argc, argv);
	s.r = r;
	if (bt_group_new(&s.g, sizeof(struct grp)) < 0)
		bt_tool_nomem(&s.o);
	want = s.at_q ? BT_A_QUEUE : BT_A_ISSUE;
	/* Owners need the tracker; plain histograms do not. */
	if (s.per_pid && bt_tracker_new(&tr, NULL) < 0)
		bt_tool_nomem(&s.o);
	while ((rc = bt_tool_next(&s.o, r, &ev, &first)) > 0) {
		uint32_t pid = 0;

		/*
		 * Pass-through (PC) commands are requests the device saw too
		 * (`D N 0` from a disk utility): counted, by their own pid.
		 */
		if (bt_event_is_note(&ev))
			continue;
		if (tr) {
			bt_tracker_feed(tr, &ev, &rq);
			pid = rq ? rq->pid : ev.pid;
		}
		if (ev.action != want || (s.has_pid && pid != s.want_pid))
			continue;
		bt_log2_add(&grp_get(&s, ev.dev, pid)->h[op_of(&ev)],
			    ev.bytes);
	}
	if (rc < 0)
		status = BT_EXIT_DATA;
	bt_group_sort(s.g, NULL);
	if (s.graph) {
		print_graph(&s);
		if (fflush(stdout)) {
			fprintf(stderr, "%s: write error: %s\n", s.o.prog,
				strerror(errno));
			status = BT_EXIT_DATA;
		}
	} else {
		struct bt_table *t = s.per_pid ? bt_tool_table(&s.o, pcols, BT_NCOLS(pcols)) :
						 bt_tool_table(&s.o, cols, BT_NCOLS(cols));

		print_table(&s, t);
		if (bt_tool_table_done(&s.o, t))
			status = BT_EXIT_DATA;
	}
	bt_tool_warnings(&s.o, r);
	bt_tracker_free(tr);
	bt_reader_free(r);
	bt_group_free(s.g);
	return status;
}
