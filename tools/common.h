/* SPDX-License-Identifier: MIT */
/*
 * common.h - plumbing every btkit tool shares: the common options
 * (-d -p -w -H -c -j -h -V, --line-buffered), opening the inputs,
 * filtering events, number parsers and the error messages of btkit(7)
 * "CONVENTIONS" ("tool: FILE: offset N: what").
 * Tools may print and exit; the library may not, so this lives here.
 */
#ifndef BTKIT_TOOLS_COMMON_H
#define BTKIT_TOOLS_COMMON_H

#include <getopt.h>
#include <stdbool.h>
#include "btkit.h"

/* Exit statuses of every tool. */
#define TOOL_EXIT_OK	0
#define TOOL_EXIT_DATA	1	/* bad or truncated input; results still printed */
#define TOOL_EXIT_USAGE	2

struct tool_opts {
	const char *prog;	/* program name for messages */
	bool header;		/* false with -H */
	bool csv;		/* -c / --csv */
	bool json;		/* -j / --json (the last of -c and -j counts) */
	bool line_buffered;	/* --line-buffered or a terminal: flush per line */
	bool has_dev;		/* -d MAJ,MIN */
	uint32_t dev;
	bool has_pid;		/* -p PID */
	uint32_t pid;
	bool has_window;	/* -w START:END, seconds from the first event */
	uint64_t win_start;	/* ns */
	uint64_t win_end;	/* ns; UINT64_MAX when open */
};

/* getopt short options and long options every tool accepts. */
#define TOOL_SHORTOPTS "d:p:w:HcjhV"
/* getopt value of --line-buffered, clear of characters and tools' own. */
#define TOOL_OPT_LINE_BUFFERED	0x1001
#define TOOL_LONGOPTS \
	{ "device", required_argument, NULL, 'd' }, \
	{ "pid", required_argument, NULL, 'p' }, \
	{ "window", required_argument, NULL, 'w' }, \
	{ "no-header", no_argument, NULL, 'H' }, \
	{ "csv", no_argument, NULL, 'c' }, \
	{ "json", no_argument, NULL, 'j' }, \
	{ "line-buffered", no_argument, NULL, TOOL_OPT_LINE_BUFFERED }, \
	{ "help", no_argument, NULL, 'h' }, \
	{ "version", no_argument, NULL, 'V' }

/* The usage lines for the common options, for a tool's -h text. */
extern const char tool_common_usage[];

void tool_opts_init(struct tool_opts *o, const char *prog);
/*
 * Handle one common option.  Returns 1 if handled, 0 if not a common
 * option.  Bad arguments print a message and exit 2; -V prints the version
 * and exits 0.  -h is left to the tool (it owns the usage text).
 */
