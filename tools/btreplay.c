// SPDX-License-Identifier: MIT
/*
 * btreplay - replay a trace on a device under a chosen I/O scheduler, one
 * thread per traced process, and report per process how long the I/Os took
 * and how late they went out.  Without --device the target is a scratch
 * loop device on a sparse temporary file, so nothing of the machine's is
 * touched; an explicit device passes the safety checks of DESIGN.md first.
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
	const char *device, *sched, *capture;
	const char *tune[MAX_TUNES];
	size_t ntune;
	const char *map[MAX_TARGETS];
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
	       "      --device DEV       replay onto DEV (block device or regular file);\n"
	       "                         default: a scratch loop device, removed after\n"
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

enum { O_DEVICE = 256, O_SCHED, O_SCHED_OPT, O_WRITE, O_FORCE, O_SPEED,
       O_NO_STALL, O_FROM, O_MAP, O_CAPTURE };

static void parse(struct replay *x, int argc, char **argv)
{
	static const struct option lo[] = {
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
		case O_DEVICE: x->device = optarg; break;
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
			if (!strchr(optarg, '=') || x->nmap == MAX_TARGETS)
				bt_usage_error(&x->o, "bad --map '%s' (want MAJ,MIN=DEV)",
					       optarg);
			x->map[x->nmap++] = optarg;
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
	if (x->device && x->nmap)
		bt_usage_error(&x->o, "--device and --map exclude each other");
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

static void __attribute__((noreturn, format(printf, 3, 4)))
die(struct replay *x, int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", x->o.prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cleanup(x);
	exit(status);
}

static void check_signal(struct replay *x)
{
	if (got_signal)
		die(x, 128 + got_signal, "interrupted before the replay started");
}

/* Target path of traced device dev: --map, --device, or NULL (scratch). */
static const char *target_of(struct replay *x, uint32_t dev, size_t ndevs)
{
	for (size_t i = 0; i < x->nmap; i++) {
		char spec[64];
		const char *eq = strchr(x->map[i], '=');
		struct bt_opts tmp = x->o;

		if ((size_t)(eq - x->map[i]) >= sizeof(spec))
			continue;
		memcpy(spec, x->map[i], (size_t)(eq - x->map[i]));
		spec[eq - x->map[i]] = '\0';
		bt_opts_common(&tmp, 'd', spec);
		if (tmp.dev == dev)
			return eq + 1;
	}
	if (x->nmap)
		die(x, BT_EXIT_USAGE, "traced device %u,%u has no --map",
		    BT_DEV_MAJOR(dev), BT_DEV_MINOR(dev));
	if (x->device && ndevs > 1)
		die(x, BT_EXIT_USAGE, "the trace holds %zu devices: choose one "
		    "with -d MAJ,MIN or map each with --map", ndevs);
	return x->device;
}

/* The safety rules of an explicit device; exits when one says no. */
static void check_target(struct replay *x, struct target *t,
			 const struct bt_replay_dev *d)
{
	uint64_t writes = d->writes + d->discards;
	struct bt_blkdev_safety s;
	struct stat st;
	uint64_t size;
	int rc;

	if (stat(t->path, &st) < 0)
		die(x, BT_EXIT_DATA, "%s: %s", t->path, strerror(errno));
	t->is_blk = S_ISBLK(st.st_mode);
	if (!t->is_blk && !S_ISREG(st.st_mode))
		die(x, BT_EXIT_DATA, "%s: not a block device or regular file", t->path);
	if (t->is_blk) {
		rc = bt_blkdev_info(t->path, &t->b);
		if (rc < 0)
			die(x, BT_EXIT_DATA, "%s: %s", t->path, strerror(-rc));
		rc = bt_blkdev_check(t->path, &t->b, &s);
		if (rc < 0)
			die(x, BT_EXIT_DATA, "%s: %s", t->path, strerror(-rc));
		if (s.reasons & BT_BLK_ROOT)
			die(x, EXIT_REFUSED, "%s: refused: it holds the root filesystem",
			    t->path);
		size = t->b.size;
	} else {
		size = (uint64_t)st.st_size;
	}
	if (d->extent > size)
		die(x, EXIT_REFUSED, "%s: refused: the trace reaches byte %" PRIu64
		    " but the device ends at %" PRIu64, t->path, d->extent, size);
	if (writes && !x->write)
		die(x, EXIT_REFUSED, "%s: refused: the trace has %" PRIu64 " writes and %"
		    PRIu64 " discards that would overwrite it; add --write",
		    t->path, d->writes, d->discards);
	if (!t->is_blk || x->force)
		return;
	if (s.reasons & BT_BLK_MOUNTED)
		die(x, EXIT_REFUSED, "%s: refused: %s; --force to replay anyway",
		    t->path, s.mounted);
	if (s.reasons & BT_BLK_HOLDERS)
		die(x, EXIT_REFUSED, "%s: refused: held by %s; --force to replay anyway",
		    t->path, s.holder);
	if (s.reasons & BT_BLK_BUSY)
		die(x, EXIT_REFUSED, "%s: refused: open elsewhere (O_EXCL: busy); "
		    "--force to replay anyway", t->path);
	if (s.reasons & BT_BLK_SIGNATURE)
		die(x, EXIT_REFUSED, "%s: refused: it carries a signature (%s); "
		    "--force to replay anyway", t->path, s.signature);
}

