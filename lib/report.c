// SPDX-License-Identifier: MIT
/*
 * report.c - btplot's report: one self-contained HTML page per run with a
 * title naming the traces, their devices and time spans, every picture
 * kind of lib/plot.c inline as SVG (so hover text works and nothing is
 * fetched: no script, font, style sheet or image from anywhere), and the
 * tables of btsync, btslice, btlat, btmerge and btsize as those tools
 * print them with their default options, written by the analyses' own
 * table functions into lib/table.c's HTML format; with two traces or
 * more, btdiff's comparison of them too.  Each trace is read once: one
 * tracker feeds every analysis and the five plots, and the same events go
 * to the comparison engine of lib/diff.c (its own tracker, as btdiff
 * runs it).  Its tables are written into memory when the trace ends,
 * while its reader still names the pids; the pictures and the comparison
 * are drawn at the end, all traces on shared axes.  Memory: the
 * analyses', the engine's and the plots' own bounds, plus the tables.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "btkit.h"
#include "internal.h"

#define NKINDS		5	/* enum bt_plot_kind */
#define MAX_DEVS	16	/* devices named per trace */
#define LABEL_MAX	64

enum { T_SYNC, T_SLICE, T_LAT, T_MERGE, T_SIZE, NTABLES };

struct trace {
	char label[LABEL_MAX];
	char *files;		/* the inputs' names, ", " between */
	const struct bt_reader *r;	/* between begin and end only */
	struct bt_tracker *tr;
	struct bt_done_link lat_done;	/* bt_lat_attach()'s callback */
	struct bt_lat *lat;
	struct bt_merge *merge;
	struct bt_size *size;
	struct bt_sync *sync;
	struct bt_sync_sum *sync_sum;
	struct bt_slice *slice;
	struct bt_slice_sum *slice_sum;
	struct bt_plot *plot[NKINDS];
	uint32_t dev[MAX_DEVS];
	size_t ndev, more_devs;
	uint64_t first, last;	/* ns: first and last I/O event */
	uint64_t events;	/* I/O events (not notes) */
	char *table[NTABLES];	/* HTML, or NULL: the table had no row */
	int err;		/* first -errno met */
};

/* btdiff's columns: group, metric, one per trace, ratio, ratio_LABEL... */
#define DIFF_COLS	(2 * BT_REPORT_MAX_TRACES + 2)

struct bt_report {
	struct bt_plot_opts po;
	struct trace *t[BT_REPORT_MAX_TRACES];
	size_t n;
	struct trace *cur;	/* between begin and end */
	struct bt_diff *diff;	/* every trace, as btdiff compares them */
	const char *diff_col[DIFF_COLS];
	char diff_ratio[BT_REPORT_MAX_TRACES][LABEL_MAX + 8];
	size_t diff_ncols;
};

/* What each picture shows, under its heading. */
static const struct {
	const char *id, *title, *what;
} kinds[NKINDS] = {
	{ "heatmap", "Latency heat map (Q2C)",
	  "Time across, latency up in power-of-two buckets, colour the number "
	  "of requests that completed in that cell: one band is a steady "
	  "device, a plume above it a stall." },
	{ "offset", "Offset over time",
	  "Where on the device each request went, one colour per process "
	  "group, reads and writes apart: streams are lines, random I/O a "
	  "cloud." },
	{ "iops", "IOPS and throughput",
	  "Requests completed per second and MB/s per op (reads, writes, "
	  "discards, flushes), one line per trace and op." },
	{ "depth", "Queue depth",
	  "Requests in flight over time: in the scheduler (inserted, not yet "
	  "dispatched) and in the driver (dispatched, not yet completed)." },
	{ "waits", "Who waited",
	  "One lane per process, the top ones by total wait: each fdatasync "
	  "episode and each slice wait drawn from its start to its end, so "
	  "who waited while whom was served shows at a glance." },
};

/* Each table: its section, and how a trace's analysis fills it. */
static struct bt_table_cols sync_cols(const struct trace *t)
{
	(void)t;
	return bt_sync_sum_cols();
}

