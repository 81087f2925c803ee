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
 * its last descriptor closes, even if btreplay is killed.
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

struct target {
	const char *path;	/* as given, or the scratch loop device */
	char scratch[32];	/* /dev/loopN of a scratch device */
	int fd;			/* replay descriptor (O_DIRECT) */
	int keep_fd;		/* scratch: holds the loop device until the end */
	int is_blk;
	struct bt_blkdev b;
	struct bt_blkdev_sched *sched;	/* saved state to restore, or NULL */
};

struct replay {
	struct bt_opts o;
	struct bt_replay_conf conf;
	const char *target, *sched, *capture;
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
	       "      --sched-opt K=V    set queue/iosched/K (or queue/K); repeatable\n"
	       "      --write            allow the trace's writes and discards on DEV\n"
	       "      --force            replay onto a device in use or with a signature\n"
	       "      --speed X          replay X times faster (0.5: half speed)\n"
	       "      --no-stall         ignore recorded times, keep recorded depths\n"
	       "      --from Q|D         replay bios as queued (Q, default) or requests\n"
	       "                         as dispatched (D)\n"
	       "      --map MAJ,MIN=DEV  replay the traced device MAJ,MIN onto DEV\n"
	       "      --capture FILE     record the replay itself into FILE (.gz: gzip)\n"
	       "  -d MAJ,MIN             only the trace's I/O on this device\n"
	       "  -p, --pid PID          only this process's I/O\n"
	       "  -w, --window START:END only I/O from START to END seconds\n"
	       "  -H, --no-header        no header line\n"
	       "  -c, --csv              RFC 4180 CSV instead of tab-separated text\n"
	       "  -h, --help             this help\n"
	       "  -V, --version          print the version\n");
}

enum { O_TARGET = 256, O_DEVICE, O_SCHED, O_SCHED_OPT, O_WRITE, O_FORCE, O_SPEED,
       O_NO_STALL, O_FROM, O_MAP, O_CAPTURE };

