// SPDX-License-Identifier: MIT
/*
 * capture.c - the session behind btcapture (and btreplay --capture):
 * check and take the block devices, choose the classic relay interface
 * (BLKTRACESETUP, capture_relay.c) or, where kernel lockdown makes the
 * relay files unreadable (open fails with EPERM), the tracefs "blk" tracer
 * with the "bin" option, run the thread that reads the kernel buffers, and
 * stop.  Every tracefs and sysfs setting it changes is saved first and
 * restored by bt_capture_stop(), also after a failure half way through
 * bt_capture_start().  What the records become on the way out is
 * capture_stream.c's part.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <linux/fs.h>
#include "capture_int.h"

void bt_cap_msg(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!msg || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
}

/* Copy with truncation, always NUL terminated. */
void bt_cap_copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
}

static uint64_t now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------- files in sysfs */

int bt_cap_read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	close(fd);
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

static int write_text(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	size_t n = strlen(val);
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, val, n);
	if (w < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	close(fd);
	return w == (ssize_t)n ? 0 : -EIO;
}

/*
 * The value to write back later, from what path read (val, changed in
 * place).  trace_clock lists every clock with the current one in brackets.
 * buffer_size_kb reads "7 (expanded: 1408)" before the ring buffer was
 * first used: setting the blk tracer expands it, and the kernel has no way
 * back, so the expanded size is the one written back (writing 7 would
 * leave a 7 KB buffer to the next user, who would otherwise get 1408).
 * Returns 1 for such an unexpanded buffer, else 0.
 */
int bt_cap_saved_value(const char *path, char *val, size_t len)
{
	char *p, *q;

	if (strstr(path, "trace_clock") && (p = strchr(val, '['))) {
		q = strchr(p, ']');
		if (q) {
			*q = 0;
			memmove(val, p + 1, strlen(p + 1) + 1);
		}
	} else if (strstr(path, "buffer_size_kb") &&
		   (p = strstr(val, "expanded: "))) {
		unsigned long kb = strtoul(p + 10, NULL, 10);

		snprintf(val, len, "%lu", kb);
		return 1;
	}
	return 0;
}

/* Save the current value of path (once) and write val. */
static int set_saved(struct bt_capture *c, const char *path, const char *val,
		     char *msg, size_t mlen)
{
	char old[4096];
	int r, i;

	r = bt_cap_read_text(path, old, sizeof(old));
	if (r < 0) {
		bt_cap_msg(msg, mlen, "%s: %s", path, strerror(-r));
		return r;
	}
	if (bt_cap_saved_value(path, old, sizeof(old)) == 1)
		c->st.expanded_ring = 1;
	if (strcmp(old, val) == 0)
		return 0;
	for (i = 0; i < c->nsaved; i++)
		if (strcmp(c->saved[i].path, path) == 0)
			break;
	if (i == c->nsaved) {
		if (c->nsaved == MAX_SAVED || strlen(path) >= 160 ||
		    strlen(old) >= 64) {
			bt_cap_msg(msg, mlen, "%s: cannot save old value", path);
			return -E2BIG;
		}
		snprintf(c->saved[i].path, sizeof(c->saved[i].path), "%s", path);
		snprintf(c->saved[i].val, sizeof(c->saved[i].val), "%s", old);
		c->nsaved++;
	}
	r = write_text(path, val);
	if (r < 0)
		bt_cap_msg(msg, mlen, "%s: cannot write '%s': %s", path, val,
		       strerror(-r));
	return r;
}

/* Restore in reverse order; the first failure is returned. */
static int restore_saved(struct bt_capture *c)
{
	int ret = 0;

	while (c->nsaved > 0) {
		struct saved *s = &c->saved[--c->nsaved];
		int r = write_text(s->path, s->val);

		if (r < 0 && !ret)
			ret = r;
	}
	return ret;
}

int bt_cap_ensure_mounted(const char *dir, const char *type, bool *mounted,
			  char *msg, size_t mlen)
{
	char probe[128];
	struct stat st;

	snprintf(probe, sizeof(probe), "%s/%s", dir,
		 strcmp(type, "tracefs") == 0 ? "trace_pipe" : "block");
	if (stat(probe, &st) == 0)
		return 0;
	if (mount("nodev", dir, type, 0, NULL) < 0) {
		int e = -errno;

		bt_cap_msg(msg, mlen, "cannot mount %s on %s: %s", type, dir,
		       strerror(errno));
		return e;
	}
	*mounted = true;
	return 0;
}