static int sync_fill(struct trace *t, struct bt_table *tb)
{
	return bt_sync_sum_table(t->sync_sum, tb, t->r);
}

static struct bt_table_cols slice_cols(const struct trace *t)
{
	(void)t;
	return bt_slice_sum_cols();
}

static int slice_fill(struct trace *t, struct bt_table *tb)
{
	return bt_slice_sum_table(t->slice_sum, tb, t->slice,
				  BT_SLICE_FROM_AUTO, t->r);
}

static struct bt_table_cols lat_cols(const struct trace *t)
{
	return bt_lat_cols(t->lat);
}

static int lat_fill(struct trace *t, struct bt_table *tb)
{
	return bt_lat_table(t->lat, tb, t->r);
}

static struct bt_table_cols merge_cols(const struct trace *t)
{
	return bt_merge_cols(t->merge);
}

static int merge_fill(struct trace *t, struct bt_table *tb)
{
	return bt_merge_table(t->merge, tb, t->r);
}

static struct bt_table_cols size_cols(const struct trace *t)
{
	return bt_size_cols(t->size);
}

static int size_fill(struct trace *t, struct bt_table *tb)
{
	bt_size_table(t->size, tb, t->r);
	return 0;
}

static const struct {
	const char *id, *title, *what;
	const char *none;	/* why a trace may give no row */
	struct bt_table_cols (*cols)(const struct trace *t);
	int (*fill)(struct trace *t, struct bt_table *tb);
} tables[NTABLES] = {
	[T_SYNC] = { "btsync", "fdatasync episodes per process (btsync)",
		     "Latency from the first sync write to the completion of "
		     "the flush that made it durable, its data and flush "
		     "phases, and how each episode closed; btsync(1).",
		     "no fdatasync episode, which needs a sync write or flush "
		     "(Q) and the completion of its flush (C)",
		     sync_cols, sync_fill },
	[T_SLICE] = { "btslice", "Slice waits per process (btslice)",
		      "How long each process or scheduler queue waited for the "
		      "device while others were served, from the scheduler's "
		      "messages where the trace has them, else from the "
		      "events; btslice(1).",
		      "no slice wait, which needs requests entering the "
		      "scheduler (G or I) or scheduler messages",
		      slice_cols, slice_fill },
	[T_LAT] = { "btlat", "Latency per device and op (btlat)",
		    "Q2C, Q2D, D2C and the stages between, one sample per "
		    "completed request; btlat(1).",
		    "no request seen from its Q (or G, I, D) to its "
		    "completion (C)", lat_cols, lat_fill },
	[T_MERGE] = { "btmerge", "Merge ratios (btmerge)",
		      "Bios queued against requests dispatched, as btt's "
		      "Device Merge Information; btmerge(1).",
		      "no Q or A event, where btt starts counting merges",
		      merge_cols, merge_fill },
	[T_SIZE] = { "btsize", "Request sizes (btsize)",
		     "Power-of-two histograms of the bytes of each request the "
		     "device saw (D); btsize(1).",
		     "no request dispatched (D)", size_cols, size_fill },
};

static void trace_free(struct trace *t);

int bt_report_new(struct bt_report **out, const struct bt_plot_opts *po,
		  size_t ntraces)
{
	const struct bt_diff_opts dopt = { 0 };
	struct bt_report *rp;
	int rc;

	*out = NULL;
	rp = calloc(1, sizeof(*rp));
	if (!rp)
		return -ENOMEM;
	if (po)
		rp->po = *po;
	/*
	 * btdiff's defaults: by comm, every metric, every owner; not for one
	 * trace, whose page has no comparison (its engine would double the
	 * work of the pass).
	 */
	if (ntraces != 1 && (rc = bt_diff_new(&rp->diff, &dopt)) < 0) {
		free(rp);
		return rc;
	}
	*out = rp;
	return 0;
}

static void keep_err(struct trace *t, int rc)
{
	if (rc < 0 && !t->err)
		t->err = rc;
}

