// SPDX-License-Identifier: MIT
/*
 * capture_relay.c - the classic way in for a capture: BLKTRACESETUP on
 * each device, then one relay file per CPU in debugfs
 * (block/NAME/traceN) as blktrace reads them, and the kernel's count of
 * dropped records at the end.  These records come numbered and with
 * their notes, so they only need ordering on the way out.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include "capture_int.h"

void bt_cap_relay_teardown(struct bt_capture *c)
{
	for (size_t i = 0; i < c->ndevs; i++) {
		struct cdev *d = &c->devs[i];

		if (d->started)
			ioctl(d->fd, BLKTRACESTOP);
		d->started = false;
		if (d->set_up)
			ioctl(d->fd, BLKTRACETEARDOWN);
		d->set_up = false;
		if (d->fd >= 0)
			close(d->fd);
		d->fd = -1;
	}
}

int bt_cap_relay_start(struct bt_capture *c, char *msg, size_t mlen)
{
	char buf[256];
	int r;

	/* With the blk tracer current, relay traces go to tracefs instead. */
	r = bt_cap_mount(TRACEFS, "tracefs", "trace_pipe", &c->mounted_tracefs, msg,
			 mlen);
	if (r == 0 && bt_sysfs_read(TRACEFS "/current_tracer", buf, sizeof(buf)) >= 0 &&
	    strcmp(buf, "blk") == 0) {
		bt_cap_msg(msg, mlen, "tracer 'blk' is in use; not touching it");
		return -EBUSY;
	}
	r = bt_cap_mount(DEBUGFS, "debugfs", "block", &c->mounted_debugfs, msg, mlen);
	if (r < 0)
		return r;
	for (size_t i = 0; i < c->ndevs; i++) {
		struct cdev *d = &c->devs[i];
		struct blk_user_trace_setup bs;
		unsigned kb = c->o.buf_kb ? c->o.buf_kb : RELAY_KB;

		d->fd = open(d->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (d->fd < 0) {
			r = -errno;
			bt_cap_msg(msg, mlen, "%s: %s", d->path, strerror(errno));
			return r;
		}
		memset(&bs, 0, sizeof(bs));
		bs.act_mask = c->o.act_mask ? c->o.act_mask : 0xffff;
		bs.buf_nr = 4;
		bs.buf_size = kb * 1024 / 4;
		if (ioctl(d->fd, BLKTRACESETUP, &bs) < 0) {
			r = -errno;
			bt_cap_msg(msg, mlen, "%s: BLKTRACESETUP: %s%s", d->path,
			       strerror(errno), errno == EBUSY ?
			       " (already being traced)" : "");
			return r;
		}
		d->set_up = true;
		snprintf(d->name, sizeof(d->name), "%.*s",
			 (int)sizeof(d->name) - 1, bs.name);
		for (int cpu = 0; cpu < c->ncpu; cpu++) {
			char path[PATH_MAX];
			int fd;

			snprintf(path, sizeof(path), DEBUGFS "/block/%s/trace%d",
				 d->name, cpu);
			fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
			if (fd < 0 && errno == ENOENT && cpu > 0)
				continue;	/* an offline CPU has no file */
			if (fd < 0) {
				r = -errno;
				bt_cap_msg(msg, mlen, "%s: %s", path,
				       strerror(errno));
				return r;
			}
			r = bt_cap_add_src(c, fd);
			if (r < 0) {
				close(fd);
				return r;
			}
		}
	}
	for (size_t i = 0; i < c->ndevs; i++) {
		if (ioctl(c->devs[i].fd, BLKTRACESTART) < 0) {
			r = -errno;
			bt_cap_msg(msg, mlen, "%s: BLKTRACESTART: %s",
			       c->devs[i].path, strerror(errno));
			return r;
		}
		c->devs[i].started = true;
	}
	return 0;
}

uint64_t bt_cap_relay_lost(struct bt_capture *c)
{
	uint64_t total = 0;

	for (size_t i = 0; i < c->ndevs; i++) {
		char path[PATH_MAX], buf[64];

		snprintf(path, sizeof(path), DEBUGFS "/block/%s/dropped",
			 c->devs[i].name);
		if (bt_sysfs_read(path, buf, sizeof(buf)) >= 0)
			total += strtoull(buf, NULL, 10);
	}
	return total;
}
