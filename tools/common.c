// SPDX-License-Identifier: MIT
/*
 * common.c - the plumbing every btkit tool shares: the common options,
 * opening the inputs (stdin when none), filtering events by device, pid and
 * time window, and the messages of btkit(7) "CONVENTIONS".  It may print
 * and exit, which the library may not; a tool's main() stays a screen long
 * because of it.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "common.h"

const char tool_common_usage[] =
	"  -d, --device MAJ,MIN   only events of this device\n"
	"  -p, --pid PID          only events of this process\n"
	"  -w, --window START:END only events from START to before END seconds\n"
	"                         after the first event (either side may be empty)\n"
	"  -H, --no-header        no header line\n"
	"  -c, --csv              CSV (RFC 4180 quoting, LF line ends)\n"
	"  -j, --json             JSON Lines: one object per row, no header\n"
	"      --line-buffered    write each row out at once, as to a terminal\n"
	"  -h, --help             this help\n"
	"  -V, --version          print the version\n";

void tool_opts_init(struct tool_opts *o, const char *prog)
{
	const char *slash = prog ? strrchr(prog, '/') : NULL;

	memset(o, 0, sizeof(*o));
	o->prog = slash ? slash + 1 : (prog ? prog : "btkit");
	o->header = true;
	o->win_end = UINT64_MAX;
	/* A terminal is read as rows come (stdio line-buffers it too). */
	o->line_buffered = isatty(STDOUT_FILENO);
}

void tool_usage_error(const struct tool_opts *o, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", o->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s -h' for more information.\n", o->prog);
	exit(TOOL_EXIT_USAGE);
}

bool tool_take_pid(struct tool_opts *o, uint32_t *pid)
{
	bool has = o->has_pid;

	*pid = o->pid;
	o->has_pid = false;
	return has;
}

void tool_nomem(const struct tool_opts *o)
{
	fprintf(stderr, "%s: %s\n", o->prog, strerror(ENOMEM));
	exit(TOOL_EXIT_DATA);
}

const char *tool_comm(const struct bt_reader *r, uint32_t pid)
{
	const char *c = bt_reader_comm(r, pid);

	return c && *c ? c : "-";
}

/* getopt's own messages carry the path; ours name the program only. */
void tool_bad_option(const struct tool_opts *o, char **argv,
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
			tool_usage_error(o, "option '%.*s' doesn't allow an argument",
				       (int)(eq - arg), arg);
		if (optopt)
			tool_usage_error(o, "option '%s' requires an argument",
				       arg);
		tool_usage_error(o, "unrecognized option '%s'", arg);
	}
	if (optopt && strchr(needs_arg, optopt))
		tool_usage_error(o, "option requires an argument -- '%c'",
			       optopt);
	tool_usage_error(o, "invalid option -- '%c'", optopt);
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

bool tool_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	return parse_uint(s, s + strlen(s), max, out);
}

/* strtod over s..end exactly: finite, >= 0, nothing left over. */
static bool parse_double(const char *s, const char *end, double *out)
{
	char buf[64], *stop;
	size_t n = (size_t)(end - s);
	double v;

	/* A sign or blank strtod would skip is refused here. */
	if (!n || n >= sizeof(buf) || !((*s >= '0' && *s <= '9') || *s == '.'))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	v = strtod(buf, &stop);
	if (stop != buf + n || errno == ERANGE || !isfinite(v) || v < 0)
		return false;
	*out = v;
	return true;
}

bool tool_parse_double(const char *s, double *out)
{
	return parse_double(s, s + strlen(s), out);
}

/*
 * Seconds into ns; empty = dflt.  A plain decimal (up to 9 fraction
 * digits) is converted exactly; any other form strtod reads ("1e1") goes
 * through a double, rounded to the nearest ns.
 */