/* The tracker's finished requests: latency's and the plots'. */
static void on_done(const struct bt_request *rq, void *arg)
{
	struct trace *t = arg;

	bt_done_next(&t->lat_done, rq);
	for (int k = 0; k < NKINDS; k++)
		keep_err(t, bt_plot_request(t->plot[k], rq));
}

static void on_sync(const struct bt_sync_ep *ep, void *arg)
{
	struct trace *t = arg;

	keep_err(t, bt_sync_sum_add(t->sync_sum, ep));
	for (int k = 0; k < NKINDS; k++)
		keep_err(t, bt_plot_sync(t->plot[k], ep,
					 bt_reader_comm(t->r, ep->pid)));
}

static void on_slice(const struct bt_slice_ep *ep, void *arg)
{
	struct trace *t = arg;
	const char *comm = ep->pid < 0 ? NULL :
			   bt_reader_comm(t->r, (uint32_t)ep->pid);

	keep_err(t, bt_slice_sum_add(t->slice_sum, ep));
	for (int k = 0; k < NKINDS; k++)
		keep_err(t, bt_plot_slice(t->plot[k], ep, comm));
}

/* The inputs' names, as the reader has them. */
static int name_files(struct trace *t, const struct bt_reader *r)
{
	size_t n = bt_reader_inputs(r), len = 1;
	char *p;

	for (size_t i = 0; i < n; i++)
		len += strlen(bt_reader_input_name(r, i)) + 2;
	t->files = p = malloc(len);
	if (!p)
		return -ENOMEM;
	*p = '\0';
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s%s", i ? ", " : "",
			     bt_reader_input_name(r, i));
	return 0;
}

/* The analyses of one trace, with the tools' default options. */
static int trace_new(struct trace *t, const struct bt_plot_opts *base)
{
	struct bt_tracker_opts to = { .reader = t->r }, lat_to = { 0 };
	struct bt_sync_opts so = { .episode = on_sync, .arg = t };
	struct bt_slice_opts lo = { .episode = on_slice, .arg = t };
	const struct bt_merge_opts mo = { 0 };
	const struct bt_size_opts zo = { 0 };
	struct bt_plot_opts po;

	for (int k = 0; k < NKINDS; k++) {
		po = *base;
		po.kind = (uint8_t)k;
		if (k != BT_PLOT_HEATMAP)
			po.metric = 0;
		if (bt_plot_new(&t->plot[k], &po, t->label) < 0)
			return -ENOMEM;
	}
	if (bt_lat_new(&t->lat, NULL) < 0 || bt_merge_new(&t->merge, &mo) < 0 ||
	    bt_size_new(&t->size, &zo) < 0 || bt_sync_new(&t->sync, &so) < 0 ||
	    bt_sync_sum_new(&t->sync_sum) < 0 ||
	    bt_slice_new(&t->slice, &lo) < 0 ||
	    bt_slice_sum_new(&t->slice_sum) < 0)
		return -ENOMEM;
	/* bt_lat_attach() sets the callback rather than chaining it. */
	bt_lat_attach(t->lat, &lat_to);
	t->lat_done.fn = lat_to.done;
	t->lat_done.arg = lat_to.arg;
	to.done = on_done;
	to.arg = t;
	bt_merge_attach(t->merge, &to);
	bt_slice_attach(t->slice, &to);
	return bt_tracker_new(&t->tr, &to);
}

int bt_report_begin(struct bt_report *rp, const char *label,
		    const struct bt_reader *r)
{
	struct trace *t;
	int rc;

	if (!rp || !r || rp->cur)
		return -EINVAL;
	if (rp->n == BT_REPORT_MAX_TRACES)
		return -E2BIG;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	snprintf(t->label, sizeof(t->label), "%s", label ? label : "");
	t->r = r;
	t->first = UINT64_MAX;
	if ((rc = name_files(t, r)) < 0 || (rc = trace_new(t, &rp->po)) < 0 ||
	    (rp->diff && (rc = bt_diff_begin(rp->diff, t->label, r)) < 0)) {
		trace_free(t);
		return rc;
	}
	rp->t[rp->n++] = t;
	rp->cur = t;
	return 0;
}

