// SPDX-License-Identifier: MIT
/*
 * btcapture - record a blktrace trace of block devices, also where blktrace
 * cannot (kernel lockdown forbids the relay files): one time-ordered stream
 * with PROCESS and TIMESTAMP notes that `blkparse -i -` and every btkit tool
 * read, or per-CPU files like blktrace writes.  Runs until SIGINT/SIGTERM,
 * -w SECS, or the end of a command given after "--".  The engine is
 * lib/capture.c; this file parses options, runs the command and waits.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "common.h"

#define MAX_DEVS	64

static const char usage[] =
	"Usage: btcapture -d DEV [-d DEV]... (-o FILE | -D DIR) [options]"
	" [-- COMMAND [ARG]...]\n"
	"Record a blktrace trace of block devices until SIGINT/SIGTERM, -w SECS\n"
	"or the end of COMMAND (then exit with its status).\n"
	"  -d, --dev DEV          block device to trace (repeatable)\n"
	"  -o, --output FILE      one time-ordered stream, '-' for stdout; with -D\n"
	"                         the basename of the per-CPU files (one device)\n"
	"  -D, --output-dir DIR   per-CPU files DIR/NAME.blktrace.CPU (DIR made\n"
	"                         when missing)\n"
	"  -w, --stopwatch SECS   stop after SECS seconds\n"
	"  -a, --act-mask NAME    only these categories (repeatable): read write\n"
	"                         barrier|flush sync queue requeue issue complete\n"
	"                         fs pc notify ahead meta discard drv_data fua\n"
	"  -b, --buffer-size KB   kernel buffer per CPU (default: tracefs 65536\n"
	"                         over the CPUs, at least 8192; relay 2048)\n"
	"  -z, --gzip             gzip the output\n"
	"      --via=auto|relay|tracefs\n"
	"                         relay files (blktrace's way) or the tracefs blk\n"
	"                         tracer; auto uses tracefs when relay gives EPERM\n"
	"      --cgroup           keep cgroup ids (blkparse 1.2 cannot read them)\n"
	"  -q, --quiet            no summary on stderr\n"
	"  -h, --help             this help\n"
	"  -V, --version          print the version\n"
	"Exit: 0 ok, 1 error or events lost, 2 usage; COMMAND's status when it\n"
	"failed (128+N when killed by signal N).\n";

static const struct {
	const char *name;
	uint16_t mask;
} act_names[] = {
	{ "read", BT_TC_READ }, { "write", BT_TC_WRITE },
	{ "barrier", BT_TC_FLUSH }, { "flush", BT_TC_FLUSH },
	{ "sync", BT_TC_SYNC }, { "queue", BT_TC_QUEUE },
	{ "requeue", BT_TC_REQUEUE }, { "issue", BT_TC_ISSUE },
	{ "complete", BT_TC_COMPLETE }, { "fs", BT_TC_FS },
	{ "pc", BT_TC_PC }, { "notify", BT_TC_NOTIFY },
	{ "ahead", BT_TC_AHEAD }, { "meta", BT_TC_META },
	{ "discard", BT_TC_DISCARD }, { "drv_data", BT_TC_DRV_DATA },
	{ "fua", BT_TC_FUA },
};

struct args {
	struct tool_opts o;
	const char *devs[MAX_DEVS];
	size_t ndevs;
	const char *output, *dir;
	double secs;
	int quiet;
	char **cmd;
	struct bt_capture_opts co;
};

static uint16_t act_mask_of(const struct args *a, const char *name)
{
	for (size_t i = 0; i < sizeof(act_names) / sizeof(act_names[0]); i++)
		if (strcasecmp(name, act_names[i].name) == 0)
			return act_names[i].mask;
	tool_usage_error(&a->o, "unknown action category '%s'", name);
}

static void parse_args(struct args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "output-dir", required_argument, NULL, 'D' },
		{ "stopwatch", required_argument, NULL, 'w' },
		{ "act-mask", required_argument, NULL, 'a' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "gzip", no_argument, NULL, 'z' },
		{ "via", required_argument, NULL, 'v' },
		{ "cgroup", no_argument, NULL, 'g' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;
	unsigned long v;

	tool_opts_init(&a->o, argv[0]);
	a->co.out_fd = -1;
	opterr = 0;	/* tool_bad_option's messages name the program only */
	while ((c = getopt_long(argc, argv, "+:d:o:D:w:a:b:zqhV", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			if (a->ndevs == MAX_DEVS)
				tool_usage_error(&a->o, "at most %d devices", MAX_DEVS);
			a->devs[a->ndevs++] = optarg;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'D':
			a->dir = optarg;
			break;
		case 'w':
			errno = 0;
			a->secs = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(a->secs > 0))
				tool_usage_error(&a->o, "bad -w '%s': seconds > 0",
					       optarg);
			break;
		case 'a':
			a->co.act_mask |= act_mask_of(a, optarg);
			break;
		case 'b':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || v < 4 ||
			    v > 1024 * 1024)
				tool_usage_error(&a->o, "bad -b '%s': KB from 4 to "
					       "1048576", optarg);
			a->co.buf_kb = (unsigned)v;
			break;
		case 'z':
			a->co.gzip = 6;
			break;
		case 'v':
			if (strcmp(optarg, "auto") == 0)
				a->co.via = BT_VIA_AUTO;
			else if (strcmp(optarg, "relay") == 0)
				a->co.via = BT_VIA_RELAY;
			else if (strcmp(optarg, "tracefs") == 0)
				a->co.via = BT_VIA_TRACEFS;
			else
				tool_usage_error(&a->o, "bad --via '%s': auto, "
					       "relay or tracefs", optarg);
			break;
		case 'g':
			a->co.cgroup = 1;
			break;
		case 'q':
			a->quiet = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(fflush(stdout) ? TOOL_EXIT_DATA : TOOL_EXIT_OK);
		case 'V':
			tool_opts_common(&a->o, c, optarg);
			break;
		default:
			tool_bad_option(&a->o, argv, "doDwab");
		}
	}
	if (!a->ndevs)
		tool_usage_error(&a->o, "no device: give -d DEV");
	if (!a->output && !a->dir)
		tool_usage_error(&a->o, "no output: give -o FILE or -D DIR");
	if (a->dir && a->output && (a->ndevs > 1 || strchr(a->output, '/') ||
				    strcmp(a->output, "-") == 0))
		tool_usage_error(&a->o, "with -D, -o is a basename for one device");
	if (optind < argc)
		a->cmd = argv + optind;
	a->co.devs = a->devs;
	a->co.ndevs = a->ndevs;
	a->co.dir = a->dir;
	a->co.name = a->dir ? a->output : NULL;
}

