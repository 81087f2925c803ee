// SPDX-License-Identifier: MIT
/*
 * replay_compare.c - the table of btreplay --sched=A,B: the captures of
 * its runs are recordings of one bt_diff (lib/diff.c, the engine behind
 * btdiff), in the order they ran, A B A B ... for --repeat.  With one run
 * per scheduler that is btdiff's own table.  With several, single runs
 * on a busy machine vary too much to compare one against one: each
 * scheduler gets the median of its runs (the lower middle one for an even
 * count, so that every figure shown was measured) and beside it the range
 * of its runs, and the ratios and the verdict compare medians.  Also
 * who owns a bio an io_uring worker queued for a replay thread.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"

#define RANGE_LEN	96

/* The median and range of one scheduler's runs for one row. */
struct summary {
	struct bt_diff_cell med, lo, hi;
	size_t have, runs;	/* runs with the figure, runs made */
};

static int cmp_cell(const void *a, const void *b)
{
	const struct bt_diff_cell *x = a, *y = b;

	return x->v < y->v ? -1 : x->v > y->v;
}

/* Runs of label l are recordings l, l + nl, l + 2 nl, ... of row r. */
static void summarise(const struct bt_diff_row *r, size_t l, size_t nl,
		      struct bt_diff_cell *tmp, struct summary *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t k = l; k < r->n; k += nl) {
		s->runs++;
		if (r->cell[k].kind == BT_DIFF_TEXT && !s->have) {
			s->med = r->cell[k];
			s->have = 1;
		} else if (r->cell[k].kind != BT_DIFF_EMPTY &&
			   r->cell[k].kind != BT_DIFF_TEXT) {
			tmp[s->have++] = r->cell[k];
		}
	}
	if (!s->have || s->med.kind == BT_DIFF_TEXT)
		return;
	qsort(tmp, s->have, sizeof(*tmp), cmp_cell);
	s->med = tmp[(s->have - 1) / 2];
	s->lo = tmp[0];
	s->hi = tmp[s->have - 1];
}

/* A figure as the table prints it (bt_table_us, bt_table_double). */
static int fmt_cell(char *buf, size_t len, const struct bt_diff_cell *c)
{
	switch (c->kind) {
	case BT_DIFF_COUNT:
		return snprintf(buf, len, "%" PRIu64, c->u);
	case BT_DIFF_NS:
		return snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, c->u / 1000,
				c->u % 1000);
	case BT_DIFF_REAL:
		return snprintf(buf, len, "%.*f", c->decimals, c->v);
	default:
		return snprintf(buf, len, "%s", "");
	}
}

/* "min..max", and "k/N" after it when only k of the N runs had it. */
static void put_range(struct bt_table *t, const struct summary *s)
{
	char buf[RANGE_LEN];
	int n = 0;

	if (!s->have || s->med.kind == BT_DIFF_TEXT) {
		bt_table_str(t, "");
		return;
	}
	n += fmt_cell(buf, sizeof(buf), &s->lo);
	n += snprintf(buf + n, sizeof(buf) - (size_t)n, "..");
	n += fmt_cell(buf + n, sizeof(buf) - (size_t)n, &s->hi);
	if (s->have < s->runs)
		snprintf(buf + n, sizeof(buf) - (size_t)n, " %zu/%zu", s->have,
			 s->runs);
	bt_table_str(t, buf);
}

static double ratio(const struct summary *a, const struct summary *b)
{
	if (!a->have || !b->have || a->med.kind == BT_DIFF_TEXT ||
	    b->med.kind == BT_DIFF_TEXT || a->med.v == 0)
		return NAN;
	return b->med.v / a->med.v;
}

/*
 * What the verdict needs of a group, gathered while its rows go by (rows
 * come group after group): the medians of fsync_p99_us and mb_s.
 */
struct vgroup {
	char name[64];
	double fsync[BT_REPLAY_MAX_SCHEDS], mb_s[BT_REPLAY_MAX_SCHEDS];
	int has_fsync[BT_REPLAY_MAX_SCHEDS], has_mb_s[BT_REPLAY_MAX_SCHEDS];
};

struct cmp {
	const char *const *labels;
	size_t nl;
	struct bt_table *t;	/* the table, or NULL for the verdict */
	FILE *fp;
	struct bt_diff_cell *tmp;
	struct vgroup g, all;	/* the group whose rows go by; "all" */
	int any, err;
	int seen_fsync;		/* an fsync_p99_us row went by */
};

