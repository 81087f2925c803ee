// SPDX-License-Identifier: MIT
/*
 * btreplay - replay a trace on a device under a chosen I/O scheduler, one
 * thread per traced process, and report per process how long the I/Os took
 * and how late they went out.  Without --target the target is a scratch
 * loop device on a sparse temporary file, so nothing of the machine's is
 * touched; an explicit target first passes the safety rules of
 * btreplay(1) "Safety" (lib/replay_target.c, as is the scheduler policy).
 * Whatever it changes (scheduler, tunables, tracing) it puts back on exit,
 * on error and on SIGINT/SIGTERM; the scratch device detaches itself when
 * its last descriptor closes, even if btreplay is killed.  With a list of
 * schedulers it replays once under each (and --repeat times), captures
 * every run and prints the btdiff table of the captures
 * (lib/replay_compare.c on lib/diff.c's engine).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "common.h"

#define EXIT_REFUSED	3	/* a safety check said no */
#define MAX_TARGETS	64
#define MAX_TUNES	32
#define MAX_REPEAT	100
#define LABEL_LEN	40

struct target {
	const char *path;	/* as given, or the scratch loop device */
	char scratch[32];	/* /dev/loopN of a scratch device */
	int fd;			/* replay descriptor (O_DIRECT) */
	int keep_fd;		/* scratch: holds the loop device until the end */
	int is_blk;
	struct bt_blkdev b;
	struct bt_blkdev_sched *sched;	/* saved state to restore, or NULL */
};

/* --sched=A,B[,...]: one replay per scheduler (and per --repeat), compared. */
struct compare {
	char list[512];		/* --sched's value, cut into names */
	const char *name[BT_REPLAY_MAX_SCHEDS];	/* as asked: "cfq" */
	char label[BT_REPLAY_MAX_SCHEDS][LABEL_LEN];	/* as shown: "cfq(bfq)" */
	const char *labels[BT_REPLAY_MAX_SCHEDS];
	size_t n;
	int all;		/* --sched=all: the device's list, then cfq */
	unsigned repeat;	/* runs of each; 0: one scheduler, no comparison */
	struct bt_diff *diff;
	struct bt_replay_snap *snap[MAX_TARGETS];
	struct bt_table *procs;	/* -r: every run's per-process report */
	uint64_t errors;
	int bad_capture;
};

struct replay {
	struct tool_opts o;
	struct bt_replay_conf conf;
	const char *target, *sched, *capture;
	const char *cap_path;	/* the capture being written, for messages */
	struct compare cmp;
	int per_proc;		/* -r */
	const char *tune[MAX_TUNES];
	size_t ntune;
	struct bt_replay_map map[MAX_TARGETS];
	size_t nmap;
	int write, force, no_stall, from_d;
	double speed;
	struct bt_reader *r;
	struct bt_replay *rp;
	struct target t[MAX_TARGETS];
	size_t nt;
	struct bt_capture *cap;
	int cap_fd;
};

static volatile sig_atomic_t got_signal;
static struct bt_replay *running;

static void on_signal(int sig)
{
	got_signal = sig;
	if (running)
		bt_replay_stop(running);
}

static void usage(void)
{
	printf("Usage: btreplay [OPTION]... [TRACE]...\n"
	       "Replay a blktrace trace on a device under a chosen I/O scheduler,\n"
	       "one thread per traced process; report latency and issue lag.\n\n"
	       "      --target DEV       replay onto DEV (block device or regular file);\n"
	       "                         default: a scratch loop device, removed after\n"
	       "                         (--device: the old name, still understood)\n"
	       "      --sched NAME       I/O scheduler during the replay (noop, deadline,\n"
	       "                         cfq and as map to blk-mq ones)\n"
	       "      --sched A,B[,...]  replay once under each, capture each run and\n"
	       "                         print the btdiff table of the runs; all: every\n"
	       "                         scheduler the device offers, and cfq\n"
	       "      --repeat N         with a list: N runs of each, interleaved (A B A B);\n"
	       "                         the median of each and the range of its runs\n"
	       "  -r                     with a list: each run's per-process report\n"
	       "                         instead of the comparison\n"
	       "      --sched-opt K=V    set queue/iosched/K (or queue/K); repeatable\n"
	       "      --write            allow the trace's writes and discards on DEV\n"
	       "      --force            replay onto a device in use or with a signature\n"
	       "      --speed X          replay X times faster (0.5: half speed)\n"
	       "      --no-stall         ignore recorded times, keep recorded depths\n"
	       "      --from Q|D         replay bios as queued (Q, default) or requests\n"
	       "                         as dispatched (D)\n"
	       "      --map MAJ,MIN=DEV  replay the traced device MAJ,MIN onto DEV\n"
	       "      --capture FILE     record the replay itself into FILE (.gz: gzip);\n"
	       "                         with a list, FILE-NAME[-RUN].EXT per run\n"
	       "  -d MAJ,MIN             only the trace's I/O on this device\n"
	       "  -p, --pid PID          only this process's I/O\n"
	       "  -w, --window START:END only I/O from START to END seconds\n"
	       "  -H, --no-header        no header line\n"
	       "  -c, --csv              RFC 4180 CSV instead of tab-separated text\n"
	       "  -h, --help             this help\n"
	       "  -V, --version          print the version\n");
}

