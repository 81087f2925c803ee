// SPDX-License-Identifier: MIT
/*
 * btplot - pictures of traces as SVG: a latency heat map, offset over
 * time per process group, IOPS and throughput, queue depth, and lanes of
 * who waited (fdatasync episodes, slice waits) while whom was served.
 * Each TRACE (LABEL=PATH names it) is read on its own by the reader, the
 * tracker and, when the picture needs them, the slice and fdatasync
 * analyses; lib/plot.c bins what they find into grids of fixed size and
 * draws every trace on shared axes.  Binning: btplot(1) "BINNING".
 * --report hands every trace to lib/report.c instead: every kind and the
 * tables of the analysis tools on one HTML page.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

#define MAX_TRACES	8

struct plotter {
	struct tool_opts o;
	struct bt_plot_opts po;
	bool has_kind, has_pid, report;
	uint32_t want_pid;
	const char *out;	/* -o FILE, NULL: stdout */
	struct bt_plot *plots[MAX_TRACES];
	size_t n;
	struct bt_report *rp;	/* --report */
	/* the trace being read */
	struct bt_plot *cur;
	struct bt_reader *r;
	struct bt_slice *sl;
	int nomem;
};

static void usage(const char *prog)
{
	printf("Usage: %s -k KIND [options] [[LABEL=]TRACE...]\n"
	       "       %s --report [options] [[LABEL=]TRACE...]\n"
	       "Draw traces as one SVG picture (stdout without -o); several\n"
	       "traces share the axes and the colour scale.  No TRACE or - reads\n"
	       "stdin.  KIND: heatmap, offset, iops, depth, waits.  --report\n"
	       "writes one HTML page with every kind, the tables of btsync,\n"
	       "btslice, btlat, btmerge and btsize, and btdiff's with two traces\n"
	       "or more.\n\n"
	       "Options (-p PID selects the requests and episodes PID owns):\n"
	       "  -d, --device MAJ,MIN   only events of this device\n"
	       "  -p, --pid PID          only what this process owns\n"
	       "  -w, --window START:END only events from START to before END seconds\n"
	       "                         after the first event (either side may be empty)\n"
	       "  -k, --kind KIND        the picture to draw\n"
	       "      --report           every picture and table as one HTML page\n"
	       "                         (not with -k or -p)\n"
	       "  -o, --output FILE      write the SVG (HTML) to FILE\n"
	       "      --metric M         heatmap: q2c (default), d2c, q2d, fsync, slice\n"
	       "      --op               heatmap: one panel per op\n"
	       "      --bin SECS         iops, depth, waits: column width to start\n"
	       "                         from (default: automatic)\n"
	       "      --top N            offset: process groups in colour (1-7,\n"
	       "                         default 7); waits: lanes (default 12)\n"
	       "  -h, --help             this help\n"
	       "  -V, --version          print the version\n", prog, prog);
}

static int pick(const char *arg, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(arg, names[i]))
			return i;
	return -1;
}