static bool parse_secs(const char *s, const char *end, uint64_t dflt,
		       uint64_t *ns)
{
	const char *dot = memchr(s, '.', (size_t)(end - s));
	uint64_t whole = 0, frac = 0;
	size_t digits;
	double v;

	if (s == end) {
		*ns = dflt;
		return true;
	}
	if (strspn(s, "0123456789.") < (size_t)(end - s)) {
		if (!parse_double(s, end, &v) || v * 1e9 >= 18446744073709551615.0)
			return false;
		*ns = (uint64_t)(v * 1e9 + 0.5);
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

int tool_opts_common(struct tool_opts *o, int c, const char *arg)
{
	const char *colon;
	uint64_t v;

	switch (c) {
	case 'd':
		if (!parse_dev(arg, &o->dev))
			tool_usage_error(o, "bad device '%s' (want MAJ,MIN)", arg);
		o->has_dev = true;
		return 1;
	case 'p':
		if (!parse_uint(arg, arg + strlen(arg), UINT32_MAX, &v))
			tool_usage_error(o, "bad pid '%s'", arg);
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
			tool_usage_error(o, "bad window '%s' (want START:END in seconds)",
				       arg);
		o->has_window = true;
		return 1;
	case 'H':
		o->header = false;
		return 1;
	case 'c':
		o->csv = true;
		o->json = false;
		return 1;
	case 'j':
		o->json = true;
		o->csv = false;
		return 1;
	case TOOL_OPT_LINE_BUFFERED:
		/* Before any output: stdio then writes at each newline. */
		o->line_buffered = true;
		setvbuf(stdout, NULL, _IOLBF, 0);
		return 1;
	case 'V':
		printf("%s btkit %s\n", o->prog, BT_VERSION);
		exit(fflush(stdout) ? TOOL_EXIT_DATA : TOOL_EXIT_OK);
	}
	return 0;
}

struct bt_reader *tool_open(const struct tool_opts *o, int argc, char **argv)
{
	struct bt_reader *r;
	int rc = bt_reader_new(&r);

	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", o->prog, strerror(-rc));
		exit(TOOL_EXIT_DATA);
	}
	if (optind >= argc) {
		rc = bt_reader_add(r, "-");
		if (rc < 0) {
			fprintf(stderr, "%s: -: %s\n", o->prog, strerror(-rc));
			exit(TOOL_EXIT_DATA);
		}
	}
	for (int i = optind; i < argc; i++) {
		rc = bt_reader_add(r, argv[i]);
		if (rc < 0) {
			fprintf(stderr, "%s: %s: %s\n", o->prog, argv[i],
				strerror(-rc));
			bt_reader_free(r);
			exit(TOOL_EXIT_DATA);
		}
	}
	return r;
}

/* tool_next() past its inline part: rc is bt_reader_next()'s for ev. */
int tool_next_filter(const struct tool_opts *o, struct bt_reader *r,
		     struct bt_event *ev, uint64_t *first, int rc)
{
	const char *file = NULL, *what;
	uint64_t off = 0, rel;

	for (;; rc = bt_reader_next(r, ev)) {
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

void tool_warnings(const struct tool_opts *o, const struct bt_reader *r)
{
	char buf[512];
	const char *w;

	for (size_t i = 0; (w = bt_reader_warning(r, i, buf, sizeof(buf))); i++)
		fprintf(stderr, "%s: warning: %s\n", o->prog, w);
}

enum bt_table_fmt tool_fmt(const struct tool_opts *o)
{
	return o->json ? BT_TABLE_JSON : o->csv ? BT_TABLE_CSV : BT_TABLE_TSV;
}

struct bt_table *tool_table(const struct tool_opts *o, struct bt_table_cols c)
{
	struct bt_table *t;
	int rc = bt_table_new(&t, stdout, tool_fmt(o), o->header, c.name, c.n);

	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", o->prog, strerror(-rc));
		exit(TOOL_EXIT_DATA);
	}
	return t;
}

bool tool_note_in_window(const struct tool_opts *o, uint64_t first,
			 const struct bt_event *ev)
{
	uint64_t rel;

	if (!o->has_window)
		return true;
	if (first == UINT64_MAX)
		return o->win_start == 0;
	rel = ev->time > first ? ev->time - first : 0;
	return rel >= o->win_start && rel < o->win_end;
}

int tool_table_done(const struct tool_opts *o, struct bt_table *t)
{
	int rc = bt_table_free(t);

	if (rc < 0) {
		fprintf(stderr, "%s: write error: %s\n", o->prog, strerror(-rc));
		return TOOL_EXIT_DATA;
	}
	return TOOL_EXIT_OK;
}

int tool_getopt(struct tool_opts *o, int argc, char **argv,
		const char *shortopts, const struct option *longopts,
		void (*usage)(const char *prog))
{
	char needs_arg[64];
	size_t n = 0;
	int ch;

	opterr = 0;	/* our messages name the program without its path */
	while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (tool_opts_common(o, ch, optarg))
			continue;
		if (ch == 'h') {
			usage(o->prog);
			exit(TOOL_EXIT_OK);
		}
		if (ch != '?' && ch != ':')
			return ch;
		for (const char *s = shortopts; *s && n + 1 < sizeof(needs_arg); s++)
			if (s[1] == ':' && *s != ':')
				needs_arg[n++] = *s;
		needs_arg[n] = '\0';
		tool_bad_option(o, argv, needs_arg);
	}
	return -1;
}

int tool_done(const struct tool_opts *o, const struct bt_reader *r,
	      struct bt_table *t, int rc)
{
	int status = rc < 0 ? TOOL_EXIT_DATA : TOOL_EXIT_OK;

	if (t) {
		if (tool_table_done(o, t))
			status = TOOL_EXIT_DATA;
	} else if (fflush(stdout)) {
		fprintf(stderr, "%s: write error: %s\n", o->prog,
			strerror(errno));
		status = TOOL_EXIT_DATA;
	}
	tool_warnings(o, r);
	return status;
}

/*
 * "Q, G, I events" (sep ", ") for the bits of seen, in blkparse's
 * letters, then "scheduler messages".
 */
static void seen_names(uint32_t seen, const char *sep, char *buf, size_t len)
{
	static const char *const name[] = {
		[BT_A_QUEUE] = "Q", [BT_A_BACKMERGE] = "M",
		[BT_A_FRONTMERGE] = "F", [BT_A_GETRQ] = "G",
		[BT_A_SLEEPRQ] = "S", [BT_A_REQUEUE] = "R",
		[BT_A_ISSUE] = "D", [BT_A_COMPLETE] = "C", [BT_A_PLUG] = "P",
		[BT_A_UNPLUG_IO] = "U", [BT_A_UNPLUG_TIMER] = "UT",
		[BT_A_INSERT] = "I", [BT_A_SPLIT] = "X", [BT_A_BOUNCE] = "B",
		[BT_A_REMAP] = "A",
	};
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned a = 0; a < sizeof(name) / sizeof(name[0]); a++) {
		if (!(seen & (1u << a)) || !name[a])
			continue;
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s",
				      n ? sep : "", name[a]);
	}
	if (n)
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, " events");
	if (seen & TOOL_SEEN_MESSAGE)
		snprintf(buf + n, n < len ? len - n : 0, "%sscheduler messages",
			 n ? sep : "");
}