enum { O_TARGET = 256, O_DEVICE, O_SCHED, O_SCHED_OPT, O_WRITE, O_FORCE, O_SPEED,
       O_NO_STALL, O_FROM, O_MAP, O_CAPTURE, O_REPEAT };

/* --map MAJ,MIN=DEV: the traced device by the -d syntax, then its target. */
static void add_map(struct replay *x, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct tool_opts tmp = x->o;
	char spec[64];

	if (!eq || eq == arg || !eq[1] || (size_t)(eq - arg) >= sizeof(spec) ||
	    x->nmap == MAX_TARGETS)
		tool_usage_error(&x->o, "bad --map '%s' (want MAJ,MIN=DEV)", arg);
	memcpy(spec, arg, (size_t)(eq - arg));
	spec[eq - arg] = '\0';
	tool_opts_common(&tmp, 'd', spec);
	x->map[x->nmap++] = (struct bt_replay_map){ tmp.dev, eq + 1 };
}

/*
 * --sched=A,B[,...] or all: the names, checked; labels come once the
 * device is known (cfq is labelled by what it maps to there).
 */
static void parse_list(struct replay *x)
{
	struct compare *c = &x->cmp;
	char *tok, *save = NULL;

	if (!x->sched || (!strchr(x->sched, ',') && strcmp(x->sched, "all"))) {
		if (c->repeat)
			tool_usage_error(&x->o, "--repeat needs --sched with two "
				       "schedulers or more, or --sched=all");
		return;
	}
	if (strlen(x->sched) >= sizeof(c->list) || x->sched[0] == ',' ||
	    x->sched[strlen(x->sched) - 1] == ',' || strstr(x->sched, ",,"))
		tool_usage_error(&x->o, "bad --sched '%s' (want NAME,NAME[,...] or "
			       "all)", x->sched);
	if (x->ntune)
		tool_usage_error(&x->o, "--sched-opt sets one scheduler's tunables: "
			       "not with a list of schedulers");
	if (!c->repeat)
		c->repeat = 1;
	strcpy(c->list, x->sched);
	c->all = !strcmp(c->list, "all");
	if (c->all)
		return;
	for (tok = strtok_r(c->list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "all"))
			tool_usage_error(&x->o, "--sched: all stands alone");
		for (size_t i = 0; i < c->n; i++)
			if (!strcmp(c->name[i], tok))
				tool_usage_error(&x->o, "--sched: %s given twice", tok);
		if (c->n == BT_REPLAY_MAX_SCHEDS)
			tool_usage_error(&x->o, "--sched: at most %d schedulers",
				       BT_REPLAY_MAX_SCHEDS);
		c->name[c->n++] = tok;
	}
}

