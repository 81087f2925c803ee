// SPDX-License-Identifier: MIT
/*
 * common.c - the plumbing every btkit tool shares: the common options,
 * opening the inputs (stdin when none), filtering events by device, pid and
 * time window, and the messages of DESIGN.md.  It may print and exit, which
 * the library may not; a tool's main() stays a screen long because of it.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"

const char bt_common_usage[] =
	"  -d, --device MAJ,MIN   only events of this device\n"
	"  -p, --pid PID          only events of this process\n"
	"  -w, --window START:END only events from START to before END seconds\n"
	"                         after the first event (either side may be empty)\n"
	"  -H, --no-header        no header line\n"
	"  -c, --csv              RFC 4180 CSV instead of tab-separated text\n"
	"  -h, --help             this help\n"
	"  -V, --version          print the version\n";

void bt_opts_init(struct bt_opts *o, const char *prog)
{
	const char *slash = prog ? strrchr(prog, '/') : NULL;

	memset(o, 0, sizeof(*o));
	o->prog = slash ? slash + 1 : (prog ? prog : "btkit");
	o->header = true;
	o->win_end = UINT64_MAX;
}

void bt_usage_error(const struct bt_opts *o, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", o->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s -h' for more information.\n", o->prog);
	exit(BT_EXIT_USAGE);
}

bool bt_opts_take_pid(struct bt_opts *o, uint32_t *pid)
{
	bool has = o->has_pid;

	*pid = o->pid;
	o->has_pid = false;
	return has;
}

void bt_tool_nomem(const struct bt_opts *o)
{
	fprintf(stderr, "%s: %s\n", o->prog, strerror(ENOMEM));
	exit(BT_EXIT_DATA);
}

const char *bt_tool_comm(const struct bt_reader *r, uint32_t pid)
{
	const char *c = bt_reader_comm(r, pid);

	return c && *c ? c : "-";
}

/* getopt's own messages carry the path; ours name the program only. */
void bt_opts_bad_option(const struct bt_opts *o, char **argv,
			const char *needs_arg)
{
	const char *arg = argv[optind - 1];
	const char *cur = argv[optind];
	const char *eq;

	/*
	 * In the middle of a cluster of short options ("-xH") getopt has not
	 * moved optind past the word yet: the bad one is in argv[optind].
	 */
	if (optopt && cur && cur[0] == '-' && cur[1] && cur[1] != '-' &&
	    strchr(cur + 1, optopt))
		arg = cur;
	if (!strncmp(arg, "--", 2)) {
		eq = strchr(arg, '=');
		if (optopt && eq)
			bt_usage_error(o, "option '%.*s' doesn't allow an argument",
				       (int)(eq - arg), arg);
		if (optopt)
			bt_usage_error(o, "option '%s' requires an argument",
				       arg);
		bt_usage_error(o, "unrecognized option '%s'", arg);
	}
	if (optopt && strchr(needs_arg, optopt))
		bt_usage_error(o, "option requires an argument -- '%c'",
			       optopt);
	bt_usage_error(o, "invalid option -- '%c'", optopt);
}