#define SEEN(a)	(1u << (a))

/* What each tool needs: every event of all, and one of any (if not 0). */
static const struct {
	const char *run;
	uint32_t all, any;
} works[] = {
	{ "btsize", SEEN(BT_A_ISSUE), 0 },
	{ "btsize --at=Q", SEEN(BT_A_QUEUE), 0 },
	{ "btmerge", 0, SEEN(BT_A_QUEUE) | SEEN(BT_A_REMAP) },
	{ "btlat (d2c)", SEEN(BT_A_ISSUE) | SEEN(BT_A_COMPLETE), 0 },
	{ "btlat (q2c)", SEEN(BT_A_QUEUE) | SEEN(BT_A_COMPLETE), 0 },
	{ "btsync", SEEN(BT_A_QUEUE) | SEEN(BT_A_COMPLETE), 0 },
	{ "btslice", 0, SEEN(BT_A_GETRQ) | SEEN(BT_A_INSERT) | TOOL_SEEN_MESSAGE },
	{ "btslice --from=events", SEEN(BT_A_ISSUE),
	  SEEN(BT_A_GETRQ) | SEEN(BT_A_INSERT) },
	{ "btslice --from=messages", 0, TOOL_SEEN_MESSAGE },
	{ "btcat", 0, 0 },
};