static void parse(struct replay *x, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "target", required_argument, NULL, O_TARGET },
		{ "device", required_argument, NULL, O_DEVICE },
		{ "sched", required_argument, NULL, O_SCHED },
		{ "sched-opt", required_argument, NULL, O_SCHED_OPT },
		{ "write", no_argument, NULL, O_WRITE },
		{ "force", no_argument, NULL, O_FORCE },
		{ "speed", required_argument, NULL, O_SPEED },
		{ "no-stall", no_argument, NULL, O_NO_STALL },
		{ "from", required_argument, NULL, O_FROM },
		{ "map", required_argument, NULL, O_MAP },
		{ "capture", required_argument, NULL, O_CAPTURE },
		{ "repeat", required_argument, NULL, O_REPEAT },
		{ "pid", required_argument, NULL, 'p' },
		{ "window", required_argument, NULL, 'w' },
		{ "no-header", no_argument, NULL, 'H' },
		{ "csv", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	tool_opts_init(&x->o, argv[0]);
	x->speed = 1.0;
	x->cap_fd = -1;
	opterr = 0;	/* our messages name the program without its path */
	while ((c = getopt_long(argc, argv, ":" TOOL_SHORTOPTS "r", lo,
				NULL)) != -1) {
		if (tool_opts_common(&x->o, c, optarg))
			continue;
		switch (c) {
		case 'h':
			usage();
			exit(fflush(stdout) ? TOOL_EXIT_DATA : TOOL_EXIT_OK);
		case O_DEVICE:
			/* elsewhere --device is the -d filter: say so once */
			if (!x->target)
				fprintf(stderr, "%s: --device is now --target (in the "
					"other tools --device is the -d filter)\n",
					x->o.prog);
			/* fall through */
		case O_TARGET: x->target = optarg; break;
		case O_SCHED: x->sched = optarg; break;
		case O_WRITE: x->write = 1; break;
		case O_FORCE: x->force = 1; break;
		case O_NO_STALL: x->no_stall = 1; break;
		case O_CAPTURE: x->capture = optarg; break;
		case 'r': x->per_proc = 1; break;
		case O_REPEAT:
			errno = 0;
			x->cmp.repeat = (unsigned)strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' ||
			    !x->cmp.repeat || x->cmp.repeat > MAX_REPEAT)
				tool_usage_error(&x->o, "bad --repeat '%s' (want 1 to %d)",
					       optarg, MAX_REPEAT);
			break;
		case O_SCHED_OPT:
			if (!strchr(optarg, '=') || optarg[0] == '=' ||
			    x->ntune == MAX_TUNES)
				tool_usage_error(&x->o, "bad --sched-opt '%s' (want KEY=VALUE)",
					       optarg);
			x->tune[x->ntune++] = optarg;
			break;
		case O_MAP:
			add_map(x, optarg);
			break;
		case O_SPEED:
			errno = 0;
			x->speed = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(x->speed > 0) ||
			    x->speed > 1e6)
				tool_usage_error(&x->o, "bad speed '%s'", optarg);
			break;
		case O_FROM:
			if (strcmp(optarg, "Q") && strcmp(optarg, "D"))
				tool_usage_error(&x->o, "bad --from '%s' (want Q or D)", optarg);
			x->from_d = optarg[0] == 'D';
			break;
		default:
			tool_bad_option(&x->o, argv, "dpw");
		}
	}
	if (x->no_stall && x->speed != 1.0)
		tool_usage_error(&x->o, "--speed and --no-stall exclude each other");
	if (x->target && x->nmap)
		tool_usage_error(&x->o, "--target and --map exclude each other");
	parse_list(x);
}

/* ----------------------------------------------------------- loading */

/*
 * Nothing to replay from a trace that was read: say which events it lacks
 * and what would work (a capture with -a issue -a complete has no Q).
 */
static void explain_nothing(const struct replay *x, uint64_t nq, uint64_t nd)
{
	const char *p = x->o.prog;

	if (x->conf.has_pid)
		fprintf(stderr, "%s: nothing to replay: no I/O of pid %u\n", p,
			(unsigned)x->conf.pid);
	else if (!x->from_d && !nq && nd)
		fprintf(stderr, "%s: nothing to replay: the trace has no Q events "
			"(bios queued), only %" PRIu64 " D; --from=D replays the "
			"requests as dispatched\n", p, nd);
	else if (x->from_d && !nd && nq)
		fprintf(stderr, "%s: nothing to replay: the trace has no D events "
			"(requests dispatched), only %" PRIu64 " Q; --from=Q (the "
			"default) replays the bios\n", p, nq);
	else if (!nq && !nd)
		fprintf(stderr, "%s: nothing to replay: the trace has no Q or D "
			"events\n", p);
	else
		fprintf(stderr, "%s: nothing to replay: its %" PRIu64 " %s events "
			"carry no data and no flush\n", p, x->from_d ? nd : nq,
			x->from_d ? "D" : "Q");
}

static int load(struct replay *x, int argc, char **argv, int64_t *nios)
{
	struct bt_replay_conf *conf = &x->conf;
	uint64_t first = UINT64_MAX, nq = 0, nd = 0;
	struct bt_event ev;
	int rc = 0, bad = 0;

	conf->from_d = (uint8_t)x->from_d;
	/* -p here, not in the reader: completions carry no owner's pid. */
	conf->has_pid = tool_take_pid(&x->o, &conf->pid);
	x->r = tool_open(&x->o, argc, argv);
	if (bt_replay_new(&x->rp, conf) < 0)
		goto nomem;
	while (!got_signal && (rc = tool_next(&x->o, x->r, &ev, &first)) > 0) {
		nq += ev.action == BT_A_QUEUE && !bt_event_is_note(&ev);
		nd += ev.action == BT_A_ISSUE && !bt_event_is_note(&ev);
		if (bt_replay_feed(x->rp, &ev) < 0)
			goto nomem;
	}
	if (rc < 0)
		bad = 1;
	tool_warnings(&x->o, x->r);
	*nios = bt_replay_loaded(x->rp);
	if (*nios < 0)
		goto nomem;
	if (*nios == 0 && !bad && !got_signal) {
		explain_nothing(x, nq, nd);
		bad = 1;
	}
	return bad;
nomem:
	tool_nomem(&x->o);
}

