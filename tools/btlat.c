// SPDX-License-Identifier: MIT
/*
 * btlat - latency distributions per device and op from the rebuilt
 * requests: q2c, q2d, d2c, q2g, g2i and i2d (with --btt also q2q, q2m
 * and m2d) with count, mean and percentiles, computed by the library's
 * latency analysis (lib/lat.c: one sample per completed request, or
 * btt's weighting with --btt).  -e prints one line per request instead,
 * as requests complete, for plotting.  The tool only wires options,
 * reader, tracker, analysis and table.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"

struct lat {
	struct tool_opts o;
	struct bt_lat_opts lo;
	bool each;
	struct bt_table *t;
	uint64_t first;		/* ns: first event, origin of -e times */
};

static void print_each(const struct bt_lat_req *e, void *arg)
{
	struct lat *l = arg;

	bt_lat_req_row(l->t, e, l->first);
}

static void usage(const char *prog)
{
	printf("Usage: %s [options] [TRACE...]\n"
	       "Latency distributions (q2c, q2d, d2c, q2g, g2i, i2d) per device\n"
	       "and op from rebuilt requests.  No TRACE or - reads stdin.\n\n"
	       "Options (-p PID selects the requests PID owns; implies -P):\n%s"
	       "      --btt              weight as btt: q2c, q2d, d2c per bio,\n"
	       "                         the others per request (default: one\n"
	       "                         sample per request); adds q2q, q2m\n"
	       "                         and m2d per bio\n"
	       "  -P, --per-process      rows per owner process\n"
	       "  -e, --each             one line per request instead\n",
	       prog, tool_common_usage);
}

static void parse_args(struct lat *l, int argc, char **argv)
{
	static const struct option longopts[] = {
		TOOL_LONGOPTS,
		{ "btt", no_argument, NULL, 'B' },
		{ "per-process", no_argument, NULL, 'P' },
		{ "each", no_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	tool_opts_init(&l->o, argv[0]);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, TOOL_SHORTOPTS "Pe",
				 longopts, NULL)) != -1) {
		if (tool_opts_common(&l->o, ch, optarg))
			continue;
		switch (ch) {
		case 'h':
			usage(l->o.prog);
			exit(TOOL_EXIT_OK);
		case 'B':
			l->lo.btt = 1;
			break;
		case 'P':
			l->lo.per_pid = 1;
			break;
		case 'e':
			l->each = true;
			break;
		default:
			tool_bad_option(&l->o, argv, "dpw");
		}
	}
	/* -p selects owners, not events: D and C run in other contexts. */
	l->lo.has_pid = tool_take_pid(&l->o, &l->lo.pid);
	if (l->lo.has_pid)
		l->lo.per_pid = 1;
	if (l->each) {
		l->lo.request = print_each;
		l->lo.arg = l;
	}
}

/* The tracker's count of requests it gave up on or found still open. */
static void warn_unfinished(const struct lat *l, const struct bt_tracker *tr)
{
	struct bt_tracker_stats st;
	uint64_t given_up;

	bt_tracker_get_stats(tr, &st);
	given_up = st.expired + st.evicted + st.replaced;
	if (st.open + given_up)
		fprintf(stderr, "%s: warning: %" PRIu64 " requests never completed"
			" (%" PRIu64 " open at the end, %" PRIu64
			" given up): left out\n",
			l->o.prog, st.open + given_up, st.open, given_up);
}

/*
 * Nothing to print: say on stderr which events the trace (as filtered)
 * lacks for the table asked for, and what would work on it.
 */
static void explain_empty(const struct lat *l, const struct bt_lat_stats *s)
{
	const char *p = l->o.prog;
	uint64_t all = s->q + s->m + s->g + s->i + s->d + s->c;
	char have[160];

	snprintf(have, sizeof(have), "%" PRIu64 " Q, %" PRIu64 " G, %" PRIu64
		 " I, %" PRIu64 " D, %" PRIu64 " C", s->q, s->g, s->i, s->d,
		 s->c);
	if (!all)
		fprintf(stderr, "%s: no rows: no Q, G, I, D or C event%s\n", p,
			l->o.has_dev || l->o.has_window ?
			" passes -d and -w" : " in the trace");
	else if (l->lo.has_pid && (l->lo.btt ? s->q : s->completed + s->c))
		fprintf(stderr, "%s: no rows: no request owned by pid %" PRIu32
			" (%s)\n", p, l->lo.pid, have);
	else if (l->lo.btt && !s->q)
		fprintf(stderr, "%s: no rows: --btt times bios from their Q and"
			" the trace has no Q events (%s); without --btt, btlat"
			" times %s\n", p, have,
			s->d && s->c ? "d2c" : "what the events allow");
	else if (!l->lo.btt && !s->c)
		fprintf(stderr, "%s: no rows: no request completed, the trace has"
			" no C events (%s); %s\n", p, have,
			!(s->q && (s->g || s->i || s->d)) ?
			"every stage needs one" : l->each ?
			"btlat --btt without -e times q2g, g2i and i2d" :
			"--btt times q2g, g2i and i2d without them");
	else
		fprintf(stderr, "%s: no rows: no C completes a request seen"
			" before it (%s)\n", p, have);
}

int main(int argc, char **argv)
{
	static struct lat l;
	struct bt_tracker_opts to = { 0 };
	const struct bt_request *rq;
	struct bt_lat_stats ls;
	struct bt_tracker *tr;
	struct bt_reader *r;
	struct bt_lat *lat;
	struct bt_event ev;
	bool filtered;
	int rc, status = TOOL_EXIT_OK;

	parse_args(&l, argc, argv);
	r = tool_open(&l.o, argc, argv);
	/*
	 * Only the rows of -e name a request's owner from the tracker
	 * (rq->comm); the tables name owners from the reader at the end, and
	 * completions need not look names up for them.
	 */
	to.reader = l.each ? r : NULL;
	l.first = UINT64_MAX;
	if (bt_lat_new(&lat, &l.lo) < 0)
		tool_nomem(&l.o);
	bt_lat_attach(lat, &to);
	if (bt_tracker_new(&tr, &to) < 0)
		tool_nomem(&l.o);
	if (l.each)
		l.t = tool_table(&l.o, bt_lat_req_cols());
	filtered = tool_filtered(&l.o);
	while ((rc = tool_next_as(filtered, &l.o, r, &ev, &l.first)) > 0) {
		bt_tracker_feed(tr, &ev, &rq);
		bt_lat_feed(lat, &ev, rq);
	}
	if (rc < 0)
		status = TOOL_EXIT_DATA;
	bt_tracker_flush(tr);
	warn_unfinished(&l, tr);
	if (!l.each) {
		l.t = tool_table(&l.o, bt_lat_cols(lat));
		bt_lat_table(lat, l.t, r);
	}
	if (tool_table_done(&l.o, l.t))
		status = TOOL_EXIT_DATA;
	bt_lat_get_stats(lat, &ls);
	if (status == TOOL_EXIT_OK && !(l.each ? ls.completed : ls.rows))
		explain_empty(&l, &ls);
	if (ls.nomem) {
		fprintf(stderr, "%s: %s: percentiles incomplete\n", l.o.prog,
			strerror(ENOMEM));
		status = TOOL_EXIT_DATA;
	}
	tool_warnings(&l.o, r);
	bt_tracker_free(tr);
	bt_reader_free(r);
	bt_lat_free(lat);
	return status;
}