/* A decimal unsigned number up to max filling all of s..end. */
static bool parse_uint(const char *s, const char *end, uint64_t max,
		       uint64_t *out)
{
	uint64_t v = 0;

	if (s == end)
		return false;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (v > (max - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return true;
}

/* MAJ,MIN (MAJ:MIN accepted too, as lsblk prints it). */
static bool parse_dev(const char *arg, uint32_t *dev)
{
	const char *sep = strpbrk(arg, ",:");
	uint64_t ma, mi;

	if (!sep || !parse_uint(arg, sep, 0xfff, &ma) ||
	    !parse_uint(sep + 1, sep + strlen(sep), 0xfffff, &mi))
		return false;
	*dev = BT_DEV_MAKE((uint32_t)ma, (uint32_t)mi);
	return true;
}

/* Seconds, decimal with up to 9 fraction digits, into ns; empty = dflt. */
static bool parse_secs(const char *s, const char *end, uint64_t dflt,
		       uint64_t *ns)
{
	const char *dot = memchr(s, '.', (size_t)(end - s));
	uint64_t whole = 0, frac = 0;
	size_t digits;

	if (s == end) {
		*ns = dflt;
		return true;
	}
	if (dot) {
		digits = (size_t)(end - dot - 1);
		if (digits > 9 || (dot == s && digits == 0))
			return false;
		if (dot > s && !parse_uint(s, dot, UINT64_MAX / 1000000000, &whole))
			return false;
		if (digits && !parse_uint(dot + 1, end, 999999999, &frac))
			return false;
		for (size_t i = digits; i < 9; i++)
			frac *= 10;
	} else if (!parse_uint(s, end, UINT64_MAX / 1000000000, &whole)) {
		return false;
	}
	*ns = whole * 1000000000u + frac;
	return true;
}

int bt_opts_common(struct bt_opts *o, int c, const char *arg)
{
	const char *colon;
	uint64_t v;

	switch (c) {
	case 'd':
		if (!parse_dev(arg, &o->dev))
			bt_usage_error(o, "bad device '%s' (want MAJ,MIN)", arg);
		o->has_dev = true;
		return 1;
	case 'p':
		if (!parse_uint(arg, arg + strlen(arg), UINT32_MAX, &v))
			bt_usage_error(o, "bad pid '%s'", arg);
		o->pid = (uint32_t)v;
		o->has_pid = true;
		return 1;
	case 'w':
		colon = strchr(arg, ':');
		if (!colon ||
		    !parse_secs(arg, colon, 0, &o->win_start) ||
		    !parse_secs(colon + 1, colon + strlen(colon), UINT64_MAX,
				&o->win_end) ||
		    o->win_end <= o->win_start)
			bt_usage_error(o, "bad window '%s' (want START:END in seconds)",
				       arg);
		o->has_window = true;
		return 1;
	case 'H':
		o->header = false;
		return 1;
	case 'c':
		o->csv = true;
		return 1;
	case 'V':
		printf("%s btkit %s\n", o->prog, BT_VERSION);
		exit(fflush(stdout) ? BT_EXIT_DATA : BT_EXIT_OK);
	}
	return 0;
}

struct bt_reader *bt_tool_open(const struct bt_opts *o, int argc, char **argv)
{
	struct bt_reader *r;
	int rc = bt_reader_new(&r);

	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", o->prog, strerror(-rc));
		exit(BT_EXIT_DATA);
	}
	if (optind >= argc) {
		rc = bt_reader_add(r, "-");
		if (rc < 0) {
			fprintf(stderr, "%s: -: %s\n", o->prog, strerror(-rc));
			exit(BT_EXIT_DATA);
		}
	}
	for (int i = optind; i < argc; i++) {
		rc = bt_reader_add(r, argv[i]);
		if (rc < 0) {
			fprintf(stderr, "%s: %s: %s\n", o->prog, argv[i],
				strerror(-rc));
			bt_reader_free(r);
			exit(BT_EXIT_DATA);
		}
	}
	return r;
}

int bt_tool_next(const struct bt_opts *o, struct bt_reader *r,
		 struct bt_event *ev, uint64_t *first)
{
	const char *file = NULL, *what;
	uint64_t off = 0, rel;
	int rc;

	for (;;) {
		rc = bt_reader_next(r, ev);
		if (rc == 0)
			return 0;
		if (rc < 0) {
			what = bt_reader_error(r, &file, &off);
			if (!what || !*what)
				what = strerror(-rc);
			fprintf(stderr, "%s: %s: offset %" PRIu64 ": %s\n",
				o->prog, file ? file : "-", off, what);
			return -1;
		}
		if (o->has_dev && ev->dev != o->dev)
			continue;
		/* Notes: raw times in blkparse -d dumps, pid of the named task. */
		if (bt_event_is_note(ev))
			return 1;
		if (*first == UINT64_MAX)
			*first = ev->time;
		if (o->has_pid && ev->pid != o->pid)
			continue;
		if (o->has_window) {
			rel = ev->time > *first ? ev->time - *first : 0;
			if (rel < o->win_start || rel >= o->win_end)
				continue;
		}
		return 1;
	}
}

void bt_tool_warnings(const struct bt_opts *o, const struct bt_reader *r)
{
	char buf[512];
	const char *w;

	for (size_t i = 0; (w = bt_reader_warning(r, i, buf, sizeof(buf))); i++)
		fprintf(stderr, "%s: warning: %s\n", o->prog, w);
}

struct bt_table *bt_tool_table(const struct bt_opts *o,
			       const char *const *cols, size_t ncols)
{
	struct bt_table *t;
	int rc = bt_table_new(&t, stdout, o->csv ? BT_TABLE_CSV : BT_TABLE_TSV,
			      o->header, cols, ncols);

	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", o->prog, strerror(-rc));
		exit(BT_EXIT_DATA);
	}
	return t;
}

int bt_tool_table_done(const struct bt_opts *o, struct bt_table *t)
{
	int rc = bt_table_free(t);

	if (rc < 0) {
		fprintf(stderr, "%s: write error: %s\n", o->prog, strerror(-rc));
		return BT_EXIT_DATA;
	}
	return BT_EXIT_OK;
}