/* ------------------------------------------------------------ targets */

static void note(void *arg, const char *line)
{
	const struct replay *x = arg;

	fprintf(stderr, "%s: %s\n", x->o.prog, line);
}

/* Print "prog: what" and return status, for main() to clean up and exit. */
static int __attribute__((format(printf, 3, 4)))
fail(const struct replay *x, int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", x->o.prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return status;
}

/* Stop the capture, say what it recorded; -1 when it failed. */
static int stop_capture(struct replay *x)
{
	struct bt_capture_stats st;
	char msg[256];
	int rc;

	if (!x->cap)
		return 0;
	rc = bt_capture_stop(x->cap, &st, msg, sizeof(msg));
	x->cap = NULL;
	if (rc < 0) {
		fprintf(stderr, "%s: capture: %s\n", x->o.prog,
			*msg ? msg : strerror(-rc));
		return -1;
	}
	fprintf(stderr, "%s: captured %" PRIu64 " events (%" PRIu64 " lost) to %s\n",
		x->o.prog, st.events, st.lost, x->cap_path);
	return 0;
}

static void close_capture(struct replay *x)
{
	if (x->cap_fd >= 0 && close(x->cap_fd) < 0)
		fprintf(stderr, "%s: %s: %s\n", x->o.prog, x->cap_path,
			strerror(errno));
	x->cap_fd = -1;
}

/* Every scheduler switched back, with its tunables. */
static void restore_scheds(struct replay *x)
{
	for (size_t i = 0; i < x->nt; i++) {
		struct target *t = &x->t[i];
		int rc;

		if (!t->sched)
			continue;
		rc = bt_blkdev_sched_restore(t->sched);
		if (rc < 0)
			fprintf(stderr, "%s: %s: could not restore scheduler %s: %s\n",
				x->o.prog, t->b.disk, bt_blkdev_sched_old(t->sched),
				strerror(-rc));
		bt_blkdev_sched_free(t->sched);
		t->sched = NULL;
	}
}

static void cleanup(struct replay *x)
{
	stop_capture(x);
	close_capture(x);
	restore_scheds(x);
	for (size_t i = 0; i < x->nt; i++) {
		struct target *t = &x->t[i];

		bt_replay_snap_free(x->cmp.snap[i]);
		x->cmp.snap[i] = NULL;
		if (t->fd >= 0)
			close(t->fd);
		if (t->keep_fd >= 0)
			close(t->keep_fd);	/* scratch: detaches, file goes */
		t->fd = t->keep_fd = -1;
	}
}

/* Without --target or --map: a scratch loop device as large as the trace. */
static int scratch(struct replay *x, struct target *t, const struct bt_replay_dev *d)
{
	const char *dir = getenv("TMPDIR");
	int rc = bt_blkdev_scratch(dir && *dir ? dir : "/tmp", d->extent,
				   t->scratch, sizeof(t->scratch));

	if (rc < 0)
		return fail(x, TOOL_EXIT_DATA, "cannot make a scratch loop device: "
			    "%s (root needed; or --target FILE)", strerror(-rc));
	t->keep_fd = rc;
	t->path = t->scratch;
	t->is_blk = 1;
	rc = bt_blkdev_info(t->path, &t->b);
	if (rc < 0)
		return fail(x, TOOL_EXIT_DATA, "%s: %s", t->path, strerror(-rc));
	fprintf(stderr, "%s: scratch device %s for %u,%u (%" PRIu64
		" MiB sparse file, removed afterwards)\n", x->o.prog, t->path,
		BT_DEV_MAJOR(d->dev), BT_DEV_MINOR(d->dev),
		(t->b.size + (1 << 20) - 1) >> 20);
	return 0;
}

/* An explicit target: the safety rules of btreplay(1) "Safety". */
static int explicit(struct replay *x, struct target *t, const struct bt_replay_dev *d)
{
	unsigned flags = (x->write ? BT_TGT_WRITE : 0) | (x->force ? BT_TGT_FORCE : 0);
	struct bt_replay_verdict v;

	if (bt_replay_check_target(t->path, d, flags, &v) < 0)
		return fail(x, TOOL_EXIT_DATA, "%s: %s", t->path, v.why);
	if (v.refused)
		return fail(x, EXIT_REFUSED, "%s: %s", t->path, v.why);
	t->is_blk = v.is_blk;
	t->b = v.b;
	return 0;
}

