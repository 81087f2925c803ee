// SPDX-License-Identifier: MIT
/*
 * btcat - decode blktrace traces to the event lines `blkparse -q` prints,
 * or to one CSV row per event; with -s also blkparse -s's statistics.
 * The records come in blkparse's order, names and times from
 * lib/blkorder.c, the lines from lib/format.c, the statistics from
 * lib/summary.c; what is left here is filtering and output.
 */
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"

#define OUT_SIZE	(1u << 20)

struct cat {
	struct tool_opts o;
	unsigned fmt_flags;
	struct bt_blkorder *ord;
	int failed;		/* an input had a bad record */
	char *out;
	size_t out_len;
	struct bt_table *table;
	char *detail;		/* CSV detail cell, grown to the largest */
	size_t detail_cap;
	uint64_t skipped;	/* records blkparse complains about */
	uint64_t skip_off;	/* the first of them: offset and input */
	size_t skip_in;
	struct bt_summary *sum;	/* -s */
	int write_err;
};

static const char *const csv_cols[] = {
	"time_s", "dev", "cpu", "seq", "pid", "comm", "action", "rwbs",
	"sector", "bytes", "error", "detail",
};

static void die_nomem(const struct cat *c)
{
	fprintf(stderr, "%s: %s\n", c->o.prog, strerror(ENOMEM));
	exit(TOOL_EXIT_DATA);
}

/* ------------------------------------------------------------ output */

static void out_flush(struct cat *c)
{
	if (c->out_len && fwrite(c->out, 1, c->out_len, stdout) != c->out_len)
		c->write_err = 1;
	c->out_len = 0;
}

/* e's line, if blkparse prints one: its length, 0 for none. */
static size_t print_text(struct cat *c, const struct bt_event *e, uint64_t rel)
{
	size_t need = bt_format_bound(e), n;

	if (OUT_SIZE - c->out_len < need)
		out_flush(c);
	if (need > OUT_SIZE) {	/* a huge PC dump: format it apart */
		char *big = malloc(need);

		if (!big)
			die_nomem(c);
		n = bt_format_line(big, e, rel, bt_blkorder_comm(c->ord, e->pid),
				   c->fmt_flags);
		if (fwrite(big, 1, n, stdout) != n)
			c->write_err = 1;
		free(big);
		return n;
	}
	n = bt_format_line(c->out + c->out_len, e, rel,
			   bt_blkorder_comm(c->ord, e->pid), c->fmt_flags);
	c->out_len += n;
	if (c->o.line_buffered)
		out_flush(c);
	return n;
}

static void print_csv(struct cat *c, const struct bt_event *e, uint64_t rel)
{
	struct bt_table *t = c->table;
	char rwbs[BT_RWBS_LEN];
	size_t need = bt_format_bound(e) + 1, n;

	if (c->detail_cap < need) {
		free(c->detail);
		c->detail = malloc(need);
		if (!c->detail)
			die_nomem(c);
		c->detail_cap = need;
	}
	n = bt_format_detail(c->detail, e);
	c->detail[n] = '\0';
	bt_table_s(t, rel);
	bt_table_dev(t, e->dev);
	bt_table_u64(t, e->cpu);
	bt_table_u64(t, e->sequence);
	bt_table_u64(t, e->pid);
	bt_table_str(t, bt_blkorder_comm(c->ord, e->pid));
	bt_table_str(t, bt_event_letters(e));
	bt_table_str(t, bt_event_is_note(e) ? "N" : bt_event_rwbs(e, rwbs));
	bt_table_u64(t, e->sector);
	bt_table_u64(t, e->bytes);
	bt_table_i64(t, (int16_t)e->error);
	bt_table_str(t, c->detail);
	bt_table_end_row(t);
}

/* -s: count e; a pid first counted without a name is "unknown". */
static void sum_event(struct cat *c, size_t dev, const struct bt_event *e,
		      uint64_t rel, int late)
{
	const char *comm = bt_blkorder_comm(c->ord, e->pid);
	int rc = bt_summary_event(c->sum, dev, e, rel, c->fmt_flags, late,
				  comm);

	if (rc < 0 || (rc > 0 && !comm &&
		       bt_blkorder_name(c->ord, e->pid, "unknown") < 0))
		die_nomem(c);
}