/* --map MAJ,MIN=DEV: the traced device by the -d syntax, then its target. */
static void add_map(struct replay *x, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct bt_opts tmp = x->o;
	char spec[64];

	if (!eq || eq == arg || !eq[1] || (size_t)(eq - arg) >= sizeof(spec) ||
	    x->nmap == MAX_TARGETS)
		bt_usage_error(&x->o, "bad --map '%s' (want MAJ,MIN=DEV)", arg);
	memcpy(spec, arg, (size_t)(eq - arg));
	spec[eq - arg] = '\0';
	bt_opts_common(&tmp, 'd', spec);
	x->map[x->nmap++] = (struct bt_replay_map){ tmp.dev, eq + 1 };
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

	bt_opts_init(&x->o, argv[0]);
	x->speed = 1.0;
	x->cap_fd = -1;
	opterr = 0;	/* our messages name the program without its path */
	while ((c = getopt_long(argc, argv, ":" BT_COMMON_SHORTOPTS, lo, NULL)) != -1) {
		if (bt_opts_common(&x->o, c, optarg))
			continue;
		switch (c) {
		case 'h':
			usage();
			exit(fflush(stdout) ? BT_EXIT_DATA : BT_EXIT_OK);
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
		case O_SCHED_OPT:
			if (!strchr(optarg, '=') || optarg[0] == '=' ||
			    x->ntune == MAX_TUNES)
				bt_usage_error(&x->o, "bad --sched-opt '%s' (want KEY=VALUE)",
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
				bt_usage_error(&x->o, "bad speed '%s'", optarg);
			break;
		case O_FROM:
			if (strcmp(optarg, "Q") && strcmp(optarg, "D"))
				bt_usage_error(&x->o, "bad --from '%s' (want Q or D)", optarg);
			x->from_d = optarg[0] == 'D';
			break;
		default:
			bt_opts_bad_option(&x->o, argv, "dpw");
		}
	}
	if (x->no_stall && x->speed != 1.0)
		bt_usage_error(&x->o, "--speed and --no-stall exclude each other");
	if (x->target && x->nmap)
		bt_usage_error(&x->o, "--target and --map exclude each other");
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
	conf->has_pid = bt_opts_take_pid(&x->o, &conf->pid);
	x->r = bt_tool_open(&x->o, argc, argv);
	if (bt_replay_new(&x->rp, conf) < 0)
		goto nomem;
	while (!got_signal && (rc = bt_tool_next(&x->o, x->r, &ev, &first)) > 0) {
		nq += ev.action == BT_A_QUEUE && !bt_event_is_note(&ev);
		nd += ev.action == BT_A_ISSUE && !bt_event_is_note(&ev);
		if (bt_replay_feed(x->rp, &ev) < 0)
			goto nomem;
	}
	if (rc < 0)
		bad = 1;
	bt_tool_warnings(&x->o, x->r);
	*nios = bt_replay_loaded(x->rp);
	if (*nios < 0)
		goto nomem;
	if (*nios == 0 && !bad && !got_signal) {
		explain_nothing(x, nq, nd);
		bad = 1;
	}
	return bad;
nomem:
	bt_tool_nomem(&x->o);
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

static void cleanup(struct replay *x)
{
	char msg[256];
	int rc;

	if (x->cap) {
		struct bt_capture_stats st;

		rc = bt_capture_stop(x->cap, &st, msg, sizeof(msg));
		x->cap = NULL;
		if (rc < 0)
			fprintf(stderr, "%s: capture: %s\n", x->o.prog,
				*msg ? msg : strerror(-rc));
		else
			fprintf(stderr, "%s: captured %" PRIu64 " events (%" PRIu64
				" lost) to %s\n", x->o.prog, st.events, st.lost,
				x->capture);
	}
	if (x->cap_fd >= 0 && close(x->cap_fd) < 0)
		fprintf(stderr, "%s: %s: %s\n", x->o.prog, x->capture, strerror(errno));
	x->cap_fd = -1;
	for (size_t i = 0; i < x->nt; i++) {
		struct target *t = &x->t[i];

		if (t->sched) {
			rc = bt_blkdev_sched_restore(t->sched);
			if (rc < 0)
				fprintf(stderr, "%s: %s: could not restore scheduler %s: %s\n",
					x->o.prog, t->b.disk,
					bt_blkdev_sched_old(t->sched), strerror(-rc));
			bt_blkdev_sched_free(t->sched);
			t->sched = NULL;
		}
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
		return fail(x, BT_EXIT_DATA, "cannot make a scratch loop device: "
			    "%s (root needed; or --target FILE)", strerror(-rc));
	t->keep_fd = rc;
	t->path = t->scratch;
	t->is_blk = 1;
	rc = bt_blkdev_info(t->path, &t->b);
	if (rc < 0)
		return fail(x, BT_EXIT_DATA, "%s: %s", t->path, strerror(-rc));
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
		return fail(x, BT_EXIT_DATA, "%s: %s", t->path, v.why);
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
		return fail(x, BT_EXIT_DATA, "%s", msg);
	return 0;
}

static int setup_targets(struct replay *x)
{
	size_t n = bt_replay_ndevs(x->rp);
	struct bt_replay_dev d;
	int rc;

	if (n > MAX_TARGETS)
		return fail(x, BT_EXIT_USAGE, "the trace holds %zu devices: choose "
			    "with -d", n);
	for (size_t i = 0; i < n; i++) {
		struct target *t = &x->t[x->nt++];

		t->fd = t->keep_fd = -1;
		bt_replay_dev_get(x->rp, i, &d);
		rc = bt_replay_target_path(x->map, x->nmap, x->target, d.dev, n,
					   &t->path);
		if (rc == -ENOENT)
			return fail(x, BT_EXIT_USAGE, "traced device %u,%u has no "
				    "--map", BT_DEV_MAJOR(d.dev), BT_DEV_MINOR(d.dev));
		if (rc < 0)
			return fail(x, BT_EXIT_USAGE, "the trace holds %zu devices: "
				    "choose one with -d MAJ,MIN or map each with "
				    "--map", n);
		rc = t->path ? explicit(x, t, &d) : scratch(x, t, &d);
		if (rc)
			return rc;
		rc = bt_replay_open_target(t->path, t->is_blk,
					   d.writes + d.discards > 0, note, x);
		if (rc < 0)
			return fail(x, BT_EXIT_DATA, "%s: %s", t->path, strerror(-rc));
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

static int start_capture(struct replay *x)
{
	const char *devs[MAX_TARGETS];
	struct bt_capture_opts co = { 0 };
	char msg[256] = "";
	size_t len = strlen(x->capture);
	int rc;

	for (size_t i = 0; i < x->nt; i++) {
		if (!x->t[i].is_blk)
			return fail(x, BT_EXIT_USAGE, "--capture needs block devices: "
				    "%s is a file", x->t[i].path);
		devs[i] = x->t[i].path;
	}
	x->cap_fd = open(x->capture, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (x->cap_fd < 0)
		return fail(x, BT_EXIT_DATA, "%s: %s", x->capture, strerror(errno));
	co.devs = devs;
	co.ndevs = x->nt;
	co.out_fd = x->cap_fd;
	co.gzip = len > 3 && !strcmp(x->capture + len - 3, ".gz") ? 6 : 0;
	rc = bt_capture_start(&x->cap, &co, msg, sizeof(msg));
	if (rc < 0) {
		x->cap = NULL;
		return fail(x, BT_EXIT_DATA, "capture: %s", *msg ? msg : strerror(-rc));
	}
	return 0;
}

/* ------------------------------------------------------------- report */

static const char *const cols[] = {
	"pid", "comm", "ios", "bytes", "lat_p50_us", "lat_p99_us",
	"lag_p50_us", "lag_p99_us", "lag_max_us", "errors",
};

static void row(struct bt_table *t, const struct bt_replay_proc *p,
		const char *comm)
{
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

static int report(struct replay *x)
{
	struct bt_table *t = bt_tool_table(&x->o, cols, BT_NCOLS(cols));
	size_t n = bt_replay_nprocs(x->rp);
	struct bt_replay_proc p;

	for (size_t i = 0; i < n; i++) {
		const char *comm;

		bt_replay_proc_get(x->rp, i, &p);
		comm = bt_reader_comm(x->r, p.pid);
		row(t, &p, comm ? comm : "?");
	}
	bt_replay_proc_get(x->rp, n, &p);
	row(t, &p, NULL);
	if (p.errors)
		fprintf(stderr, "%s: %" PRIu64 " of %" PRIu64 " I/Os failed (first: %s)\n",
			x->o.prog, p.errors, p.ios, strerror(p.first_error));
	return bt_tool_table_done(&x->o, t) || p.errors ? BT_EXIT_DATA : BT_EXIT_OK;
}

/* Targets, capture, the replay, its summary; a status when it failed. */
static int run(struct replay *x, int64_t nios)
{
	struct bt_replay_opts ro = { x->speed, x->no_stall };
	struct bt_replay_proc tot;
	struct timespec a, b;
	double secs;
	int rc;

	/* A trace of the replay then names each thread as the original. */
	for (size_t i = 0; i < bt_replay_nprocs(x->rp); i++) {
		const char *comm = bt_reader_comm(x->r, bt_replay_proc_pid(x->rp, i));

		if (comm)
			bt_replay_proc_name(x->rp, i, comm);
	}
	rc = setup_targets(x);
	if (!rc && x->capture)
		rc = start_capture(x);
	if (!rc && got_signal)
		rc = fail(x, 128 + got_signal, "interrupted before the replay started");
	if (rc)
		return rc;
	running = x->rp;
	clock_gettime(CLOCK_MONOTONIC, &a);
	rc = bt_replay_run(x->rp, &ro);
	clock_gettime(CLOCK_MONOTONIC, &b);
	running = NULL;
	if (rc < 0)
		return fail(x, BT_EXIT_DATA, "replay: %s", strerror(-rc));
	cleanup(x);
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
	if (status) {
		/* set-up or replay failed: what was changed goes back, no report */
		cleanup(&x);
	} else {
		status = report(&x);
		if (bad)
			status = BT_EXIT_DATA;
		if (got_signal) {
			fprintf(stderr, "%s: interrupted\n", x.o.prog);
			status = 128 + got_signal;
		}
	}
	bt_replay_free(x.rp);
	bt_reader_free(x.r);
	return status;
}