static void add_dev(struct trace *t, uint32_t dev)
{
	for (size_t i = 0; i < t->ndev; i++)
		if (t->dev[i] == dev)
			return;
	if (t->ndev < MAX_DEVS)
		t->dev[t->ndev++] = dev;
	else
		t->more_devs = 1;
}

/*
 * Each analysis gets the events its tool gives it: the comparison,
 * latency, merges and sizes every event (btsize without -P has no
 * tracker: no request),
 * slice waits all but pass-through commands, fdatasync episodes and the
 * plots I/O events only.
 */
int bt_report_feed(struct bt_report *rp, const struct bt_event *ev)
{
	struct trace *t = rp->cur;
	const struct bt_request *rq = NULL;
	int note = bt_event_is_note(ev), pc = (ev->category & BT_TC_PC) != 0;

	if (!t)
		return -EINVAL;
	if (rp->diff)
		keep_err(t, bt_diff_feed(rp->diff, ev));
	bt_tracker_feed(t->tr, ev, &rq);
	keep_err(t, bt_lat_feed(t->lat, ev, rq));
	keep_err(t, bt_merge_feed(t->merge, ev, rq));
	keep_err(t, bt_size_feed(t->size, ev, NULL));
	if (pc)
		return t->err;
	keep_err(t, bt_slice_feed(t->slice, ev, rq));
	if (note)
		return t->err;
	keep_err(t, bt_sync_feed(t->sync, ev, bt_sync_wants_comm(ev) ?
				 bt_reader_comm(t->r, ev->pid) : NULL));
	for (int k = 0; k < NKINDS; k++)
		bt_plot_event(t->plot[k], ev);
	if (t->first == UINT64_MAX)
		t->first = ev->time;
	t->last = ev->time;
	t->events++;
	add_dev(t, ev->dev);
	return t->err;
}

/*
 * One table as HTML into *out (NULL when it got no row, so the page can
 * say so instead of showing a bare header): through a memory stream, as
 * the table writer writes to a FILE.
 */