static void *reader_thread(void *arg)
{
	struct bt_capture *c = arg;
	struct pollfd *pfd = calloc((size_t)c->nsrcs + 1, sizeof(*pfd));
	int r = 0;

	/*
	 * The kernel buffer only waits for this thread: on a busy machine
	 * the traced workload would starve it and events be lost.  Only this
	 * thread's priority changes (best effort; a failure is harmless).
	 */
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), READER_NICE) < 0) {
		/* keep the inherited priority */
	}
	if (!pfd) {
		c->thr_err = -ENOMEM;
		return NULL;
	}
	for (int i = 0; i < c->nsrcs; i++) {
		pfd[i].fd = c->srcs[i].fd;
		pfd[i].events = POLLIN;
	}
	pfd[c->nsrcs].fd = c->stopfd[0];
	pfd[c->nsrcs].events = POLLIN;
	for (;;) {
		uint64_t t0;
		bool stop = c->stopping;

		if (!stop)
			poll(pfd, (nfds_t)c->nsrcs + 1, POLL_MS);
		stop = stop || c->stopping;
		t0 = now_ns(CLOCK_MONOTONIC);
		c->cm_fresh = false;
		r = bt_cap_drain(c);
		if (r < 0) {
			snprintf(c->thr_msg, sizeof(c->thr_msg),
				 "reading the trace: %s", strerror(-r));
			break;
		}
		/* Everything stamped before t0 has been read by now. */
		r = bt_cap_emit_upto(c, t0 > SLACK_NS ? t0 - SLACK_NS : 0, false);
		if (r >= 0 && stop)
			r = bt_cap_emit_upto(c, 0, true);
		/* a reader at the other end of a pipe sees events as they come */
		if (r >= 0 && !c->merged.gz && c->merged.len)
			r = bt_cap_out_flush(&c->merged);
		if (r < 0) {
			snprintf(c->thr_msg, sizeof(c->thr_msg),
				 "writing the trace: %s", strerror(-r));
			break;
		}
		if (stop)
			break;
	}
	if (r < 0)
		c->thr_err = r;
	free(pfd);
	return NULL;
}

/* ------------------------------------------------------- device setup */

static int dev_lookup(struct cdev *d, const char *path, char *msg, size_t mlen)
{
	struct stat st;
	char link[PATH_MAX], target[PATH_MAX];
	ssize_t n;
	const char *base;

	snprintf(d->path, sizeof(d->path), "%s", path);
	d->fd = -1;
	if (stat(path, &st) < 0) {
		int e = -errno;

		bt_cap_msg(msg, mlen, "%s: %s", path, strerror(errno));
		return e;
	}
	if (!S_ISBLK(st.st_mode)) {
		bt_cap_msg(msg, mlen, "%s: not a block device", path);
		return -ENOTBLK;
	}
	d->dev = BT_DEV_MAKE(major(st.st_rdev), minor(st.st_rdev));
	snprintf(d->sysdir, sizeof(d->sysdir), "/sys/dev/block/%u:%u",
		 major(st.st_rdev), minor(st.st_rdev));
	snprintf(link, sizeof(link), "%s", d->sysdir);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0) {
		int e = -errno;

		bt_cap_msg(msg, mlen, "%s: %s: %s", path, link, strerror(errno));
		return e;
	}
	target[n] = 0;
	base = strrchr(target, '/');
	bt_cap_copy_str(d->name, sizeof(d->name), base ? base + 1 : target);
	return 0;
}

/*
 * -D DIR as blktrace -D treats it: made when missing, with its parents;
 * a failure names the directory, not a file inside it.
 */
static int make_dir(const char *dir, char *msg, size_t mlen)
{
	char path[PATH_MAX];
	struct stat st;
	size_t n = strlen(dir);

	if (n >= sizeof(path)) {
		bt_cap_msg(msg, mlen, "%s: %s", dir, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	memcpy(path, dir, n + 1);
	for (char *p = path + 1; ; p++) {
		bool last = *p == 0;

		if (*p != '/' && !last)
			continue;
		*p = 0;
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			int e = -errno;

			bt_cap_msg(msg, mlen, "%s: cannot create the directory: %s",
				   path, strerror(errno));
			return e;
		}
		if (last)
			break;
		*p = '/';
	}
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		bt_cap_msg(msg, mlen, "%s: %s", dir, strerror(ENOTDIR));
		return -ENOTDIR;
	}
	return 0;
}

