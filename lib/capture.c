// SPDX-License-Identifier: MIT
/*
 * capture.c - the session behind btcapture (and btreplay --capture):
 * check and take the block devices, open the outputs, choose the classic
 * relay interface (capture_relay.c) or, where kernel lockdown makes the
 * relay files unreadable (open fails with EPERM), the tracefs "blk" tracer
 * (capture_tracefs.c), run the thread that reads the kernel buffers, and
 * stop.  Every setting a back-end changes is written back by
 * bt_capture_stop(), also after a failure half way through
 * bt_capture_start().  What the records become on the way out is
 * capture_stream.c's part.  Calls run one way: the session calls the
 * back-ends and the stream, which never call back.
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
#include "sysfs.h"

static uint64_t now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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

	bt_cap_tracefs_disable(c, &ret);
	bt_cap_relay_teardown(c);
	close_srcs(c);
	r = bt_cap_tracefs_restore(c);
	if (r < 0 && !ret)
		ret = r;
	if (c->mounted_debugfs && umount(DEBUGFS) == 0)
		c->mounted_debugfs = false;
	if (c->mounted_tracefs && umount(TRACEFS) == 0)
		c->mounted_tracefs = false;
	return ret;
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
			r = bt_cap_tracefs_start(c, msg, mlen);
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
		bt_cap_tracefs_disable(c, &ret);
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
		uint64_t now = bt_cap_tracefs_lost();

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