static void parse_args(struct plotter *pl, int argc, char **argv)
{
	static const char *const kinds[] = {
		"heatmap", "offset", "iops", "depth", "waits",
	};
	static const char *const metrics[] = {
		"q2c", "d2c", "q2d", "fsync", "slice",
	};
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "pid", required_argument, NULL, 'p' },
		{ "window", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "kind", required_argument, NULL, 'k' },
		{ "output", required_argument, NULL, 'o' },
		{ "metric", required_argument, NULL, 'M' },
		{ "op", no_argument, NULL, 'O' },
		{ "bin", required_argument, NULL, 'B' },
		{ "top", required_argument, NULL, 'T' },
		{ "report", no_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	double v;
	int ch, k;

	tool_opts_init(&pl->o, argv[0]);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "d:p:w:hVk:o:", longopts,
				 NULL)) != -1) {
		if (ch != 'h' && tool_opts_common(&pl->o, ch, optarg))
			continue;
		switch (ch) {
		case 'h':
			usage(pl->o.prog);
			exit(TOOL_EXIT_OK);
		case 'k':
			if ((k = pick(optarg, kinds, 5)) < 0)
				tool_usage_error(&pl->o, "-k: '%s' is not heatmap, "
					       "offset, iops, depth or waits",
					       optarg);
			pl->po.kind = (uint8_t)k;
			pl->has_kind = true;
			break;
		case 'o':
			pl->out = optarg;
			break;
		case 'M':
			if ((k = pick(optarg, metrics, 5)) < 0)
				tool_usage_error(&pl->o, "--metric: '%s' is not q2c, "
					       "d2c, q2d, fsync or slice", optarg);
			pl->po.metric = (uint8_t)k;
			break;
		case 'O':
			pl->po.per_op = 1;
			break;
		case 'B':
			v = strtod(optarg, &end);
			if (end == optarg || *end || !(v >= 1e-6 && v <= 1e6))
				tool_usage_error(&pl->o, "--bin: '%s' is not a number "
					       "of seconds from 0.000001 to 1000000",
					       optarg);
			pl->po.bin_ns = (uint64_t)(v * 1e9 + 0.5);
			break;
		case 'R':
			pl->report = true;
			break;
		case 'T':
			k = (int)strtol(optarg, &end, 10);
			if (end == optarg || *end || k < 1 || k > 128)
				tool_usage_error(&pl->o, "--top: '%s' is not a number "
					       "from 1 to 128", optarg);
			pl->po.top = (unsigned)k;
			break;
		default:
			tool_bad_option(&pl->o, argv, "dpwko");
		}
	}
	if (pl->report && (pl->has_kind || pl->o.has_pid))
		tool_usage_error(&pl->o, "--report draws every kind of every "
			       "process: not with %s", pl->has_kind ? "-k" : "-p");
	if (!pl->has_kind && !pl->report)
		tool_usage_error(&pl->o, "-k KIND is required (heatmap, offset, "
			       "iops, depth or waits), or --report");
	if (argc - optind > MAX_TRACES)
		tool_usage_error(&pl->o, "at most %d traces", MAX_TRACES);
	pl->has_pid = tool_take_pid(&pl->o, &pl->want_pid);
}

static void check(struct plotter *pl, int rc)
{
	if (rc < 0)
		pl->nomem = 1;
}

static void on_done(const struct bt_request *rq, void *arg)
{
	struct plotter *pl = arg;

	if ((rq->flags & BT_RQ_EXPIRED) && pl->sl)
		bt_slice_forget(pl->sl, rq);
	if (!pl->has_pid || rq->pid == pl->want_pid)
		check(pl, bt_plot_request(pl->cur, rq));
}

static void on_sync(const struct bt_sync_ep *ep, void *arg)
{
	struct plotter *pl = arg;

	if (!pl->has_pid || ep->pid == pl->want_pid)
		check(pl, bt_plot_sync(pl->cur, ep, bt_reader_comm(pl->r, ep->pid)));
}

static void on_slice(const struct bt_slice_ep *ep, void *arg)
{
	struct plotter *pl = arg;

	if (pl->has_pid && (ep->pid < 0 || (uint32_t)ep->pid != pl->want_pid))
		return;
	check(pl, bt_plot_slice(pl->cur, ep, ep->pid < 0 ? NULL :
				bt_reader_comm(pl->r, (uint32_t)ep->pid)));
}