/* Scheduler and tunables of t's disk, once per disk. */
static int set_sched(struct replay *x, struct target *t)
{
	char msg[256];

	if (x->cmp.n || x->cmp.all)
		return 0;	/* per run: compare_run() */
	if (!t->is_blk) {
		if (x->sched || x->ntune)
			fprintf(stderr, "%s: %s: a regular file has no scheduler: "
				"--sched ignored\n", x->o.prog, t->path);
		return 0;
	}
	for (struct target *o = x->t; o < t; o++)
		if (o->is_blk && strcmp(o->b.disk, t->b.disk) == 0)
			return 0;
	if (bt_replay_sched_apply(t->b.disk, x->sched, x->tune, x->ntune, note,
				  x, &t->sched, msg, sizeof(msg)) < 0)
		return fail(x, TOOL_EXIT_DATA, "%s", msg);
	return 0;
}

static int setup_targets(struct replay *x)
{
	size_t n = bt_replay_ndevs(x->rp);
	struct bt_replay_dev d;
	int rc;

	if (n > MAX_TARGETS)
		return fail(x, TOOL_EXIT_USAGE, "the trace holds %zu devices: choose "
			    "with -d", n);
	for (size_t i = 0; i < n; i++) {
		struct target *t = &x->t[x->nt++];

		t->fd = t->keep_fd = -1;
		bt_replay_dev_get(x->rp, i, &d);
		rc = bt_replay_target_path(x->map, x->nmap, x->target, d.dev, n,
					   &t->path);
		if (rc == -ENOENT)
			return fail(x, TOOL_EXIT_USAGE, "traced device %u,%u has no "
				    "--map", BT_DEV_MAJOR(d.dev), BT_DEV_MINOR(d.dev));
		if (rc < 0)
			return fail(x, TOOL_EXIT_USAGE, "the trace holds %zu devices: "
				    "choose one with -d MAJ,MIN or map each with "
				    "--map", n);
		rc = t->path ? explicit(x, t, &d) : scratch(x, t, &d);
		if (rc)
			return rc;
		rc = bt_replay_open_target(t->path, t->is_blk,
					   d.writes + d.discards > 0, note, x);
		if (rc < 0)
			return fail(x, TOOL_EXIT_DATA, "%s: %s", t->path, strerror(-rc));
		t->fd = rc;
		rc = set_sched(x, t);
		if (rc)
			return rc;
		bt_replay_target(x->rp, i, t->fd, t->is_blk);
		if (got_signal)
			return fail(x, 128 + got_signal, "interrupted before the "
				    "replay started");
	}
	return 0;
}

/* Record the replay into path, or into an unlinked file in TMPDIR (NULL). */
static int start_capture(struct replay *x, const char *path)
{
	const char *devs[MAX_TARGETS], *dir = getenv("TMPDIR");
	struct bt_capture_opts co = { 0 };
	char msg[256] = "", tmp[4096];
	size_t len = path ? strlen(path) : 0;
	int rc;

	for (size_t i = 0; i < x->nt; i++) {
		if (!x->t[i].is_blk)
			return fail(x, TOOL_EXIT_USAGE, "--capture needs block devices: "
				    "%s is a file", x->t[i].path);
		devs[i] = x->t[i].path;
	}
	if (path) {
		x->cap_fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	} else {
		snprintf(tmp, sizeof(tmp), "%s/btreplay-run.XXXXXX",
			 dir && *dir ? dir : "/tmp");
		x->cap_fd = mkostemp(tmp, O_CLOEXEC);
		if (x->cap_fd >= 0)
			unlink(tmp);
		path = "a temporary file";
	}
	x->cap_path = path;
	if (x->cap_fd < 0)
		return fail(x, TOOL_EXIT_DATA, "%s: %s", path, strerror(errno));
	co.devs = devs;
	co.ndevs = x->nt;
	co.out_fd = x->cap_fd;
	co.gzip = len > 3 && !strcmp(path + len - 3, ".gz") ? 6 : 0;
	rc = bt_capture_start(&x->cap, &co, msg, sizeof(msg));
	if (rc < 0) {
		x->cap = NULL;
		return fail(x, TOOL_EXIT_DATA, "capture: %s", *msg ? msg : strerror(-rc));
	}
	return 0;
}

/* ------------------------------------------------------------- report */

static const char *const cols[] = {
	"sched", "run",	/* with a list only */
	"pid", "comm", "ios", "bytes", "lat_p50_us", "lat_p99_us",
	"lag_p50_us", "lag_p99_us", "lag_max_us", "errors",
};
#define LIST_COLS	2