/* The command, with the signals btcapture waits for unblocked again. */
static pid_t spawn(const struct args *a, const sigset_t *old, int trace_fd)
{
	pid_t pid = fork();

	if (pid < 0)
		err(TOOL_EXIT_DATA, "fork");
	if (pid == 0) {
		/* its stdout must not land in the trace */
		if (trace_fd == STDOUT_FILENO)
			dup2(STDERR_FILENO, STDOUT_FILENO);
		sigprocmask(SIG_SETMASK, old, NULL);
		execvp(a->cmd[0], a->cmd);
		fprintf(stderr, "%s: %s: %s\n", a->o.prog, a->cmd[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

static int status_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

static void summary(const struct args *a, const struct bt_capture_stats *st)
{
	double s = (double)st->duration_ns / 1e9;

	if (a->quiet)
		return;
	fprintf(stderr, "%s: %" PRIu64 " events, %" PRIu64 " notes, %"
		PRIu64 " bytes in %.3f s (%.0f events/s) via %s; %" PRIu64
		" lost\n", a->o.prog, st->events, st->notes, st->bytes, s,
		s > 0 ? (double)st->events / s : 0.0,
		st->via == BT_VIA_RELAY ? "relay" : "tracefs", st->lost);
	if (st->bad)
		fprintf(stderr, "%s: %" PRIu64 " malformed records skipped\n",
			a->o.prog, st->bad);
	if (st->expanded_ring)
		fprintf(stderr, "%s: note: the tracefs ring buffer was "
			"unexpanded (boot state); left at its expanded size, as "
			"any first use of tracing leaves it\n", a->o.prog);
}

/* -o FILE or -o -: the descriptor the merged stream goes to. */
static int open_output(struct args *a)
{
	int fd;

	if (!a->output || a->dir)
		return -1;
	if (strcmp(a->output, "-") == 0)
		return a->co.out_fd = STDOUT_FILENO;
	fd = open(a->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", a->o.prog, a->output, strerror(errno));
		exit(TOOL_EXIT_DATA);
	}
	return a->co.out_fd = fd;
}

static double since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) +
	       (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * Until the command ends, a stop signal, -w or a failure of the reading
 * thread; a signal while the command runs goes to the command, whose end
 * then stops the capture.  Returns the command's status, or -1.
 */
static int wait_end(const struct args *a, struct bt_capture *cap,
		    const sigset_t *set, pid_t child)
{
	struct timespec t0;
	int status, rc = -1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct timespec tmo = { 0, 100 * 1000 * 1000 };
		int sig = sigtimedwait(set, NULL, &tmo);

		if (sig == SIGCHLD && child > 0 &&
		    waitpid(child, &status, WNOHANG) == child)
			return status_code(status);
		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
			if (child <= 0)
				break;
			kill(child, sig);
			continue;
		}
		if (bt_capture_error(cap, NULL, 0) < 0 ||
		    (a->secs > 0 && since(&t0) >= a->secs))
			break;
	}
	if (child > 0) {
		kill(child, SIGTERM);
		if (waitpid(child, &status, 0) == child)
			rc = status_code(status);
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct args a = { 0 };
	struct bt_capture *cap;
	struct bt_capture_stats st;
	sigset_t set, old;
	char msg[512];
	int fd, r, rc = TOOL_EXIT_OK, cmd_rc;

	parse_args(&a, argc, argv);
	fd = open_output(&a);
	/*
	 * Block the stop signals before the reading thread exists, so only
	 * sigtimedwait() sees them and the stop always runs the restore.
	 */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &old);
	signal(SIGPIPE, SIG_IGN);
	r = bt_capture_start(&cap, &a.co, msg, sizeof(msg));
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", a.o.prog, msg[0] ? msg : strerror(-r));
		return TOOL_EXIT_DATA;
	}
	cmd_rc = wait_end(&a, cap, &set, a.cmd ? spawn(&a, &old, fd) : -1);
	r = bt_capture_stop(cap, &st, msg, sizeof(msg));
	summary(&a, &st);
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", a.o.prog, msg[0] ? msg : strerror(-r));
		rc = TOOL_EXIT_DATA;
	}
	if (st.lost) {
		fprintf(stderr, "%s: %" PRIu64 " events lost (raise -b)\n",
			a.o.prog, st.lost);
		rc = TOOL_EXIT_DATA;
	}
	if (fd > STDOUT_FILENO && close(fd) < 0) {
		fprintf(stderr, "%s: %s: %s\n", a.o.prog, a.output, strerror(errno));
		rc = TOOL_EXIT_DATA;
	}
	return cmd_rc > 0 ? cmd_rc : rc;
}