/* Read one trace into a new plot; 0, or -1 after the reader's message. */
static int read_trace(struct plotter *pl, const char *label)
{
	bool waits = pl->po.kind == BT_PLOT_WAITS,
	     heat = pl->po.kind == BT_PLOT_HEATMAP;
	bool want_sync = waits || (heat && pl->po.metric == BT_PLOT_FSYNC),
	     want_slice = waits || (heat && pl->po.metric == BT_PLOT_SLICE);
	struct bt_tracker_opts to = { .reader = pl->r, .done = on_done, .arg = pl };
	struct bt_sync_opts so = { .episode = on_sync, .arg = pl };
	struct bt_slice_opts lo = { .episode = on_slice, .arg = pl };
	struct bt_tracker *tr;
	struct bt_sync *sy = NULL;
	const struct bt_request *rq;
	uint64_t first = UINT64_MAX;
	struct bt_event ev;
	int rc;

	pl->sl = NULL;
	if (bt_plot_new(&pl->plots[pl->n], &pl->po, label) < 0)
		tool_nomem(&pl->o);
	pl->cur = pl->plots[pl->n++];
	if (bt_tracker_new(&tr, &to) < 0 ||
	    (want_sync && bt_sync_new(&sy, &so) < 0) ||
	    (want_slice && bt_slice_new(&pl->sl, &lo) < 0))
		tool_nomem(&pl->o);
	while ((rc = tool_next(&pl->o, pl->r, &ev, &first)) > 0) {
		rq = NULL;
		if (ev.category & BT_TC_PC)
			continue;
		if (!bt_event_is_note(&ev)) {
			bt_plot_event(pl->cur, &ev);
			bt_tracker_feed(tr, &ev, &rq);
			if (sy)
				check(pl, bt_sync_feed(sy, &ev, bt_sync_wants_comm(&ev) ?
						       bt_reader_comm(pl->r, ev.pid) : NULL));
		}
		if (pl->sl)
			check(pl, bt_slice_feed(pl->sl, &ev, rq));
	}
	bt_tracker_flush(tr);
	if (sy)
		bt_sync_finish(sy);
	if (pl->sl)
		bt_slice_finish(pl->sl);
	tool_warnings(&pl->o, pl->r);
	bt_slice_free(pl->sl);
	pl->sl = NULL;
	bt_sync_free(sy);
	bt_tracker_free(tr);
	return rc < 0 ? -1 : 0;
}

/*
 * Read one trace into the report: every event, notes too (scheduler
 * messages, as btslice takes them: those outside -w left out).
 */
static int read_report(struct plotter *pl, const char *label)
{
	uint64_t first = UINT64_MAX;
	struct bt_event ev;
	int rc;

	if (bt_report_begin(pl->rp, label, pl->r) < 0)
		tool_nomem(&pl->o);
	while ((rc = tool_next(&pl->o, pl->r, &ev, &first)) > 0) {
		if (bt_event_is_note(&ev) &&
		    !tool_note_in_window(&pl->o, first, &ev))
			continue;
		check(pl, bt_report_feed(pl->rp, &ev));
	}
	check(pl, bt_report_end(pl->rp));
	tool_warnings(&pl->o, pl->r);
	return rc < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	static struct plotter pl;
	char label[MAX_TRACES][64], *none[] = { argv[0], (char *)"-" };
	const char *labels[MAX_TRACES];
	int ntr, first, status = TOOL_EXIT_OK, rc;
	FILE *f = stdout;

	parse_args(&pl, argc, argv);
	if (pl.out && !(f = fopen(pl.out, "w"))) {
		fprintf(stderr, "%s: %s: %s\n", pl.o.prog, pl.out, strerror(errno));
		return TOOL_EXIT_DATA;
	}
	if (optind >= argc) {
		argv = none;
		optind = 1;
		argc = 2;
	}
	first = optind;
	ntr = argc - first;
	if (pl.report && bt_report_new(&pl.rp, &pl.po, (size_t)ntr) < 0)
		tool_nomem(&pl.o);
	for (int i = 0; i < ntr; i++) {
		argv[first + i] = (char *)tool_label(&pl.o, argv[first + i],
						     label[i], sizeof(label[i]));
		labels[i] = label[i];
	}
	tool_labels_check(&pl.o, labels, (size_t)ntr);
	for (int i = 0; i < ntr; i++) {
		/* tool_open opens argv[optind..argc): this one trace. */
		optind = first + i;
		pl.r = tool_open(&pl.o, first + i + 1, argv);
		if ((pl.report ? read_report(&pl, label[i]) :
				 read_trace(&pl, label[i])) < 0)
			status = TOOL_EXIT_DATA;
		bt_reader_free(pl.r);
	}
	if (pl.nomem)
		tool_nomem(&pl.o);
	rc = pl.report ? bt_report_write(pl.rp, f) :
			 bt_plot_render(pl.plots, pl.n, f);
	if ((f != stdout && fclose(f)) || rc < 0) {
		fprintf(stderr, "%s: %s: %s\n", pl.o.prog, pl.out ? pl.out : "-",
			strerror(rc < 0 ? -rc : errno));
		status = TOOL_EXIT_DATA;
	}
	for (size_t i = 0; i < pl.n; i++)
		bt_plot_free(pl.plots[i]);
	bt_report_free(pl.rp);
	return status;
}