/* Lowest and highest of the labels with a figure; 0 when none. */
static size_t extremes(const double *v, const int *has, size_t nl,
		       size_t *lo, size_t *hi)
{
	size_t n = 0;

	for (size_t l = 0; l < nl; l++) {
		if (!has[l])
			continue;
		if (!n || v[l] < v[*lo])
			*lo = l;
		if (!n || v[l] > v[*hi])
			*hi = l;
		n++;
	}
	return n;
}

static void verdict_mb_s(struct cmp *c, const char *pre)
{
	size_t lo = 0, hi = 0, n = extremes(c->g.mb_s, c->g.has_mb_s, c->nl,
					    &lo, &hi);

	if (!n)
		return;
	fprintf(c->fp, "%shighest throughput %s (%.3f MB/s", pre,
		c->labels[hi], c->g.mb_s[hi]);
	if (n < 2)
		fputs(", the only scheduler with a rate)", c->fp);
	else if (c->g.mb_s[lo] == c->g.mb_s[hi])
		fputs(", the same under every scheduler)", c->fp);
	else if (c->g.mb_s[lo] > 0)
		fprintf(c->fp, ", %.2fx %s)", c->g.mb_s[hi] / c->g.mb_s[lo],
			c->labels[lo]);
	else
		fprintf(c->fp, "; %s %.3f MB/s)", c->labels[lo], c->g.mb_s[lo]);
}

/* The verdict on the group gathered so far, as bt_diff_verdict() words it. */
static void verdict_group(struct cmp *c)
{
	size_t lo = 0, hi = 0, n;

	if (!c->g.name[0])
		return;
	n = extremes(c->g.fsync, c->g.has_fsync, c->nl, &lo, &hi);
	if (n) {
		fprintf(c->fp, "%s%s: lowest fsync p99 %s (%.3f us", c->any ?
			"; " : "", c->g.name, c->labels[lo], c->g.fsync[lo] / 1e3);
		if (n < 2)
			fputs(", the only scheduler with episodes)", c->fp);
		else if (c->g.fsync[lo] == c->g.fsync[hi])
			fputs(", the same under every scheduler)", c->fp);
		else if (c->g.fsync[lo] > 0)
			fprintf(c->fp, ", %.2fx lower than %s)",
				c->g.fsync[hi] / c->g.fsync[lo], c->labels[hi]);
		else
			fprintf(c->fp, "; %s %.3f us)", c->labels[hi],
				c->g.fsync[hi] / 1e3);
		verdict_mb_s(c, ", ");
		c->any = 1;
	}
}

/* A group's rows are over: its verdict; "all" kept for the fallback. */
static void end_group(struct cmp *c)
{
	verdict_group(c);
	if (!strcmp(c->g.name, "all"))
		c->all = c->g;
	memset(&c->g, 0, sizeof(c->g));
}

static void on_row(const struct bt_diff_row *r, void *arg)
{
	struct cmp *c = arg;
	struct summary s[BT_REPLAY_MAX_SCHEDS];
	int is_fsync = !strcmp(r->metric, "fsync_p99_us");
	int is_mb_s = !strcmp(r->metric, "mb_s");

	for (size_t l = 0; l < c->nl; l++)
		summarise(r, l, c->nl, c->tmp, &s[l]);
	if (!c->t) {
		if (strcmp(c->g.name, r->group)) {
			end_group(c);
			snprintf(c->g.name, sizeof(c->g.name), "%s", r->group);
		}
		c->seen_fsync |= is_fsync;
		for (size_t l = 0; l < c->nl && (is_fsync || is_mb_s); l++) {
			double *v = is_fsync ? c->g.fsync : c->g.mb_s;
			int *has = is_fsync ? c->g.has_fsync : c->g.has_mb_s;

			has[l] = s[l].have > 0;
			v[l] = s[l].med.v;
		}
		return;
	}
	bt_table_str(c->t, r->group);
	bt_table_str(c->t, r->metric);
	for (size_t l = 0; l < c->nl; l++) {
		static const struct bt_diff_cell none = { 0 };

		bt_diff_put_cell(c->t, s[l].have ? &s[l].med : &none);
		put_range(c->t, &s[l]);
	}
	bt_diff_put_ratio(c->t, ratio(&s[0], &s[c->nl - 1]));
	for (size_t l = 1; c->nl >= 3 && l < c->nl; l++)
		bt_diff_put_ratio(c->t, ratio(&s[0], &s[l]));
	if (bt_table_end_row(c->t) < 0)
		c->err = -EINVAL;
}