static int table_html(struct trace *t, int i, char **out)
{
	struct bt_table_cols c = tables[i].cols(t);
	struct bt_table *tb;
	size_t len;
	FILE *f;
	uint64_t rows = 0;
	int rc, fill;

	*out = NULL;
	f = open_memstream(out, &len);
	if (!f)
		return -ENOMEM;
	rc = bt_table_new(&tb, f, BT_TABLE_HTML, 1, c.name, c.n);
	if (rc == 0) {
		fill = tables[i].fill(t, tb);
		rows = bt_table_rows(tb);
		rc = bt_table_free(tb);
		if (fill < 0 && !rc)
			rc = fill;
	}
	if (fclose(f) != 0 && !rc)
		rc = -ENOMEM;
	if (rc < 0 || !rows) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

/*
 * btdiff's columns for the traces read so far, named as bt_diff_print()
 * names them: a ratio_LABEL column per trace after the first only with
 * three traces or more.
 */
static void diff_names(struct bt_report *rp)
{
	size_t n = 0;

	rp->diff_col[n++] = "group";
	rp->diff_col[n++] = "metric";
	for (size_t i = 0; i < rp->n; i++)
		rp->diff_col[n++] = rp->t[i]->label;
	rp->diff_col[n++] = "ratio";
	for (size_t i = 1; rp->n >= 3 && i < rp->n; i++) {
		snprintf(rp->diff_ratio[i], sizeof(rp->diff_ratio[i]),
			 "ratio_%s", rp->t[i]->label);
		rp->diff_col[n++] = rp->diff_ratio[i];
	}
	rp->diff_ncols = n;
}

int bt_report_end(struct bt_report *rp)
{
	struct trace *t = rp ? rp->cur : NULL;

	if (!t)
		return -EINVAL;
	bt_tracker_flush(t->tr);
	bt_sync_finish(t->sync);
	bt_slice_finish(t->slice);
	if (rp->diff)
		keep_err(t, bt_diff_end(rp->diff));
	for (int i = 0; i < NTABLES; i++)
		keep_err(t, table_html(t, i, &t->table[i]));
	diff_names(rp);
	/* What the page needs from here on is in the plots and tables. */
	t->r = NULL;
	rp->cur = NULL;
	return t->err;
}

/* Text escaped for HTML (the SVG writer's escaping is HTML's too). */
static void put_text(FILE *f, const char *s)
{
	char buf[512];
	size_t n = bt_svg_escape(buf, sizeof(buf), s);
	char *p = n < sizeof(buf) ? buf : malloc(n + 1);

	if (!p)
		return;
	if (p != buf)
		bt_svg_escape(p, n + 1, s);
	fputs(p, f);
	if (p != buf)
		free(p);
}

static const char page_style[] =
	"body{font-family:DejaVu Sans,Verdana,sans-serif;color:#222;"
	"margin:24px auto;max-width:1240px;padding:0 12px}"
	"h1{font-size:22px}h2{font-size:18px;margin-top:32px;"
	"border-bottom:1px solid #ccc}h3{font-size:15px}"
	"svg{max-width:100%;height:auto;display:block}"
	".scroll{overflow-x:auto}"
	"table{border-collapse:collapse;font-size:12px;margin:6px 0 14px}"
	"th,td{border:1px solid #ddd;padding:2px 6px;white-space:nowrap}"
	"th{background:#eee;text-align:left}"
	"td.num{text-align:right;font-variant-numeric:tabular-nums}"
	"tbody tr:nth-child(even){background:#f8f8f8}"
	"nav a{margin-right:12px}p.none{color:#777}"
	"p.verdict{font-weight:bold}";

/* The traces' table: label, inputs, devices, I/O events, span. */
static struct bt_table_cols traces_cols(const struct bt_report *rp)
{
	static const char *const cols[] = {
		"trace", "files", "devices", "events", "span_s",
	};

	(void)rp;
	return (struct bt_table_cols){ cols, BT_TABLE_NCOLS(cols) };
}

static int traces_fill(struct bt_report *rp, struct bt_table *tb)
{
	for (size_t i = 0; i < rp->n; i++) {
		const struct trace *t = rp->t[i];
		char devs[MAX_DEVS * 12 + 16], *p = devs;

		*p = '\0';
		for (size_t d = 0; d < t->ndev; d++)
			p += sprintf(p, "%s%u,%u", d ? " " : "",
				     BT_DEV_MAJOR(t->dev[d]),
				     BT_DEV_MINOR(t->dev[d]));
		if (t->more_devs)
			strcpy(p, " ...");
		bt_table_str(tb, t->label);
		bt_table_str(tb, t->files);
		bt_table_str(tb, t->ndev ? devs : "-");
		bt_table_u64(tb, t->events);
		bt_table_s(tb, t->events ? t->last - t->first : 0);
		bt_table_end_row(tb);
	}
	return 0;
}

/* btdiff's table of the traces, with btdiff's default options. */
static struct bt_table_cols diff_cols(const struct bt_report *rp)
{
	return (struct bt_table_cols){ rp->diff_col, rp->diff_ncols };
}

static int diff_fill(struct bt_report *rp, struct bt_table *tb)
{
	return bt_diff_table(rp->diff, tb);
}

/*
 * btdiff's verdict line (which it prints on stderr, or after the table
 * with --verdict), as a paragraph under the table.
 */
static int diff_verdict(struct bt_report *rp, FILE *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int rc;

	if (!m)
		return -ENOMEM;
	rc = bt_diff_verdict(rp->diff, m);
	if (fclose(m) != 0 && !rc)
		rc = -ENOMEM;
	if (rc == 0) {
		if (len && buf[len - 1] == '\n')
			buf[len - 1] = '\0';
		fputs("<p class=\"verdict\">", f);
		put_text(f, buf);
		fputs("</p>\n", f);
	}
	free(buf);
	return rc;
}

/*
 * The tables over all traces, before the pictures, each written by its
 * engine straight into the page, when the report has at least min_traces
 * traces, and what goes under the table (when under is set).
 */
static const struct {
	const char *id, *title, *what;
	size_t min_traces;
	struct bt_table_cols (*cols)(const struct bt_report *rp);
	int (*fill)(struct bt_report *rp, struct bt_table *tb);
	int (*under)(struct bt_report *rp, FILE *f);
} cross[] = {
	{ "traces", "Traces", "Each trace read, its files, the devices in "
	  "its events, and the time from its first I/O event to its last.",
	  1, traces_cols, traces_fill, NULL },
	{ "btdiff", "The traces compared (btdiff)", "Every analysis of each "
	  "trace side by side, processes pooled into groups by name (up to "
	  "its first '/'), one row per group and metric, a column per trace "
	  "and the ratio of the last to the first (with three traces or "
	  "more, of each to the first); under it, btdiff's verdict: per "
	  "group the trace with the lowest fdatasync p99 and the one with "
	  "the highest throughput; btdiff(1).",
	  2, diff_cols, diff_fill, diff_verdict },
};

#define NCROSS	(sizeof(cross) / sizeof(cross[0]))

/* Enough traces for section i, and a comparison made when it needs one. */
static int cross_shown(const struct bt_report *rp, size_t i)
{
	return rp->n >= cross[i].min_traces &&
	       (cross[i].min_traces < 2 || rp->diff);
}

static int cross_table(struct bt_report *rp, size_t i, FILE *f)
{
	struct bt_table_cols c = cross[i].cols(rp);
	struct bt_table *tb;
	int rc, fill;

	fprintf(f, "<h2 id=\"%s\">%s</h2>\n<p>%s</p>\n<div class=\"scroll\">\n",
		cross[i].id, cross[i].title, cross[i].what);
	rc = bt_table_new(&tb, f, BT_TABLE_HTML, 1, c.name, c.n);
	if (rc < 0)
		return rc;
	fill = cross[i].fill(rp, tb);
	rc = bt_table_free(tb);
	fputs("</div>\n", f);
	if (rc == 0 && fill == 0 && cross[i].under)
		fill = cross[i].under(rp, f);
	return rc < 0 ? rc : fill;
}

static void put_head(const struct bt_report *rp, FILE *f)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n<title>btplot report: ", f);
	for (size_t i = 0; i < rp->n; i++) {
		fputs(i ? ", " : "", f);
		put_text(f, rp->t[i]->label);
	}
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n"
		"<h1>btplot report: ", page_style);
	for (size_t i = 0; i < rp->n; i++) {
		const struct trace *t = rp->t[i];
		char span[32];

		bt_svg_num(span, sizeof(span), t->events ?
			   (double)(t->last - t->first) / 1e9 : 0, 3);
		fputs(i ? (i + 1 == rp->n ? " and " : ", ") : "", f);
		put_text(f, t->label);
		fprintf(f, " (%s", t->ndev > 1 ? "devices " : t->ndev ? "device " : "");
		for (size_t d = 0; d < t->ndev; d++)
			fprintf(f, "%s%u,%u", d ? " " : "",
				BT_DEV_MAJOR(t->dev[d]), BT_DEV_MINOR(t->dev[d]));
		fprintf(f, "%s%s%s s)", t->more_devs ? " ..." : "",
			t->ndev ? ", " : "", span);
	}
	fputs("</h1>\n<nav>", f);
	for (size_t i = 0; i < NCROSS; i++)
		if (cross_shown(rp, i))
			fprintf(f, "<a href=\"#%s\">%s</a>\n", cross[i].id,
				cross[i].title);
	for (int k = 0; k < NKINDS; k++)
		fprintf(f, "<a href=\"#%s\">%s</a>\n", kinds[k].id, kinds[k].title);
	for (int i = 0; i < NTABLES; i++)
		fprintf(f, "<a href=\"#%s\">%s</a>\n", tables[i].id, tables[i].id);
	fputs("</nav>\n", f);
}