/* A record without a line: count those blkparse complains about. */
static void no_line(struct cat *c, const struct bt_event *e, int kind)
{
	if (kind < 0 && !c->skipped++) {
		c->skip_off = e->offset;
		c->skip_in = e->input;
	}
}

static void print_event(struct cat *c, const struct bt_event *e,
			uint64_t rel, size_t dev)
{
	const struct tool_opts *o = &c->o;
	int kind;

	if ((o->has_dev && e->dev != o->dev) ||
	    (o->has_pid && e->pid != o->pid) ||
	    (o->has_window && (rel < o->win_start || rel >= o->win_end)))
		return;
	/* Plain text: the line says whether there is one. */
	if (!c->sum && !c->table) {
		if (!print_text(c, e, rel))
			no_line(c, e, bt_format_kind(e, c->fmt_flags));
		return;
	}
	kind = bt_format_kind(e, c->fmt_flags);
	if (c->sum)
		sum_event(c, dev, e, rel, 0);
	if (kind <= 0) {
		no_line(c, e, kind);
		return;
	}
	if (c->table)
		print_csv(c, e, rel);
	else
		print_text(c, e, rel);
	if (c->sum)
		sum_event(c, dev, e, rel, 1);
}

/* ------------------------------------------------------------ input */

/* A bad record, as tool_next() reports it. */
static void read_error(struct cat *c, int rc)
{
	const struct bt_reader *r = bt_blkorder_failed(c->ord);
	const char *file = NULL, *what;
	uint64_t off = 0;

	if (!r && rc == -ENOMEM)
		die_nomem(c);
	if (!r) {
		/* After blkparse's stall: the rest of the stream's spool. */
		fprintf(stderr, "%s: the temporary file in %s holding the "
			"rest of the trace failed: %s\n", c->o.prog, P_tmpdir,
			strerror(-rc));
		c->failed = 1;
		return;
	}
	what = bt_reader_error(r, &file, &off);
	if (!what || !*what)
		what = strerror(-rc);
	fprintf(stderr, "%s: %s: offset %" PRIu64 ": %s\n", c->o.prog,
		file ? file : "-", off, what);
	c->failed = 1;
}

/*
 * Plain text of every event, as nearly every run prints: print_event()
 * without its tests, the buffer's length in a register.
 */
static void run_text(struct cat *c)
{
	/* Room for any line (the largest payload, < OUT_SIZE): one test. */
	const struct bt_event biggest = { .pdu_len = UINT16_MAX };
	const size_t room = bt_format_bound(&biggest);
	struct bt_event e;
	uint64_t rel;
	size_t dev, len = c->out_len, n;
	int rc;

	while ((rc = bt_blkorder_next(c->ord, &e, &rel, &dev)) != 0) {
		if (rc < 0) {
			read_error(c, rc);
			continue;
		}
		if (OUT_SIZE - len < room) {
			c->out_len = len;
			out_flush(c);
			len = 0;
		}
		n = bt_format_line(c->out + len, &e, rel,
				   bt_blkorder_comm(c->ord, e.pid),
				   c->fmt_flags);
		if (!n)
			no_line(c, &e, bt_format_kind(&e, c->fmt_flags));
		len += n;
	}
	c->out_len = len;
}

static void run(struct cat *c, struct bt_reader *r)
{
	const struct tool_opts *o = &c->o;
	struct bt_event e;
	const char *bad;
	uint64_t rel;
	size_t dev;
	int rc = bt_blkorder_new(&c->ord, r, c->fmt_flags, &bad);

	if (rc < 0) {
		if (!bad)
			die_nomem(c);
		fprintf(stderr, "%s: %s: %s\n", c->o.prog, bad, strerror(-rc));
		exit(TOOL_EXIT_DATA);
	}
	if (!c->sum && !c->table && !o->line_buffered && !o->has_dev &&
	    !o->has_pid && !o->has_window) {
		run_text(c);
	} else {
		while ((rc = bt_blkorder_next(c->ord, &e, &rel, &dev)) != 0) {
			if (rc < 0)
				read_error(c, rc);
			else
				print_event(c, &e, rel, dev);
		}
	}
	tool_warnings(&c->o, r);
}

