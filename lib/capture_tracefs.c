// SPDX-License-Identifier: MIT
/*
 * capture_tracefs.c - the way in for a capture where kernel lockdown makes
 * the relay files unreadable: the tracefs "blk" tracer with its "bin"
 * option, read from trace_pipe.  It refuses when the tracer or a trace
 * event is in use, saves every setting before changing it and writes
 * them back on request, and counts what the ring buffer lost.  The records
 * carry no sequence numbers and the tracer no notes: capture_stream.c
 * supplies both.  Called by the session (capture.c) only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capture_int.h"
#include "sysfs.h"

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

unsigned bt_cap_tracefs_default_kb(int ncpu)
{
	unsigned kb = TRACEFS_TOTAL_KB / (unsigned)(ncpu > 0 ? ncpu : 1);

	return kb > TRACEFS_KB ? kb : TRACEFS_KB;
}

/* Save the current value of path (once) and write val. */
static int set_saved(struct bt_capture *c, const char *path, const char *val,
		     char *msg, size_t mlen)
{
	char old[4096];
	int r;

	r = bt_sysfs_read(path, old, sizeof(old));
	if (r < 0) {
		bt_cap_msg(msg, mlen, "%s: %s", path, strerror(-r));
		return r;
	}
	if (bt_cap_saved_value(path, old, sizeof(old)) == 1)
		c->st.expanded_ring = 1;
	if (strcmp(old, val) == 0)
		return 0;
	r = bt_sysfs_keep(&c->saved, path, old);
	if (r < 0) {
		bt_cap_msg(msg, mlen, "%s: cannot save old value", path);
		return r;
	}
	r = bt_sysfs_write(path, val);
	if (r < 0)
		bt_cap_msg(msg, mlen, "%s: cannot write '%s': %s", path, val,
		       strerror(-r));
	return r;
}

/*
 * Every tracefs setting start changed, written back in reverse order; the
 * first failure is returned.
 */
int bt_cap_tracefs_restore(struct bt_capture *c)
{
	return bt_sysfs_restore(&c->saved, false);
}

uint64_t bt_cap_tracefs_lost(void)
{
	uint64_t total = 0;

	for (int cpu = 0;; cpu++) {
		char path[96], buf[1024];
		const char *keys[] = { "\noverrun: ", "\ncommit overrun: ",
				       "\ndropped events: " };

		snprintf(path, sizeof(path), TRACEFS "/per_cpu/cpu%d/stats", cpu);
		if (bt_sysfs_read(path, buf + 1, sizeof(buf) - 1) < 0)
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

	if (bt_sysfs_read(TRACEFS "/current_tracer", buf, sizeof(buf)) < 0) {
		bt_cap_msg(msg, mlen, "cannot read " TRACEFS "/current_tracer");
		return -ENOENT;
	}
	if (strcmp(buf, "nop") != 0) {
		bt_cap_msg(msg, mlen, "tracer '%s' is in use (" TRACEFS
		       "/current_tracer); not touching it", buf);
		return -EBUSY;
	}
	if (bt_sysfs_read(TRACEFS "/set_event", buf, sizeof(buf)) > 0) {
		bt_cap_msg(msg, mlen, "trace events are enabled (" TRACEFS
		       "/set_event); tracefs is in use");
		return -EBUSY;
	}
	for (size_t i = 0; i < c->ndevs; i++) {
		char path[160];

		snprintf(path, sizeof(path), "%s/trace/enable", c->devs[i].sysdir);
		if (bt_sysfs_read(path, buf, sizeof(buf)) < 0) {
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

int bt_cap_tracefs_start(struct bt_capture *c, char *msg, size_t mlen)
{
	static const char *const opts[][2] = {
		{ "blk_classic", "0" },		/* else text, not records */
		{ "context-info", "0" },	/* else a 16-byte prefix */
		{ "bin", "1" },
		{ "record-cmd", "1" },		/* saved_cmdlines: comms */
	};
	char path[160], val[32];
	int r, fd;

	r = bt_cap_mount(TRACEFS, "tracefs", "trace_pipe", &c->mounted_tracefs,
			 msg, mlen);
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
	 * events/s when fio takes both CPUs from the reader.  With BFQ's
	 * messages (360,000 records/s of two fio readers on a loop device)
	 * and the CPUs shared with other work, 8 MB per CPU still lost 0.4-13%
	 * of a 10 s capture on 2 CPUs and 32 MB nothing: the fewer the CPUs,
	 * the more of the rate each one takes, so 64 MB are spread over the
	 * CPUs, at least 8 MB each.  The kernel sizes the buffer in pages of
	 * 4080 bytes, so the KB it reads back after the restore can differ
	 * from the boot-time figure (1410 for 1408) though the number of
	 * pages is the same.
	 */
	snprintf(val, sizeof(val), "%u", c->o.buf_kb ? c->o.buf_kb :
		 bt_cap_tracefs_default_kb(c->ncpu));
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
	c->lost_base = bt_cap_tracefs_lost();
	for (size_t i = 0; i < c->ndevs; i++) {
		struct cdev *d = &c->devs[i];

		snprintf(path, sizeof(path), "%s/trace/enable", d->sysdir);
		r = bt_sysfs_write(path, "1");
		if (r < 0) {
			bt_cap_msg(msg, mlen, "%s: %s", path, strerror(-r));
			return r;
		}
		d->enabled = true;
		if (c->o.act_mask) {
			snprintf(path, sizeof(path), "%s/trace/act_mask",
				 d->sysdir);
			snprintf(val, sizeof(val), "%#x", c->o.act_mask);
			r = bt_sysfs_write(path, val);
			if (r < 0) {
				bt_cap_msg(msg, mlen, "%s: %s", path, strerror(-r));
				return r;
			}
		}
	}
	return 0;
}

void bt_cap_tracefs_disable(struct bt_capture *c, int *ret)
{
	for (size_t i = 0; i < c->ndevs; i++) {
		struct cdev *d = &c->devs[i];
		char path[160];

		if (!d->enabled)
			continue;
		snprintf(path, sizeof(path), "%s/trace/enable", d->sysdir);
		int r = bt_sysfs_write(path, "0");

		if (r < 0 && !*ret)
			*ret = r;
		d->enabled = false;
	}
}