static int open_dir_files(struct bt_capture *c, char *msg, size_t mlen)
{
	int rc = make_dir(c->o.dir, msg, mlen);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < c->ndevs; i++) {
		struct cdev *d = &c->devs[i];

		d->files = calloc((size_t)c->ncpu, sizeof(*d->files));
		if (!d->files)
			return -ENOMEM;
		for (int cpu = 0; cpu < c->ncpu; cpu++)
			d->files[cpu].fd = -1;
		/* every CPU's file, even empty: blkparse stops at a gap */
		for (int cpu = 0; cpu < c->ncpu; cpu++) {
			char path[PATH_MAX];
			const char *base = c->o.name && c->ndevs == 1 ?
					   c->o.name : d->name;
			int fd, r;

			snprintf(path, sizeof(path), "%s/%s.blktrace.%d%s",
				 c->o.dir, base, cpu, c->o.gzip ? ".gz" : "");
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
				  0644);
			if (fd < 0) {
				int e = -errno;

				bt_cap_msg(msg, mlen, "%s: %s", path, strerror(errno));
				return e;
			}
			r = bt_cap_out_open(&d->files[cpu], fd, c->o.gzip);
			if (r < 0) {
				close(fd);
				d->files[cpu].fd = -1;
				return r;
			}
		}
	}
	return 0;
}

static void close_dir_files(struct bt_capture *c, int *ret)
{
	for (size_t i = 0; i < c->ndevs; i++) {
		struct cdev *d = &c->devs[i];

		if (!d->files)
			continue;
		for (int cpu = 0; cpu < c->ncpu; cpu++) {
			int r = bt_cap_out_close(&d->files[cpu]);

			if (r < 0 && !*ret)
				*ret = r;
			if (d->files[cpu].fd >= 0)
				close(d->files[cpu].fd);
		}
		free(d->files);
		d->files = NULL;
	}
}

int bt_cap_add_src(struct bt_capture *c, int fd)
{
	struct src *s = &c->srcs[c->nsrcs];

	s->buf = malloc(INBUF);
	if (!s->buf)
		return -ENOMEM;
	s->fd = fd;
	s->len = 0;
	c->nsrcs++;
	return 0;
}

static uint64_t tracefs_lost(void)
{
	uint64_t total = 0;

	for (int cpu = 0;; cpu++) {
		char path[96], buf[1024];
		const char *keys[] = { "\noverrun: ", "\ncommit overrun: ",
				       "\ndropped events: " };

		snprintf(path, sizeof(path), TRACEFS "/per_cpu/cpu%d/stats", cpu);
		if (bt_cap_read_text(path, buf + 1, sizeof(buf) - 1) < 0)
			break;
		buf[0] = '\n';
		for (size_t k = 0; k < 3; k++) {
			const char *p = strstr(buf, keys[k]);

			if (p)
				total += strtoull(p + strlen(keys[k]), NULL, 10);
		}
	}
	return total;
}

/* Refuse when someone else uses the tracer or the device's trace. */
static int tracefs_check_free(struct bt_capture *c, char *msg, size_t mlen)
{
	char buf[4096];

	if (bt_cap_read_text(TRACEFS "/current_tracer", buf, sizeof(buf)) < 0) {
		bt_cap_msg(msg, mlen, "cannot read " TRACEFS "/current_tracer");
		return -ENOENT;
	}
	if (strcmp(buf, "nop") != 0) {
		bt_cap_msg(msg, mlen, "tracer '%s' is in use (" TRACEFS
		       "/current_tracer); not touching it", buf);
		return -EBUSY;
	}
	if (bt_cap_read_text(TRACEFS "/set_event", buf, sizeof(buf)) == 0 && buf[0]) {
		bt_cap_msg(msg, mlen, "trace events are enabled (" TRACEFS
		       "/set_event); tracefs is in use");
		return -EBUSY;
	}
	for (size_t i = 0; i < c->ndevs; i++) {
		char path[160];

		snprintf(path, sizeof(path), "%s/trace/enable", c->devs[i].sysdir);
		if (bt_cap_read_text(path, buf, sizeof(buf)) < 0) {
			bt_cap_msg(msg, mlen, "%s: no block trace support (%s)",
			       c->devs[i].path, path);
			return -EOPNOTSUPP;
		}
		if (strcmp(buf, "0") != 0) {
			bt_cap_msg(msg, mlen, "%s is already being traced",
			       c->devs[i].path);
			return -EBUSY;
		}
	}
	return 0;
}