static int check(const struct bt_diff *d, size_t nlabels, size_t repeat)
{
	if (!nlabels || nlabels > BT_REPLAY_MAX_SCHEDS || !repeat ||
	    bt_diff_recordings(d) > nlabels * repeat)
		return -EINVAL;
	return 0;
}

int bt_replay_compare_print(struct bt_diff *d, const char *const *labels,
			    size_t nlabels, size_t repeat, FILE *fp,
			    enum bt_table_fmt fmt, int header)
{
	size_t extra = nlabels >= 3 ? nlabels - 1 : 0, ncols = 0;
	size_t nnames = 2 * nlabels + extra;
	const char **cols;
	char **names;
	struct cmp c = { .labels = labels, .nl = nlabels, .fp = fp };
	int rc = check(d, nlabels, repeat);

	if (rc < 0)
		return rc;
	if (repeat == 1)
		return bt_diff_print(d, fp, fmt, header);
	cols = calloc(nnames + 3, sizeof(*cols));
	names = calloc(nnames, sizeof(*names));
	c.tmp = calloc(repeat, sizeof(*c.tmp));
	rc = -ENOMEM;
	if (!cols || !names || !c.tmp)
		goto out;
	cols[ncols++] = "group";
	cols[ncols++] = "metric";
	for (size_t l = 0; l < nlabels; l++) {
		cols[ncols++] = labels[l];
		if (asprintf(&names[l], "%s_range", labels[l]) < 0) {
			names[l] = NULL;
			goto out;
		}
		cols[ncols++] = names[l];
	}
	cols[ncols++] = "ratio";
	for (size_t l = 1; l <= extra; l++) {
		if (asprintf(&names[nlabels + l - 1], "ratio_%s", labels[l]) < 0) {
			names[nlabels + l - 1] = NULL;
			goto out;
		}
		cols[ncols++] = names[nlabels + l - 1];
	}
	rc = bt_table_new(&c.t, fp, fmt, header, cols, ncols);
	if (rc < 0)
		goto out;
	rc = bt_diff_rows(d, on_row, &c);
	if (!rc)
		rc = c.err;
	if (bt_table_free(c.t) < 0 && !rc)
		rc = -EIO;
out:
	for (size_t i = 0; names && i < nnames; i++)
		free(names[i]);
	free(names);
	free(cols);
	free(c.tmp);
	return rc;
}

int bt_replay_compare_verdict(struct bt_diff *d, const char *const *labels,
			      size_t nlabels, size_t repeat, FILE *fp)
{
	struct cmp c = { .labels = labels, .nl = nlabels, .fp = fp };
	int rc = check(d, nlabels, repeat);

	if (rc < 0)
		return rc;
	if (repeat == 1)
		return bt_diff_verdict(d, fp);
	c.tmp = calloc(repeat, sizeof(*c.tmp));
	if (!c.tmp)
		return -ENOMEM;
	fprintf(fp, "verdict (medians of %zu runs): ", repeat);
	rc = bt_diff_rows(d, on_row, &c);
	end_group(&c);
	free(c.tmp);
	if (rc < 0)
		return rc;
	if (!c.any) {
		fputs(c.seen_fsync ? "no fdatasync episodes in any run" :
		      "no fsync_p99_us among the metrics", fp);
		c.g = c.all;
		verdict_mb_s(&c, "; all: ");
	}
	fputc('\n', fp);
	return ferror(fp) ? -EIO : 0;
}

int bt_replay_worker_owner(const struct bt_reader *r, struct bt_event *ev)
{
	const char *comm;
	unsigned long tid;
	char *end;

	if (bt_event_is_note(ev))
		return 0;
	comm = bt_reader_comm(r, ev->pid);
	if (!comm || strncmp(comm, "iou-wrk-", 8) || !isdigit((unsigned char)comm[8]))
		return 0;
	errno = 0;
	tid = strtoul(comm + 8, &end, 10);
	if (errno || *end || tid > UINT32_MAX || !bt_reader_comm(r, (uint32_t)tid))
		return 0;
	ev->pid = (uint32_t)tid;
	return 1;
}

