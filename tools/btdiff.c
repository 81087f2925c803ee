// SPDX-License-Identifier: MIT
/*
 * btdiff - two or more recordings side by side: every analysis (request
 * counts and throughput, fdatasync episodes, slice waits, request
 * latency, merges) run on each recording in one pass, processes pooled
 * into groups (by name, pid or cgroup), one row per group and metric with
 * a column per recording and the ratios against the first, then a
 * verdict line.  The engine is lib/diff.c; this file wires options,
 * labels, one reader per recording and the table.  Definitions:
 * btdiff(1) and btkit(7).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "common.h"

#define LABEL_LEN	64

struct recording {
	char label[LABEL_LEN];
	const char *path;
	struct bt_reader *r;
};

struct differ {
	struct tool_opts o;
	struct bt_diff_opts dopt;
	unsigned metric[BT_DIFF_NMETRICS];
	bool verdict_stdout;
	struct recording *rec;
	size_t nrec;
};

static void usage(const char *prog)
{
	printf("Usage: %s [options] A B [C...]\n"
	       "Recordings side by side: every analysis on each, processes\n"
	       "pooled into groups, a column per recording, ratios against the\n"
	       "first, and a verdict line.  A recording is a file, a per-CPU\n"
	       "basename, a .gz, or LABEL=PATH (default label: the file name\n"
	       "without directories and extensions).\n\n"
	       "Options (-d, -p, -w apply to every recording; -p selects what\n"
	       "PID owns):\n%s"
	       "      --by=KEY           comm (default: processes of one name up\n"
	       "                         to its first '/' pooled), pid, or cgroup\n"
	       "  -m, --metrics LIST     comma-separated metrics, in row order\n"
	       "      --verdict          the verdict line on stdout, after the\n"
	       "                         table (default: stderr)\n",
	       prog, tool_common_usage);
}

static void bad_metric(const struct differ *x, const char *name)
{
	char valid[512];
	size_t n = 0;
	const char *m;

	for (unsigned i = 0; (m = bt_diff_metric_name(i)); i++)
		n += (size_t)snprintf(valid + n, n < sizeof(valid) ?
				      sizeof(valid) - n : 0, "%s%s",
				      i ? ", " : "", m);
	tool_usage_error(&x->o, "-m: unknown metric '%s' (valid: %s)", name,
		       valid);
}

static void parse_metrics(struct differ *x, const char *list)
{
	char buf[512], *tok, *save = NULL;
	int m;

	if (strlen(list) >= sizeof(buf))
		tool_usage_error(&x->o, "-m: list too long");
	strcpy(buf, list);
	x->dopt.nmetrics = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		m = bt_diff_metric_find(tok);
		if (m < 0)
			bad_metric(x, tok);
		if (x->dopt.nmetrics == BT_DIFF_NMETRICS)
			tool_usage_error(&x->o, "-m: a metric given twice");
		x->metric[x->dopt.nmetrics++] = (unsigned)m;
	}
	if (!x->dopt.nmetrics)
		bad_metric(x, list);
	x->dopt.metrics = x->metric;
}

static void parse_args(struct differ *x, int argc, char **argv)
{
	static const struct option longopts[] = {
		TOOL_LONGOPTS,
		{ "by", required_argument, NULL, 'B' },
		{ "metrics", required_argument, NULL, 'm' },
		{ "verdict", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	tool_opts_init(&x->o, argv[0]);
	while ((ch = tool_getopt(&x->o, argc, argv, TOOL_SHORTOPTS "m:",
				 longopts, usage)) != -1) {
		switch (ch) {
		case 'B':
			if (!strcmp(optarg, "comm"))
				x->dopt.by = BT_DIFF_BY_COMM;
			else if (!strcmp(optarg, "pid"))
				x->dopt.by = BT_DIFF_BY_PID;
			else if (!strcmp(optarg, "cgroup"))
				x->dopt.by = BT_DIFF_BY_CGROUP;
			else
				tool_usage_error(&x->o, "--by: '%s' is not comm, "
					       "pid or cgroup", optarg);
			break;
		case 'm':
			parse_metrics(x, optarg);
			break;
		case 'v':
			x->verdict_stdout = true;
			break;
		}
	}
	/* -p selects owners, not events: D and C run in other contexts. */
	x->dopt.has_pid = tool_take_pid(&x->o, &x->dopt.pid);
	if (argc - optind < 2)
		tool_usage_error(&x->o, "two recordings or more to compare "
			       "(A B [C...])");
}