/* Records blkparse complains about are left out: say where the first was. */
static void skip_warning(const struct cat *c, const struct bt_reader *r)
{
	char at[48] = "";

	if (c->skip_off != UINT64_MAX)
		snprintf(at, sizeof(at), ": offset %" PRIu64, c->skip_off);
	fprintf(stderr, "%s: warning: %" PRIu64 " records with an action "
		"blkparse does not print, the first at %s%s (no line is "
		"printed for them)\n", c->o.prog, c->skipped,
		bt_reader_input_name(r, c->skip_in), at);
}

/* What `blkparse -s` prints after the events, grouped as its locale says. */
static void sum_print(struct cat *c)
{
	for (size_t i = 0; i < bt_blkorder_devs(c->ord); i++) {
		struct bt_blkorder_dev d;

		bt_blkorder_dev(c->ord, i, &d);
		if (bt_summary_dev(c->sum, i, d.name, d.gaps, d.missing) < 0)
			die_nomem(c);
	}
	setlocale(LC_NUMERIC, "");
	if (bt_summary_print(c->sum, stdout) < 0)
		die_nomem(c);
	setlocale(LC_NUMERIC, "C");
}

/* ------------------------------------------------------------ main */

static void usage(const char *prog)
{
	printf("Usage: %s [options] [TRACE...]\n"
	       "Print the events of blktrace traces as `blkparse -q` prints\n"
	       "them, or with -c one CSV row per event (-H: no header row).\n"
	       "No TRACE or - reads stdin.\n\n"
	       "Options:\n%s"
	       "  -s, --summary          end with blkparse -s's statistics (not with -c)\n"
	       "      --blkparse=VER     1.3 (default) or 1.2: as Debian's\n"
	       "                         blkparse 1.2.0, no line for\n"
	       "                         cgroup-flagged records\n",
	       prog, tool_common_usage);
}

static void parse_args(struct cat *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		TOOL_LONGOPTS,
		{ "blkparse", required_argument, NULL, 'B' },
		{ "summary", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	tool_opts_init(&c->o, argv[0]);
	opterr = 0;	/* our messages name the program without its path */
	while ((ch = getopt_long(argc, argv, TOOL_SHORTOPTS "s", longopts,
				 NULL)) != -1) {
		if (tool_opts_common(&c->o, ch, optarg))
			continue;
		if (ch == 's') {
			if (!c->sum && bt_summary_new(&c->sum) < 0)
				die_nomem(c);
		} else if (ch == 'h') {
			usage(c->o.prog);
			exit(TOOL_EXIT_OK);
		} else if (ch == 'B' && !strcmp(optarg, "1.2")) {
			c->fmt_flags |= BT_FMT_V120;
		} else if (ch == 'B' && !strcmp(optarg, "1.3")) {
			c->fmt_flags &= ~BT_FMT_V120;
		} else if (ch == 'B') {
			tool_usage_error(&c->o, "bad blkparse version '%s' (want 1.2 or 1.3)",
				       optarg);
		} else {
			tool_bad_option(&c->o, argv, "dpw");
		}
	}
	/* The statistics are blkparse's text: they have no CSV form. */
	if (c->sum && c->o.csv)
		tool_usage_error(&c->o, "-s (blkparse's text statistics) cannot "
			       "be combined with -c");
}

int main(int argc, char **argv)
{
	static struct cat c;
	struct bt_reader *r;
	int rc = TOOL_EXIT_OK;

	parse_args(&c, argc, argv);
	r = tool_open(&c.o, argc, argv);
	c.out = malloc(OUT_SIZE);
	if (!c.out)
		die_nomem(&c);
	if (c.o.csv || c.o.json)
		c.table = tool_table(&c.o, TOOL_COLS(csv_cols));
	run(&c, r);
	out_flush(&c);
	if (c.sum && !c.table)
		sum_print(&c);
	if (c.table && tool_table_done(&c.o, c.table))
		rc = TOOL_EXIT_DATA;
	out_flush(&c);
	if (fflush(stdout) || c.write_err) {
		fprintf(stderr, "%s: write error: %s\n", c.o.prog, strerror(errno));
		rc = TOOL_EXIT_DATA;
	}
	if (c.skipped)
		skip_warning(&c, r);
	free(c.out);
	free(c.detail);
	bt_summary_free(c.sum);
	bt_blkorder_free(c.ord);
	bt_reader_free(r);
	return c.failed ? TOOL_EXIT_DATA : rc;
}