/* The name replay thread tid stands for, or NULL when tid is none of them. */
static const char *thread_name(struct bt_replay *rp, const struct bt_reader *orig,
			       uint32_t tid)
{
	struct bt_replay_proc p;

	for (size_t i = 0; i < bt_replay_nprocs(rp); i++) {
		bt_replay_proc_get(rp, i, &p);
		if (p.tid && p.tid == tid)
			return bt_reader_comm(orig, p.pid);
	}
	return NULL;
}

int bt_replay_names(struct bt_replay *rp, const struct bt_reader *orig,
		    const struct bt_reader *cap, const uint32_t *pids,
		    size_t npids, unsigned char **buf, size_t *len)
{
	/* a note: 48-byte header and the name with its NUL */
	size_t cap_bytes = (npids ? npids : 1) * (48 + 16), n = 0;
	unsigned char *out = malloc(cap_bytes);

	*buf = NULL;
	*len = 0;
	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < npids; i++) {
		const char *comm = thread_name(rp, orig, pids[i]);
		struct bt_event e = { .action = BT_N_PROCESS,
				      .category = BT_TC_NOTIFY, .version = 7 };
		char name[16];
		int rc;

		if (!comm)
			comm = bt_reader_comm(cap, pids[i]);
		if (!comm)
			continue;
		snprintf(name, sizeof(name), "%s", comm);
		e.pid = pids[i];
		e.pdu = (const unsigned char *)name;
		e.pdu_len = (uint16_t)(strlen(name) + 1);
		rc = bt_event_encode(&e, out + n, cap_bytes - n, 0);
		if (rc < 0) {
			free(out);
			return rc;
		}
		n += (size_t)rc;
	}
	*buf = out;
	*len = n;
	return 0;
}

/* A reader of the capture at fd, from its start. */
static int reopen(int fd, const char *name, struct bt_reader **out)
{
	int rc;

	*out = NULL;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	rc = bt_reader_new(out);
	if (!rc && (rc = bt_reader_add_fd(*out, fd, name)) < 0) {
		bt_reader_free(*out);
		*out = NULL;
	}
	return rc;
}

/*
 * The first pass: the pids the capture names, and a reader of their
 * names as bt_replay_names() corrects them (*names NULL when none; *buf
 * holds its bytes).
 */
static int capture_names(struct bt_replay *rp, const struct bt_reader *orig,
			 int fd, const char *name, struct bt_reader **names,
			 unsigned char **buf)
{
	struct bt_reader *r;
	uint32_t *pids = NULL;
	size_t n = 0, cap = 0, len = 0;
	struct bt_event ev;
	int rc = reopen(fd, name, &r);

	*names = NULL;
	*buf = NULL;
	while (!rc && bt_reader_next(r, &ev) > 0) {
		if (!bt_event_is_note(&ev) || ev.action != BT_N_PROCESS)
			continue;
		rc = bt_array_room(&pids, &cap, n, sizeof(*pids), 64);
		if (!rc)
			pids[n++] = ev.pid;
	}
	if (!rc)
		rc = bt_replay_names(rp, orig, r, pids, n, buf, &len);
	if (!rc && len && (rc = bt_reader_new(names)) == 0 &&
	    (rc = bt_reader_add_mem(*names, *buf, len, "names")) == 0)
		while (bt_reader_next(*names, &ev) > 0)
			;
	free(pids);
	bt_reader_free(r);
	return rc;
}

int bt_replay_capture_diff(struct bt_replay *rp, const struct bt_reader *orig,
			   int fd, const char *name, struct bt_diff *d,
			   const char *label, uint64_t *punted,
			   struct bt_reader **failed)
{
	struct bt_reader *r = NULL, *names = NULL;
	unsigned char *buf = NULL;
	struct bt_event ev;
	int rc, rd = 0;

	*punted = 0;
	*failed = NULL;
	rc = capture_names(rp, orig, fd, name, &names, &buf);
	if (!rc)
		rc = reopen(fd, name, &r);
	if (!rc)
		rc = bt_diff_begin(d, label, names);
	if (!rc) {
		while ((rd = bt_reader_next(r, &ev)) > 0) {
			if (bt_replay_worker_owner(r, &ev))
				*punted += ev.action == BT_A_QUEUE;
			if ((rc = bt_diff_feed(d, &ev)) < 0)
				break;
		}
		if (!rc)
			rc = bt_diff_end(d);
	}
	if (!rc && rd < 0) {
		*failed = r;
		r = NULL;
		rc = rd;
	}
	bt_reader_free(r);
	bt_reader_free(names);
	free(buf);
	return rc;
}