int tool_explain_empty(const struct tool_opts *o, const struct bt_reader *r,
		       uint32_t seen, uint32_t need, const char *self,
		       const char *why)
{
	char lacks[160], has[160], ok[256];
	size_t n = 0;

	/* Bit 31 is TOOL_SEEN_MESSAGE, no action's. */
	seen |= bt_reader_aside_actions(r) & ~TOOL_SEEN_MESSAGE;

	if (!seen || (seen & need))
		return 0;
	seen_names(need, " or ", lacks, sizeof(lacks));
	seen_names(seen, ", ", has, sizeof(has));
	ok[0] = '\0';
	/* The tool's own other options first: only when none works, others. */
	for (int pass = 0; pass < 2 && !n; pass++) {
		for (size_t i = 0; i < sizeof(works) / sizeof(works[0]); i++) {
			size_t l = strlen(o->prog);
			int own = !strncmp(works[i].run, o->prog, l) &&
				  (!works[i].run[l] || works[i].run[l] == ' ');

			if (own == pass || !strcmp(works[i].run, self) ||
			    (seen & works[i].all) != works[i].all ||
			    (works[i].any && !(seen & works[i].any)))
				continue;
			n += (size_t)snprintf(ok + n, n < sizeof(ok) ?
					      sizeof(ok) - n : 0, "%s%s",
					      n ? ", " : "", works[i].run);
		}
	}
	fprintf(stderr, "%s: nothing to report: the trace has no %s (only %s): "
		"%s; what works on it: %s\n", o->prog, lacks, has, why, ok);
	return 1;
}

struct bt_reader *tool_open_path(const struct tool_opts *o, const char *path)
{
	struct bt_reader *r;
	int rc = bt_reader_new(&r);

	if (!rc) {
		rc = bt_reader_add(r, path);
		if (rc < 0)
			bt_reader_free(r);
	}
	if (rc < 0) {
		fprintf(stderr, "%s: %s: %s\n", o->prog, path, strerror(-rc));
		exit(TOOL_EXIT_DATA);
	}
	return r;
}

/* "dir/pgbench-bfq.bin.gz" -> "pgbench-bfq"; "x.blktrace.0" -> "x". */
static void default_label(const char *path, char *buf, size_t len)
{
	static const char *const ext[] = { ".gz", ".bin", ".dump", ".trace" };
	const char *base = strrchr(path, '/');
	char *dot;
	size_t n;
	bool again = true;

	if (!strcmp(path, "-")) {
		snprintf(buf, len, "stdin");
		return;
	}
	snprintf(buf, len, "%s", base && base[1] ? base + 1 : path);
	while (again) {
		again = false;
		n = strlen(buf);
		for (size_t i = 0; i < TOOL_NCOLS(ext); i++) {
			size_t l = strlen(ext[i]);

			if (n > l && !strcmp(buf + n - l, ext[i])) {
				buf[n - l] = '\0';
				again = true;
				break;
			}
		}
		dot = strrchr(buf, '.');
		if (!again && dot && dot > buf && dot[1] &&
		    strspn(dot + 1, "0123456789") == strlen(dot + 1) &&
		    dot - buf > 9 && !strncmp(dot - 9, ".blktrace", 9)) {
			dot[-9] = '\0';
			again = true;
		}
	}
}

const char *tool_label(const struct tool_opts *o, const char *arg, char *label,
		       size_t len)
{
	const char *eq = strchr(arg, '=');
	struct stat st;

	if (eq && eq > arg && !memchr(arg, '/', (size_t)(eq - arg)) &&
	    stat(arg, &st) < 0) {
		if ((size_t)(eq - arg) >= len)
			tool_usage_error(o, "label too long: '%.*s'",
				       (int)(eq - arg), arg);
		snprintf(label, len, "%.*s", (int)(eq - arg), arg);
		if (!eq[1])
			tool_usage_error(o, "'%s': no path after the label", arg);
		return eq + 1;
	}
	default_label(arg, label, len);
	return arg;
}

void tool_labels_check(const struct tool_opts *o, const char *const *label,
		       size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *l = label[i];

		/* btdiff's other columns: a label equal to one is ambiguous */
		if (!strcmp(l, "group") || !strcmp(l, "metric") ||
		    !strcmp(l, "ratio") || !strncmp(l, "ratio_", 6))
			tool_usage_error(o, "label '%s' is taken by a column: name "
				       "the recording with LABEL=PATH", l);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(label[j], l))
				tool_usage_error(o, "two recordings are labelled "
					       "'%s': name them with LABEL=PATH",
					       l);
	}
}