/* Every recording opened before any is read: a missing one stops all. */
static void open_recordings(struct differ *x, int argc, char **argv)
{
	const char **labels;

	x->nrec = (size_t)(argc - optind);
	x->rec = calloc(x->nrec, sizeof(*x->rec));
	labels = calloc(x->nrec ? x->nrec : 1, sizeof(*labels));
	if (!x->rec || !labels)
		tool_nomem(&x->o);
	for (size_t i = 0; i < x->nrec; i++) {
		x->rec[i].path = tool_label(&x->o, argv[optind + (int)i],
					    x->rec[i].label,
					    sizeof(x->rec[i].label));
		labels[i] = x->rec[i].label;
	}
	tool_labels_check(&x->o, labels, x->nrec);
	free(labels);
	for (size_t i = 0; i < x->nrec; i++)
		x->rec[i].r = tool_open_path(&x->o, x->rec[i].path);
}

/* One pass over one recording; TOOL_EXIT_DATA when its input was bad. */
static int read_recording(struct differ *x, struct bt_diff *d,
			  struct recording *rc)
{
	uint64_t first = UINT64_MAX;
	struct bt_event ev;
	int rc_read, rc_end;

	if (bt_diff_begin(d, rc->label, rc->r) < 0)
		tool_nomem(&x->o);
	while ((rc_read = tool_next(&x->o, rc->r, &ev, &first)) > 0) {
		if (bt_event_is_note(&ev) &&
		    !tool_note_in_window(&x->o, first, &ev))
			continue;
		if (bt_diff_feed(d, &ev) < 0)
			tool_nomem(&x->o);
	}
	rc_end = bt_diff_end(d);
	if (rc_end == -ENOMSG) {
		fprintf(stderr, "%s: %s: no cgroup ids in the trace: --by=cgroup "
			"needs a recording that keeps them (btcapture --cgroup)\n",
			x->o.prog, rc->path);
		exit(TOOL_EXIT_DATA);
	}
	if (rc_end < 0)
		tool_nomem(&x->o);
	tool_warnings(&x->o, rc->r);
	return rc_read < 0 ? TOOL_EXIT_DATA : TOOL_EXIT_OK;
}

int main(int argc, char **argv)
{
	static struct differ x;
	struct bt_diff *d;
	int status = TOOL_EXIT_OK, rc;

	parse_args(&x, argc, argv);
	open_recordings(&x, argc, argv);
	if (bt_diff_new(&d, &x.dopt) < 0)
		tool_nomem(&x.o);
	for (size_t i = 0; i < x.nrec; i++)
		if (read_recording(&x, d, &x.rec[i]))
			status = TOOL_EXIT_DATA;
	rc = bt_diff_print(d, stdout, tool_fmt(&x.o),
			   x.o.header);
	if (rc == -ENOMEM)
		tool_nomem(&x.o);
	if (!rc && x.verdict_stdout)
		rc = bt_diff_verdict(d, stdout);
	else if (!rc && !fflush(stdout) && fprintf(stderr, "%s: ", x.o.prog) > 0)
		bt_diff_verdict(d, stderr);
	if (!rc && fflush(stdout))
		rc = -errno;
	if (rc < 0) {
		fprintf(stderr, "%s: write error: %s\n", x.o.prog,
			strerror(-rc));
		status = TOOL_EXIT_DATA;
	}
	for (size_t i = 0; i < x.nrec; i++)
		bt_reader_free(x.rec[i].r);
	free(x.rec);
	bt_diff_free(d);
	return status;
}