/*
 * A picture drawn into memory, then copied without its XML declaration
 * and namespace: inside HTML the parser puts <svg> in its namespace, and
 * the page then names no URL at all.
 */
static int put_picture(struct bt_plot *const *p, size_t n, FILE *f)
{
	static const char ns[] = " xmlns=\"http://www.w3.org/2000/svg\"";
	char *buf = NULL, *s, *x;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int rc;

	if (!m)
		return -ENOMEM;
	rc = bt_plot_render(p, n, m);
	if (fclose(m) != 0 && !rc)
		rc = -ENOMEM;
	if (rc == 0) {
		s = buf;
		if (!strncmp(s, "<?xml", 5) && (x = strchr(s, '\n')))
			s = x + 1;
		if (!strncmp(s, "<svg", 4) && !strncmp(s + 4, ns, sizeof(ns) - 1)) {
			fputs("<svg", f);
			s += 4 + sizeof(ns) - 1;
		}
		fputs(s, f);
	}
	free(buf);
	return rc;
}

int bt_report_write(struct bt_report *rp, FILE *f)
{
	struct bt_plot *p[BT_REPORT_MAX_TRACES];
	int rc = 0, r;

	if (!rp || !f || !rp->n || rp->cur)
		return -EINVAL;
	put_head(rp, f);
	for (size_t i = 0; i < NCROSS; i++) {
		if (!cross_shown(rp, i))
			continue;
		r = cross_table(rp, i, f);
		if (r < 0 && !rc)
			rc = r;
	}
	for (int k = 0; k < NKINDS; k++) {
		fprintf(f, "<h2 id=\"%s\">%s</h2>\n<p>%s</p>\n", kinds[k].id,
			kinds[k].title, kinds[k].what);
		for (size_t i = 0; i < rp->n; i++)
			p[i] = rp->t[i]->plot[k];
		r = put_picture(p, rp->n, f);
		if (r < 0 && !rc)
			rc = r;
	}
	for (int i = 0; i < NTABLES; i++) {
		fprintf(f, "<h2 id=\"%s\">%s</h2>\n<p>%s</p>\n", tables[i].id,
			tables[i].title, tables[i].what);
		for (size_t j = 0; j < rp->n; j++) {
			const struct trace *t = rp->t[j];

			if (rp->n > 1) {
				fputs("<h3>", f);
				put_text(f, t->label);
				fputs("</h3>\n", f);
			}
			if (t->table[i])
				fprintf(f, "<div class=\"scroll\">\n%s</div>\n",
					t->table[i]);
			else
				fprintf(f, "<p class=\"none\">No rows: %s.</p>\n",
					tables[i].none);
		}
	}
	fputs("</body>\n</html>\n", f);
	if (fflush(f) != 0 || ferror(f))
		rc = rc ? rc : -EIO;
	return rc;
}

static void trace_free(struct trace *t)
{
	if (!t)
		return;
	/* The tracker first: what it still holds goes to the analyses. */
	bt_tracker_free(t->tr);
	for (int k = 0; k < NKINDS; k++)
		bt_plot_free(t->plot[k]);
	for (int i = 0; i < NTABLES; i++)
		free(t->table[i]);
	bt_lat_free(t->lat);
	bt_merge_free(t->merge);
	bt_size_free(t->size);
	bt_sync_free(t->sync);
	bt_sync_sum_free(t->sync_sum);
	bt_slice_free(t->slice);
	bt_slice_sum_free(t->slice_sum);
	free(t->files);
	free(t);
}

void bt_report_free(struct bt_report *rp)
{
	if (!rp)
		return;
	for (size_t i = 0; i < rp->n; i++)
		trace_free(rp->t[i]);
	bt_diff_free(rp->diff);
	free(rp);
}