static void open_target(struct replay *x, struct target *t, uint64_t writes)
{
	int flags = (writes ? O_RDWR : O_RDONLY) | O_CLOEXEC;

	t->fd = open(t->path, flags | O_DIRECT);
	if (t->fd < 0 && errno == EINVAL && !t->is_blk) {
		fprintf(stderr, "%s: %s: no O_DIRECT on this filesystem: "
			"replaying through the page cache\n", x->o.prog, t->path);
		t->fd = open(t->path, flags);
	}
	if (t->fd < 0)
		die(x, BT_EXIT_DATA, "%s: %s", t->path, strerror(errno));
}

/* Scheduler and tunables of t's disk, once per disk; prints what is used. */
static void set_sched(struct replay *x, struct target *t)
{
	const char *want = x->sched, *legacy = NULL;
	char cur[32], got[96];
	int rc;

	for (struct target *o = x->t; o < t; o++)
		if (o->is_blk && strcmp(o->b.disk, t->b.disk) == 0)
			return;
	if (want && bt_blkdev_sched_avail(t->b.disk, want) == 0 &&
	    (legacy = bt_blkdev_sched_legacy(want)) != NULL) {
		fprintf(stderr, "%s: %s: no %s on blk-mq kernels: using %s%s\n",
			x->o.prog, t->b.disk, want, legacy,
			strcmp(want, "noop") && strcmp(want, "deadline") ?
			" (BFQ is not CFQ: budgets in sectors, not time slices)" : "");
		want = legacy;
	}
	rc = bt_blkdev_sched_switch(t->b.disk, want, &t->sched);
	if (rc == -EINVAL || rc == -ENOENT)
		die(x, BT_EXIT_DATA, "%s: cannot use scheduler %s here", t->b.disk, want);
	if (rc < 0)
		die(x, BT_EXIT_DATA, "%s: scheduler %s: %s", t->b.disk, want,
		    strerror(-rc));
	/* CFQ's defaults the replay should resemble: 8 ms idling, no boosting. */
	if (legacy && !strcmp(x->sched, "cfq")) {
		static const char *const cfq[][2] = {
			{ "slice_idle", "8" }, { "low_latency", "0" } };

		for (size_t i = 0; i < 2; i++) {
			rc = bt_blkdev_sched_tune(t->sched, cfq[i][0], cfq[i][1],
						  got, sizeof(got));
			if (rc < 0)
				die(x, BT_EXIT_DATA, "%s: %s=%s: %s", t->b.disk,
				    cfq[i][0], cfq[i][1], strerror(-rc));
		}
		fprintf(stderr, "%s: %s: bfq slice_idle=8 (ms) low_latency=0, "
			"as CFQ\n", x->o.prog, t->b.disk);
	}
	for (size_t i = 0; i < x->ntune; i++) {
		char key[64];
		const char *eq = strchr(x->tune[i], '=');

		snprintf(key, sizeof(key), "%.*s", (int)(eq - x->tune[i]), x->tune[i]);
		rc = bt_blkdev_sched_tune(t->sched, key, eq + 1, got, sizeof(got));
		if (rc < 0)
			die(x, BT_EXIT_DATA, "%s: %s: %s", t->b.disk, x->tune[i],
			    strerror(-rc));
		fprintf(stderr, "%s: %s: %s=%s\n", x->o.prog, t->b.disk, key, got);
	}
	rc = bt_blkdev_sched_get(t->b.disk, cur, sizeof(cur), NULL, 0);
	if (rc < 0)
		die(x, BT_EXIT_DATA, "%s: scheduler: %s", t->b.disk, strerror(-rc));
	fprintf(stderr, "%s: scheduler %s on %s (was %s)\n", x->o.prog, cur,
		t->b.disk, bt_blkdev_sched_old(t->sched));
}