int tool_opts_common(struct tool_opts *o, int c, const char *arg);
/* Print "prog: message" and "Try 'prog -h'" and exit 2. */
void tool_usage_error(const struct tool_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
/*
 * After getopt_long() (with opterr = 0) returned '?' or ':', print getopt's
 * message naming the program only, and exit 2.  needs_arg: the tool's short
 * options that take an argument (TOOL_SHORTOPTS's are "dpw").
 */
void tool_bad_option(const struct tool_opts *o, char **argv,
			const char *needs_arg) __attribute__((noreturn));

/*
 * For tools where -p selects the requests a process owns rather than
 * events (D and C run in other contexts): returns whether -p was given,
 * with its pid in *pid, and stops tool_next() filtering by it.
 */
bool tool_take_pid(struct tool_opts *o, uint32_t *pid);
/* Print "prog: Cannot allocate memory" and exit 1. */
void tool_nomem(const struct tool_opts *o) __attribute__((noreturn));
/* The name of pid in the trace, "-" when unknown or empty. */
const char *tool_comm(const struct bt_reader *r, uint32_t pid);

/*
 * Open the inputs (argv[optind..argc), none or "-" meaning stdin).  A file
 * that cannot be opened: message and exit 1 (nothing has been printed).
 */
struct bt_reader *tool_open(const struct tool_opts *o, int argc, char **argv);

/*
 * Read the next event that passes the filters.  Returns 1, 0 at the end,
 * or -1 after printing the reader's error as "prog: FILE: offset N: what"
 * (the caller then prints its results and exits TOOL_EXIT_DATA).  Notes are
 * passed through unfiltered except by -d.  *first is the time of the first
 * non-note event (window origin), kept across calls; start it at UINT64_MAX.
 */
int tool_next_filter(const struct tool_opts *o, struct bt_reader *r,
		     struct bt_event *ev, uint64_t *first, int rc);

/* Whether tool_next() has a filter to apply: -d, -p or -w. */
static inline bool tool_filtered(const struct tool_opts *o)
{
	return o->has_dev | o->has_pid | o->has_window;
}

/*
 * tool_next() for a loop that worked out tool_filtered(o) once before it,
 * into filtered: the flags in *o are loaded again after every call the
 * loop makes (the compiler cannot tell that the reader and the analyses
 * leave them alone), a local stays in a register.  Inline for the common
 * run, without filters and past the first event.
 */
static inline int tool_next_as(bool filtered, const struct tool_opts *o,
			       struct bt_reader *r, struct bt_event *ev,
			       uint64_t *first)
{
	int rc = bt_reader_next(r, ev);

	if (rc > 0 && !filtered && *first != UINT64_MAX)
		return 1;
	return tool_next_filter(o, r, ev, first, rc);
}

static inline int tool_next(const struct tool_opts *o, struct bt_reader *r,
			    struct bt_event *ev, uint64_t *first)
{
	return tool_next_as(tool_filtered(o), o, r, ev, first);
}

/*
 * Notes pass the common filters unwindowed (PROCESS notes name pids
 * whatever the window); for an analysis that follows scheduler messages,
 * a note outside -w would open waits whose dispatches were filtered out.
 * first: as tool_next() keeps it.  True when ev is inside -w.
 */
bool tool_note_in_window(const struct tool_opts *o, uint64_t first,
			 const struct bt_event *ev);

/* Print the reader's warnings (duplicates, time going backwards) to stderr. */
void tool_warnings(const struct tool_opts *o, const struct bt_reader *r);

/* Number of columns of a static column-name array. */
#define TOOL_NCOLS(a)	(sizeof(a) / sizeof((a)[0]))

/* The table format the options ask for: -j, -c or tab-separated. */
enum bt_table_fmt tool_fmt(const struct tool_opts *o);
/*
 * A table with the tool's -c/-j/-H choices on stdout, of the columns c (an
 * analysis's *_cols(), or TOOL_COLS(array)); exits 1 on ENOMEM.
 */
struct bt_table *tool_table(const struct tool_opts *o, struct bt_table_cols c);
#define TOOL_COLS(a)	((struct bt_table_cols){ (a), TOOL_NCOLS(a) })
/* Free the table; on a write error print it and return TOOL_EXIT_DATA. */
int tool_table_done(const struct tool_opts *o, struct bt_table *t);

/*
 * The option loop of an analysis tool, after tool_opts_init(): handles the
 * common options, -h (usage(prog) to stdout, exit 0) and bad options
 * (message, exit 2), and returns the next option of the tool's own, or -1
 * at the end.  shortopts: TOOL_SHORTOPTS followed by the tool's.
 */
int tool_getopt(struct tool_opts *o, int argc, char **argv,
		const char *shortopts, const struct option *longopts,
		void (*usage)(const char *prog));

/*
 * The end of an analysis tool's run: free the table (NULL: output went
 * straight to stdout, which is flushed), print the reader's warnings.
 * Returns the exit status: TOOL_EXIT_DATA when reading failed (rc < 0, what
 * tool_next() last returned) or output could not be written.
 */
int tool_done(const struct tool_opts *o, const struct bt_reader *r,
	      struct bt_table *t, int rc);

/*
 * What an analysis saw of the trace, to explain an empty report: bit
 * 1 << BT_A_* for each action of the events read, TOOL_SEEN_MESSAGE for
 * scheduler messages.
 */
#define TOOL_SEEN_MESSAGE	(1u << 31)
/*
 * Inline: it runs once an event, and a call cost more than its work.  Once
 * seen has an event in need, tool_explain_empty() stays silent whatever
 * else comes, so a loop may stop calling it then (test seen & need).
 */
static inline void tool_seen(uint32_t *seen, const struct bt_event *ev)
{
	if (!bt_event_is_note(ev))
		*seen |= ev->action < 31 ? 1u << ev->action : 0;
	else if (ev->action == BT_N_MESSAGE)
		*seen |= TOOL_SEEN_MESSAGE;
}
/*
 * When the trace has none of the events in need (bits as in tool_seen),
 * the report can have no row: say so on stderr, naming the events it
 * lacks and the ones it has, why the tool needs them (why), and which
 * tools (with options) do compute something on it; self names the run
 * that failed ("btsize --at=Q") to leave it out.  The actions r set
 * aside undecoded (bt_reader_set_actions()) count as seen: the trace
 * holds them.  Returns 1 when it spoke, 0 when some event in need was
 * there or nothing at all was read.
 */
int tool_explain_empty(const struct tool_opts *o, const struct bt_reader *r,
		       uint32_t seen, uint32_t need, const char *self,
		       const char *why);

/*
 * Number parsers for tools' own options, whole string or nothing (no sign,
 * no blanks, no trailing text): a decimal unsigned number up to max; a
 * finite double >= 0 in any form strtod accepts ("10", "0.5", "1e1").
 * Return false on anything else, leaving *out alone.
 */
bool tool_parse_u64(const char *s, uint64_t max, uint64_t *out);
bool tool_parse_double(const char *s, double *out);

/*
 * Open one input, path (a file, per-CPU basename, .gz or "-"), for a tool
 * that reads its inputs apart (btdiff: one recording each).  A path that
 * cannot be opened: message and exit 1 (nothing has been printed).
 */
struct bt_reader *tool_open_path(const struct tool_opts *o, const char *path);

/*
 * A recording's label and path from a TRACE operand: LABEL=PATH, unless a
 * file of that whole name exists (paths may hold '='); else the file's
 * name without directories and the extensions .gz, .bin, .dump, .trace
 * and .blktrace.N ("stdin" for -).  Returns the path; a bad LABEL= is a
 * usage error.
 */
const char *tool_label(const struct tool_opts *o, const char *arg, char *label,
		       size_t len);
/*
 * Labels name columns side by side: two alike, or one equal to a column
 * of btdiff's table (group, metric, ratio, ratio_*), are a usage error.
 */
void tool_labels_check(const struct tool_opts *o, const char *const *label,
		       size_t n);
#endif