static void row(struct bt_table *t, const struct bt_replay_proc *p,
		const char *comm, const char *label, unsigned run)
{
	if (label) {
		bt_table_str(t, label);
		bt_table_u64(t, run);
	}
	if (comm)
		bt_table_u64(t, p->pid);
	else
		bt_table_str(t, "total");
	bt_table_str(t, comm ? comm : "-");
	bt_table_u64(t, p->ios);
	bt_table_u64(t, p->bytes);
	bt_table_us(t, p->lat_p50);
	bt_table_us(t, p->lat_p99);
	bt_table_us(t, p->lag_p50);
	bt_table_us(t, p->lag_p99);
	bt_table_us(t, p->lag_max);
	bt_table_u64(t, p->errors);
	bt_table_end_row(t);
}

/* The rows of the last replay (label: its scheduler with a list); errors. */
static uint64_t proc_rows(struct replay *x, struct bt_table *t,
			  const char *label, unsigned run)
{
	size_t n = bt_replay_nprocs(x->rp);
	struct bt_replay_proc p;

	for (size_t i = 0; t && i < n; i++) {
		const char *comm;

		bt_replay_proc_get(x->rp, i, &p);
		comm = bt_reader_comm(x->r, p.pid);
		row(t, &p, comm ? comm : "?", label, run);
	}
	bt_replay_proc_get(x->rp, n, &p);
	if (t)
		row(t, &p, NULL, label, run);
	if (p.errors)
		fprintf(stderr, "%s: %" PRIu64 " of %" PRIu64 " I/Os failed (first: %s)\n",
			x->o.prog, p.errors, p.ios, strerror(p.first_error));
	return p.errors;
}

static int report(struct replay *x)
{
	struct bt_table *t = tool_table(&x->o,
		(struct bt_table_cols){ cols + LIST_COLS,
					TOOL_NCOLS(cols) - LIST_COLS });
	uint64_t errors = proc_rows(x, t, NULL, 0);

	return tool_table_done(&x->o, t) || errors ? TOOL_EXIT_DATA : TOOL_EXIT_OK;
}