static void setup_targets(struct replay *x)
{
	size_t n = bt_replay_ndevs(x->rp);
	struct bt_replay_dev d;
	int rc;

	if (n > MAX_TARGETS)
		die(x, BT_EXIT_USAGE, "the trace holds %zu devices: choose with -d", n);
	for (size_t i = 0; i < n; i++) {
		struct target *t = &x->t[x->nt++];

		t->fd = t->keep_fd = -1;
		bt_replay_dev_get(x->rp, i, &d);
		t->path = target_of(x, d.dev, n);
		if (t->path) {
			check_target(x, t, &d);
		} else {
			const char *dir = getenv("TMPDIR");

			rc = bt_blkdev_scratch(dir && *dir ? dir : "/tmp", d.extent,
					       t->scratch, sizeof(t->scratch));
			if (rc < 0)
				die(x, BT_EXIT_DATA, "cannot make a scratch loop device: "
				    "%s (root needed; or --device FILE)", strerror(-rc));
			t->keep_fd = rc;
			t->path = t->scratch;
			t->is_blk = 1;
			rc = bt_blkdev_info(t->path, &t->b);
			if (rc < 0)
				die(x, BT_EXIT_DATA, "%s: %s", t->path, strerror(-rc));
			fprintf(stderr, "%s: scratch device %s for %u,%u (%" PRIu64
				" MiB sparse file, removed afterwards)\n", x->o.prog,
				t->path, BT_DEV_MAJOR(d.dev), BT_DEV_MINOR(d.dev),
				(t->b.size + (1 << 20) - 1) >> 20);
		}
		open_target(x, t, d.writes + d.discards);
		if (t->is_blk)
			set_sched(x, t);
		else if (x->sched || x->ntune)
			fprintf(stderr, "%s: %s: a regular file has no scheduler: "
				"--sched ignored\n", x->o.prog, t->path);
		bt_replay_target(x->rp, i, t->fd, t->is_blk);
		check_signal(x);
	}
}

static void start_capture(struct replay *x)
{
	const char *devs[MAX_TARGETS];
	struct bt_capture_opts co = { 0 };
	char msg[256] = "";
	size_t len = strlen(x->capture);
	int rc;

	for (size_t i = 0; i < x->nt; i++) {
		if (!x->t[i].is_blk)
			die(x, BT_EXIT_USAGE, "--capture needs block devices: %s is a file",
			    x->t[i].path);
		devs[i] = x->t[i].path;
	}
	x->cap_fd = open(x->capture, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (x->cap_fd < 0)
		die(x, BT_EXIT_DATA, "%s: %s", x->capture, strerror(errno));
	co.devs = devs;
	co.ndevs = x->nt;
	co.out_fd = x->cap_fd;
	co.gzip = len > 3 && !strcmp(x->capture + len - 3, ".gz") ? 6 : 0;
	rc = bt_capture_start(&x->cap, &co, msg, sizeof(msg));
	if (rc < 0) {
		x->cap = NULL;
		die(x, BT_EXIT_DATA, "capture: %s", *msg ? msg : strerror(-rc));
	}
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

static void run(struct replay *x, int64_t nios)
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
	setup_targets(x);
	if (x->capture)
		start_capture(x);
	check_signal(x);
	running = x->rp;
	clock_gettime(CLOCK_MONOTONIC, &a);
	rc = bt_replay_run(x->rp, &ro);
	clock_gettime(CLOCK_MONOTONIC, &b);
	running = NULL;
	if (rc < 0)
		die(x, BT_EXIT_DATA, "replay: %s", strerror(-rc));
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
	if (nios > 0 && !got_signal)
		run(&x, nios);
	status = report(&x);
	if (bad)
		status = BT_EXIT_DATA;
	if (got_signal) {
		fprintf(stderr, "%s: interrupted\n", x.o.prog);
		status = 128 + got_signal;
	}
	bt_replay_free(x.rp);
	bt_reader_free(x.r);
	return status;
}