static int tracefs_start(struct bt_capture *c, char *msg, size_t mlen)
{
	static const char *const opts[][2] = {
		{ "blk_classic", "0" },		/* else text, not records */
		{ "context-info", "0" },	/* else a 16-byte prefix */
		{ "bin", "1" },
		{ "record-cmd", "1" },		/* saved_cmdlines: comms */
	};
	char path[160], val[32];
	int r, fd;

	r = bt_cap_ensure_mounted(TRACEFS, "tracefs", &c->mounted_tracefs, msg, mlen);
	if (r < 0)
		return r;
	r = tracefs_check_free(c, msg, mlen);
	if (r < 0)
		return r;
	/*
	 * The mono clock is CLOCK_MONOTONIC, the relay path's clock too, so
	 * note times and the reorder window can be taken from user space.
	 */
	r = set_saved(c, TRACEFS "/trace_clock", "mono", msg, mlen);
	if (r < 0)
		return r;
	/*
	 * The boot-time 1408 KB per CPU overflows within 50 ms at 400,000
	 * events/s when fio takes both CPUs from the reader; 8 MB does not.
	 * The kernel sizes the buffer in pages of 4080 bytes, so the KB it
	 * reads back after the restore can differ from the boot-time figure
	 * (1410 for 1408) though the number of pages is the same.
	 */
	snprintf(val, sizeof(val), "%u", c->o.buf_kb ? c->o.buf_kb : TRACEFS_KB);
	r = set_saved(c, TRACEFS "/buffer_size_kb", val, msg, mlen);
	if (r < 0)
		return r;
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		snprintf(path, sizeof(path), TRACEFS "/options/%s", opts[i][0]);
		r = set_saved(c, path, opts[i][1], msg, mlen);
		if (r < 0)
			return r;
	}
	r = set_saved(c, TRACEFS "/options/blk_cgroup",
		      c->o.cgroup ? "1" : "0", msg, mlen);
	if (r < 0)
		return r;
	r = set_saved(c, TRACEFS "/tracing_on", "1", msg, mlen);
	if (r < 0)
		return r;
	r = set_saved(c, TRACEFS "/current_tracer", "blk", msg, mlen);
	if (r < 0)
		return r;
	c->tracer_set = true;
	fd = open(TRACEFS "/trace_pipe", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		bt_cap_msg(msg, mlen, TRACEFS "/trace_pipe: %s", strerror(errno));
		return r;
	}
	r = bt_cap_add_src(c, fd);
	if (r < 0) {
		close(fd);
		return r;
	}
	c->lost_base = tracefs_lost();
	for (size_t i = 0; i < c->ndevs; i++) {
		struct cdev *d = &c->devs[i];

		snprintf(path, sizeof(path), "%s/trace/enable", d->sysdir);
		r = write_text(path, "1");
		if (r < 0) {
			bt_cap_msg(msg, mlen, "%s: %s", path, strerror(-r));
			return r;
		}
		d->enabled = true;
		if (c->o.act_mask) {
			snprintf(path, sizeof(path), "%s/trace/act_mask",
				 d->sysdir);
			snprintf(val, sizeof(val), "%#x", c->o.act_mask);
			r = write_text(path, val);
			if (r < 0) {
				bt_cap_msg(msg, mlen, "%s: %s", path, strerror(-r));
				return r;
			}
		}
	}
	return 0;
}

static void tracefs_disable(struct bt_capture *c, int *ret)
{
	for (size_t i = 0; i < c->ndevs; i++) {
		struct cdev *d = &c->devs[i];
		char path[160];

		if (!d->enabled)
			continue;
		snprintf(path, sizeof(path), "%s/trace/enable", d->sysdir);
		int r = write_text(path, "0");

		if (r < 0 && !*ret)
			*ret = r;
		d->enabled = false;
	}
}

static void close_srcs(struct bt_capture *c)
{
	for (int i = 0; i < c->nsrcs; i++) {
		close(c->srcs[i].fd);
		free(c->srcs[i].buf);
	}
	c->nsrcs = 0;
}

/* Undo everything start did, in reverse.  The first failure is returned. */
static int undo(struct bt_capture *c)
{
	int ret = 0, r;

	tracefs_disable(c, &ret);
	bt_cap_relay_teardown(c);
	close_srcs(c);
	r = restore_saved(c);
	if (r < 0 && !ret)
		ret = r;
	c->tracer_set = false;
	if (c->mounted_debugfs && umount(DEBUGFS) == 0)
		c->mounted_debugfs = false;
	if (c->mounted_tracefs && umount(TRACEFS) == 0)
		c->mounted_tracefs = false;
	return ret;
}