/* One replay and its summary on stderr; a status when it failed. */
static int replay_once(struct replay *x, int64_t nios)
{
	struct bt_replay_opts ro = { x->speed, x->no_stall };
	struct bt_replay_proc tot;
	struct timespec a, b;
	double secs;
	int rc;

	running = x->rp;
	clock_gettime(CLOCK_MONOTONIC, &a);
	rc = bt_replay_run(x->rp, &ro);
	clock_gettime(CLOCK_MONOTONIC, &b);
	running = NULL;
	if (rc < 0)
		return fail(x, TOOL_EXIT_DATA, "replay: %s", strerror(-rc));
	bt_replay_proc_get(x->rp, bt_replay_nprocs(x->rp), &tot);
	/* As fio counts: from the first I/O issued to the last completion. */
	if (tot.span)
		secs = (double)tot.span / 1e9;
	else
		secs = (double)(b.tv_sec - a.tv_sec) +
		       (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	fprintf(stderr, "%s: replayed %" PRIu64 " of %" PRId64 " I/Os by %zu "
		"threads of total depth %u in %.6f s (%.0f IOPS)\n", x->o.prog,
		tot.ios, nios, bt_replay_nprocs(x->rp), tot.depth, secs,
		secs > 0 ? (double)tot.ios / secs : 0.0);
	if (!x->no_stall && tot.ios)
		fprintf(stderr, "%s: issue lag from when each I/O could go: p50 "
			"%.3f us, p99 %.3f us, max %.3f us; %" PRIu64 " I/Os were "
			"held: due while their process had its traced depth in "
			"flight\n", x->o.prog, (double)tot.elag_p50 / 1e3,
			(double)tot.elag_p99 / 1e3, (double)tot.elag_max / 1e3,
			tot.held);
	return 0;
}

/* ------------------------------------------------------------ compare */

/* --sched=all: what the first target's disk lists, then cfq. */
static int expand_all(struct replay *x)
{
	struct compare *c = &x->cmp;
	char cur[32], *tok, *save = NULL;
	int rc = bt_blkdev_sched_get(x->t[0].b.disk, cur, sizeof(cur), c->list,
				     sizeof(c->list));

	if (rc < 0)
		return fail(x, TOOL_EXIT_DATA, "%s: scheduler: %s", x->t[0].b.disk,
			    strerror(-rc));
	for (tok = strtok_r(c->list, " []\n", &save);
	     tok && c->n < BT_REPLAY_MAX_SCHEDS - 1;
	     tok = strtok_r(NULL, " []\n", &save))
		if (strcmp(tok, "cfq"))
			c->name[c->n++] = tok;
	c->name[c->n++] = "cfq";
	return 0;
}

/*
 * Before the first run: block devices only (a file has no scheduler),
 * the list, each label ("cfq(bfq)" where cfq maps to bfq), the contents
 * the runs will write saved, the comparison engine.
 */
static int compare_prepare(struct replay *x)
{
	struct compare *c = &x->cmp;
	const char *disk = x->t[0].b.disk, *dir = getenv("TMPDIR");
	struct bt_replay_dev d;
	int rc;

	for (size_t i = 0; i < x->nt; i++)
		if (!x->t[i].is_blk)
			return fail(x, TOOL_EXIT_USAGE, "--sched=%s compares schedulers "
				    "of a block device: %s is a regular file, which "
				    "has none", x->sched, x->t[i].path);
	if (c->all && (rc = expand_all(x)))
		return rc;
	for (size_t l = 0; l < c->n; l++) {
		const char *m = bt_blkdev_sched_avail(disk, c->name[l]) == 0 ?
				bt_blkdev_sched_legacy(c->name[l]) : NULL;

		snprintf(c->label[l], LABEL_LEN, m ? "%s(%s)" : "%s", c->name[l], m);
		c->labels[l] = c->label[l];
	}
	for (size_t i = 0; i < x->nt && c->n * c->repeat > 1; i++) {
		bt_replay_dev_get(x->rp, i, &d);
		if (!d.writes && !d.discards)
			continue;
		rc = bt_replay_snap_save(x->rp, i, dir && *dir ? dir : NULL,
					 &c->snap[i]);
		if (rc < 0)
			return fail(x, TOOL_EXIT_DATA, "%s: saving what the trace "
				    "writes: %s", x->t[i].path, strerror(-rc));
		fprintf(stderr, "%s: %s: saved the %.1f MiB the trace writes, "
			"written back before each run after the first\n", x->o.prog,
			x->t[i].path, (double)bt_replay_snap_bytes(c->snap[i]) /
			(1 << 20));
	}
	if (x->per_proc)
		c->procs = tool_table(&x->o, TOOL_COLS(cols));
	/* Groups by name: the replay threads carry the originals' names. */
	if (bt_diff_new(&c->diff, &(struct bt_diff_opts){ .by = BT_DIFF_BY_COMM }) < 0)
		tool_nomem(&x->o);
	return 0;
}

/* --capture FILE with a list: FILE-NAME[-RUN] before FILE's extensions. */
static const char *capture_name(const struct replay *x, size_t k, char *buf,
				size_t len)
{
	const struct compare *c = &x->cmp;
	const char *base, *ext;
	char run[24] = "";

	if (!x->capture)
		return NULL;
	base = strrchr(x->capture, '/');
	base = base ? base + 1 : x->capture;
	ext = strchr(base + (*base == '.'), '.');
	if (!ext)
		ext = base + strlen(base);
	if (c->repeat > 1)
		snprintf(run, sizeof(run), "-%zu", k / c->n + 1);
	snprintf(buf, len, "%.*s-%s%s%s", (int)(ext - x->capture), x->capture,
		 c->name[k % c->n], run, ext);
	return buf;
}

/* The capture of run k as recording k of the comparison. */
static int read_capture(struct replay *x, size_t k)
{
	struct compare *c = &x->cmp;
	char label[LABEL_LEN + 16];
	struct bt_reader *bad;
	uint64_t punted;
	int rc;

	if (c->repeat > 1)
		snprintf(label, sizeof(label), "%s#%zu", c->label[k % c->n],
			 k / c->n + 1);
	else
		snprintf(label, sizeof(label), "%s", c->label[k % c->n]);
	rc = bt_replay_capture_diff(x->rp, x->r, x->cap_fd, x->cap_path, c->diff,
				    label, &punted, &bad);
	if (rc == -ENOMEM)
		tool_nomem(&x->o);
	if (punted)
		fprintf(stderr, "%s: run %zu: %" PRIu64 " bios were queued by "
			"io_uring workers (iou-wrk-TID) for replay threads: "
			"counted as those threads'\n", x->o.prog, k + 1, punted);
	if (rc < 0) {
		if (bad)
			tool_warnings(&x->o, bad);
		fprintf(stderr, "%s: %s: cannot read the capture of run %zu: %s\n",
			x->o.prog, x->cap_path, k + 1, strerror(-rc));
		c->bad_capture = 1;
		bt_reader_free(bad);
	}
	return 0;
}

/* Scheduler name on every target's disk, once per disk. */
static int sched_targets(struct replay *x, const char *name)
{
	char msg[256];

	for (struct target *t = x->t; t < x->t + x->nt; t++) {
		int dup = 0;

		for (struct target *o = x->t; o < t; o++)
			dup |= !strcmp(o->b.disk, t->b.disk);
		if (!dup && bt_replay_sched_apply(t->b.disk, name, NULL, 0, note,
						  x, &t->sched, msg, sizeof(msg)) < 0)
			return fail(x, TOOL_EXIT_DATA, "%s", msg);
	}
	return 0;
}

/* Run k: contents back, its scheduler, the replay captured, compared. */
static int compare_run(struct replay *x, size_t k, int64_t nios)
{
	struct compare *c = &x->cmp;
	char path[4096];
	int rc;

	fprintf(stderr, "%s: run %zu of %zu: %s\n", x->o.prog, k + 1,
		c->n * c->repeat, c->label[k % c->n]);
	for (size_t i = 0; k && i < x->nt; i++)
		if (c->snap[i] && (rc = bt_replay_snap_restore(c->snap[i])) < 0)
			return fail(x, TOOL_EXIT_DATA, "%s: writing back its contents: "
				    "%s", x->t[i].path, strerror(-rc));
	rc = sched_targets(x, c->name[k % c->n]);
	if (!rc)
		rc = start_capture(x, capture_name(x, k, path, sizeof(path)));
	if (!rc)
		rc = replay_once(x, nios);
	if (rc)
		return rc;
	rc = stop_capture(x) < 0 ? TOOL_EXIT_DATA : 0;
	restore_scheds(x);
	/* A run cut short is not compared with whole ones. */
	if (!rc && !got_signal) {
		rc = read_capture(x, k);
		c->errors += proc_rows(x, c->procs, c->label[k % c->n],
				       (unsigned)(k / c->n + 1));
	}
	close_capture(x);
	return rc;
}

/* Every run, then the table and the verdict; the exit status. */
static int compare(struct replay *x, int64_t nios)
{
	struct compare *c = &x->cmp;
	int rc = compare_prepare(x), out;

	for (size_t k = 0; !rc && !got_signal && k < c->n * c->repeat; k++)
		rc = compare_run(x, k, nios);
	if (rc)
		return rc;
	if (c->procs) {
		out = tool_table_done(&x->o, c->procs);
	} else {
		out = bt_replay_compare_print(c->diff, c->labels, c->n, c->repeat,
					      stdout, tool_fmt(&x->o),
					      x->o.header) < 0 || fflush(stdout);
		if (!out && bt_diff_recordings(c->diff)) {
			fprintf(stderr, "%s: ", x->o.prog);
			bt_replay_compare_verdict(c->diff, c->labels, c->n,
						  c->repeat, stderr);
		}
		if (out)
			fprintf(stderr, "%s: write error: %s\n", x->o.prog,
				strerror(errno));
	}
	if (got_signal) {
		fprintf(stderr, "%s: interrupted\n", x->o.prog);
		return 128 + got_signal;
	}
	return out || c->errors || c->bad_capture ? TOOL_EXIT_DATA : TOOL_EXIT_OK;
}

/* Targets, capture, the replay, its summary; a status when it failed. */
static int run(struct replay *x, int64_t nios)
{
	int rc;

	/* A trace of the replay then names each thread as the original. */
	for (size_t i = 0; i < bt_replay_nprocs(x->rp); i++) {
		const char *comm = bt_reader_comm(x->r, bt_replay_proc_pid(x->rp, i));

		if (comm)
			bt_replay_proc_name(x->rp, i, comm);
	}
	rc = setup_targets(x);
	if (!rc && x->capture && !x->cmp.repeat)
		rc = start_capture(x, x->capture);
	if (!rc && got_signal)
		rc = fail(x, 128 + got_signal, "interrupted before the replay started");
	if (rc)
		return rc;
	if (x->cmp.repeat)
		return compare(x, nios);
	rc = replay_once(x, nios);
	if (!rc)
		cleanup(x);
	return rc;
}

int main(int argc, char **argv)
{
	struct replay x = { 0 };
	struct sigaction sa = { 0 };
	int64_t nios;
	int bad, status;

	parse(&x, argc, argv);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* A trace cut short (blktrace killed) is replayed up to the cut. */
	bad = load(&x, argc, argv, &nios);
	status = nios > 0 && !got_signal ? run(&x, nios) : 0;
	if (status || x.cmp.repeat) {
		/*
		 * Set-up or replay failed (what was changed goes back, no
		 * report), or a comparison, which reported itself.
		 */
		cleanup(&x);
		if (!status && (bad || nios <= 0))
			status = got_signal ? 128 + got_signal : TOOL_EXIT_DATA;
	} else {
		status = report(&x);
		if (bad)
			status = TOOL_EXIT_DATA;
		if (got_signal) {
			fprintf(stderr, "%s: interrupted\n", x.o.prog);
			status = 128 + got_signal;
		}
	}
	bt_diff_free(x.cmp.diff);
	bt_replay_free(x.rp);
	bt_reader_free(x.r);
	return status;
}