void bt_cap_free(struct bt_capture *c)
{
	if (!c)
		return;
	if (c->stopfd[0] >= 0)
		close(c->stopfd[0]);
	if (c->stopfd[1] >= 0)
		close(c->stopfd[1]);
	if (c->lockfd >= 0)
		close(c->lockfd);
	free(c->devs);
	free(c->srcs);
	free(c->slots);
	free(c->slot_time);
	free(c->order);
	free(c->freelist);
	free(c->seq);
	free(c->noted);
	free(c->cm_pid);
	free(c->cm_comm);
	free(c);
}

/* The state both bt_capture_start() and bt_capture_convert() use. */
struct bt_capture *bt_cap_alloc(const struct bt_capture_opts *o,
					size_t devcap)
{
	struct bt_capture *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->o = *o;
	c->stopfd[0] = c->stopfd[1] = c->lockfd = -1;
	c->ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (c->ncpu < 1)
		c->ncpu = 1;
	c->devs = calloc(devcap, sizeof(*c->devs));
	c->srcs = calloc(devcap * (size_t)c->ncpu + 1, sizeof(*c->srcs));
	c->slots = malloc((size_t)NSLOTS * SLOT);
	c->slot_time = malloc(NSLOTS * sizeof(*c->slot_time));
	c->order = malloc(NSLOTS * sizeof(*c->order));
	c->freelist = malloc(NSLOTS * sizeof(*c->freelist));
	c->seq = calloc(devcap * (size_t)c->ncpu, sizeof(*c->seq));
	if (!c->devs || !c->srcs || !c->slots || !c->slot_time || !c->order ||
	    !c->freelist || !c->seq) {
		bt_cap_free(c);
		return NULL;
	}
	for (uint32_t i = 0; i < NSLOTS; i++)
		c->freelist[i] = NSLOTS - 1 - i;
	c->nfree = NSLOTS;
	for (size_t i = 0; i < devcap; i++)
		c->devs[i].fd = -1;
	return c;
}

int bt_capture_start(struct bt_capture **out, const struct bt_capture_opts *o,
		     char *msg, size_t mlen)
{
	struct bt_capture *c;
	struct timespec mono, real;
	int r;

	*out = NULL;
	bt_cap_msg(msg, mlen, "%s", "");
	if (!o->ndevs || (o->out_fd < 0) == (o->dir == NULL)) {
		bt_cap_msg(msg, mlen, "need devices and one output");
		return -EINVAL;
	}
	if (geteuid() != 0) {
		bt_cap_msg(msg, mlen, "tracing block devices needs root");
		return -EPERM;
	}
	c = bt_cap_alloc(o, o->ndevs);
	if (!c)
		return -ENOMEM;
	c->ndevs = o->ndevs;
	for (size_t i = 0; i < o->ndevs; i++) {
		c->devs[i].fd = -1;
		r = dev_lookup(&c->devs[i], o->devs[i], msg, mlen);
		if (r < 0) {
			bt_cap_free(c);
			return r;
		}
		for (size_t j = 0; j < i; j++)
			if (c->devs[j].dev == c->devs[i].dev) {
				bt_cap_msg(msg, mlen, "%s: given twice", o->devs[i]);
				bt_cap_free(c);
				return -EINVAL;
			}
	}
	/* /run/lock is missing on some minimal systems: /tmp then */
	c->lockfd = open(LOCK_PATH, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (c->lockfd < 0 && errno == ENOENT)
		c->lockfd = open(LOCK_PATH2, O_RDWR | O_CREAT | O_CLOEXEC |
				 O_NOFOLLOW, 0600);
	if (c->lockfd < 0 || flock(c->lockfd, LOCK_EX | LOCK_NB) < 0) {
		r = c->lockfd < 0 ? -errno : -EBUSY;
		bt_cap_msg(msg, mlen, r == -EBUSY ?
		       "another capture is running (its lock file is locked)" :
		       "lock file: %s", strerror(-r));
		bt_cap_free(c);
		return r;
	}
	if (pipe2(c->stopfd, O_CLOEXEC | O_NONBLOCK) < 0) {
		r = -errno;
		bt_cap_free(c);
		return r;
	}
	if (o->dir) {
		r = open_dir_files(c, msg, mlen);
	} else {
		r = bt_cap_out_open(&c->merged, o->out_fd, o->gzip);
	}
	if (r < 0)
		goto fail;

	/* Wall clock and trace clock at the same instant, as the kernel's
	 * TIMESTAMP note pairs them. */
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	c->start_mono = (uint64_t)mono.tv_sec * 1000000000ull +
			(uint64_t)mono.tv_nsec;
	c->start_real_sec = (uint64_t)real.tv_sec;
	c->start_real_nsec = (uint64_t)real.tv_nsec;

	c->via = o->via == BT_VIA_TRACEFS ? BT_VIA_TRACEFS : BT_VIA_RELAY;
	if (c->via == BT_VIA_RELAY) {
		r = bt_cap_relay_start(c, msg, mlen);
		if (r == -EPERM && o->via == BT_VIA_AUTO) {
			/* lockdown: relay files cannot be opened */
			undo(c);
			c->via = BT_VIA_TRACEFS;
		} else if (r < 0) {
			goto fail;
		}
	}
	if (c->via == BT_VIA_TRACEFS) {
		bt_cap_msg(msg, mlen, "%s", "");
		r = bt_cap_write_timestamps(c);
		if (r >= 0)
			r = tracefs_start(c, msg, mlen);
		if (r < 0)
			goto fail;
	}
	c->st.via = c->via;
	{
		/* the caller's signal handlers run in the caller's threads */
		sigset_t all, old;

		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		r = pthread_create(&c->thr, NULL, reader_thread, c);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (r) {
		r = -r;
		goto fail;
	}
	c->thr_running = true;
	*out = c;
	return 0;
fail:
	undo(c);
	bt_cap_out_close(&c->merged);
	{
		int ignored = 0;

		close_dir_files(c, &ignored);
	}
	if (msg && !msg[0])
		bt_cap_msg(msg, mlen, "%s", strerror(-r));
	bt_cap_free(c);
	return r;
}

int bt_capture_error(const struct bt_capture *c, char *msg, size_t mlen)
{
	if (c->thr_err)
		bt_cap_msg(msg, mlen, "%s", c->thr_msg);
	return c->thr_err;
}

int bt_capture_stop(struct bt_capture *c, struct bt_capture_stats *st,
		    char *msg, size_t mlen)
{
	int ret = 0, r;
	char one = 1;
	uint64_t lost = 0;

	if (!c)
		return -EINVAL;
	bt_cap_msg(msg, mlen, "%s", "");
	/* Stop the producers first, then read what is left. */
	if (c->via == BT_VIA_TRACEFS) {
		tracefs_disable(c, &ret);
	} else {
		for (size_t i = 0; i < c->ndevs; i++) {
			if (c->devs[i].started)
				ioctl(c->devs[i].fd, BLKTRACESTOP);
			c->devs[i].started = false;
		}
	}
	c->stopping = 1;
	if (write(c->stopfd[1], &one, 1) < 0) {
		/* the thread still sees stopping at its next poll timeout */
	}
	if (c->thr_running)
		pthread_join(c->thr, NULL);
	c->thr_running = false;
	if (c->thr_err) {
		bt_cap_msg(msg, mlen, "%s", c->thr_msg);
		ret = c->thr_err;
	}
	if (c->via == BT_VIA_TRACEFS) {
		uint64_t now = tracefs_lost();

		lost = now > c->lost_base ? now - c->lost_base : 0;
		if (c->lost_lines > lost)
			lost = c->lost_lines;
	} else {
		lost = bt_cap_relay_lost(c);
	}
	r = undo(c);
	if (r < 0 && !ret) {
		bt_cap_msg(msg, mlen, "restoring tracefs settings: %s", strerror(-r));
		ret = r;
	}
	r = bt_cap_out_close(&c->merged);
	if (r < 0 && !ret) {
		bt_cap_msg(msg, mlen, "writing the trace: %s", strerror(-r));
		ret = r;
	}
	r = 0;
	close_dir_files(c, &r);
	if (r < 0 && !ret) {
		bt_cap_msg(msg, mlen, "writing the trace: %s", strerror(-r));
		ret = r;
	}
	c->st.lost = lost;
	c->st.duration_ns = now_ns(CLOCK_MONOTONIC) - c->start_mono;
	if (st)
		*st = c->st;
	bt_cap_free(c);
	return ret;
}
