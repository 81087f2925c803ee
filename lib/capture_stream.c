// SPDX-License-Identifier: MIT
/*
 * capture_stream.c - turning what the kernel hands a capture into the
 * output stream: a reorder window puts records from all CPUs in time
 * order, and records from the tracefs "blk" tracer, which come without
 * sequence numbers and without PROCESS/TIMESTAMP notes, are numbered per
 * device and CPU and get those notes written in front.  The output is one
 * merged stream or per-CPU files, plain or gzip.  bt_capture_convert()
 * runs the same path over a saved trace_pipe stream.  The capture object
 * is made and freed here too, since conversion needs it without a session.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capture_int.h"
#include "internal.h"

/* ---------------------------------------------------------- the object */

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
	bt_sysfs_saved_free(&c->saved);
	free(c);
}

/* A kernel stream (trace_pipe, a relay file) for bt_cap_drain() to read. */
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

/* -------------------------------------------------------------- output */

int bt_cap_out_open(struct out *o, int fd, int gzip)
{
	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->buf = malloc(OUTBUF);
	if (!o->buf)
		return -ENOMEM;
	if (gzip) {
		char mode[4] = "wb6";
		int dfd = dup(fd);

		mode[2] = (char)('0' + (gzip > 9 ? 9 : gzip));
		if (dfd < 0)
			return -errno;
		o->gz = gzdopen(dfd, mode);
		if (!o->gz) {
			close(dfd);
			return -ENOMEM;
		}
	}
	return 0;
}

int bt_cap_out_flush(struct out *o)
{
	size_t done = 0;

	if (o->err)
		return o->err;
	if (o->gz) {
		if (o->len && gzwrite(o->gz, o->buf, (unsigned)o->len) !=
			      (int)o->len)
			o->err = -EIO;
		o->len = 0;
		return o->err;
	}
	while (done < o->len) {
		ssize_t w = write(o->fd, o->buf + done, o->len - done);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			o->err = -errno;
			break;
		}
		done += (size_t)w;
	}
	o->len = 0;
	return o->err;
}

static int out_put(struct out *o, const void *p, size_t n)
{
	if (o->len + n > OUTBUF && bt_cap_out_flush(o) < 0)
		return o->err;
	memcpy(o->buf + o->len, p, n);
	o->len += n;
	return 0;
}

/* Flush and close the gzip stream; the descriptor stays the caller's. */
int bt_cap_out_close(struct out *o)
{
	int r;

	if (!o->buf)
		return 0;
	r = bt_cap_out_flush(o);
	if (o->gz) {
		if (gzclose(o->gz) != Z_OK && !r)
			r = -EIO;
		o->gz = NULL;
	}
	free(o->buf);
	o->buf = NULL;
	return r;
}

/* -------------------------------------------------------------- records */

static int dev_index(const struct bt_capture *c, uint32_t dev)
{
	for (size_t i = 0; i < c->ndevs; i++)
		if (c->devs[i].dev == dev)
			return (int)i;
	return -1;
}

/* Converting with no device list: every device seen, up to CONVERT_DEVS. */
static int dev_index_add(struct bt_capture *c, uint32_t dev)
{
	int i = dev_index(c, dev);

	if (i >= 0 || !c->dyn_devs || c->ndevs == CONVERT_DEVS)
		return i;
	c->devs[c->ndevs].dev = dev;
	return (int)c->ndevs++;
}

static int dev_index_add(struct bt_capture *c, uint32_t dev);

static struct out *out_for(struct bt_capture *c, uint32_t dev, uint32_t cpu)
{
	int i = dev_index_add(c, dev);

	if (i < 0)
		return NULL;
	if (!c->o.dir)
		return &c->merged;
	if (cpu >= (uint32_t)c->ncpu)
		return NULL;
	return &c->devs[i].files[cpu];
}

/* ----------------------------------------------------- comm of a pid */

static size_t hash32(uint32_t v, size_t cap)
{
	return (size_t)((v * 2654435761u) & (cap - 1));
}

static void comm_reload(struct bt_capture *c)
{
	static const size_t cap = 16384;
	struct timespec ts;
	char *buf, *p, *line;
	int fd;
	size_t len = 0, bufsz = 1 << 20;
	ssize_t n;

	c->cm_fresh = true;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	c->cm_time = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (!c->cm_pid) {
		c->cm_pid = calloc(cap, sizeof(*c->cm_pid));
		c->cm_comm = calloc(cap, sizeof(*c->cm_comm));
		if (!c->cm_pid || !c->cm_comm)
			return;
		c->cm_cap = cap;
	}
	memset(c->cm_pid, 0, cap * sizeof(*c->cm_pid));
	fd = open(TRACEFS "/saved_cmdlines", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	buf = malloc(bufsz);
	if (!buf) {
		close(fd);
		return;
	}
	while (len < bufsz - 1 && (n = read(fd, buf + len, bufsz - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = 0;
	for (line = buf; line && *line; line = p) {
		char *end, *comm;
		unsigned long pid;
		size_t h, k;

		p = strchr(line, '\n');
		if (p)
			*p++ = 0;
		pid = strtoul(line, &end, 10);
		if (end == line || *end != ' ' || pid == 0 || pid > UINT32_MAX)
			continue;
		comm = end + 1;
		for (k = 0, h = hash32((uint32_t)pid, cap); k < cap / 2;
		     k++, h = (h + 1) & (cap - 1)) {
			if (c->cm_pid[h] == 0 || c->cm_pid[h] == pid) {
				c->cm_pid[h] = (uint32_t)pid;
				bt_cap_copy_str(c->cm_comm[h], 16, comm);
				break;
			}
		}
	}
	free(buf);
}

#define PF_KTHREAD	0x00200000u	/* include/linux/sched.h */

int bt_cap_user_task(const char *stat)
{
	const char *p = stat ? strrchr(stat, ')') : NULL;
	unsigned long long flags;
	char *end;

	/* After "pid (comm)": state ppid pgrp session tty_nr tpgid flags */
	if (!p)
		return -1;
	p++;
	for (int field = 0; field < 6; field++) {
		while (*p == ' ')
			p++;
		if (!*p)
			return -1;
		while (*p && *p != ' ')
			p++;
	}
	flags = strtoull(p, &end, 10);
	if (end == p)
		return -1;
	return !(flags & PF_KTHREAD);
}

/*
 * The comm of pid: a live user task's own /proc/PID/comm first (PID may be
 * a thread id), as the tracer's saved command lines can be stale for it: a
 * reused pid keeps the old task's name there, and a thread that renamed
 * itself keeps the name it had at its last recorded switch.  Kernel
 * threads (whose /proc name adds the workqueue, "kworker/0:1-events"),
 * and tasks gone by now, take the saved command lines (recorded at the
 * task's context switches), else /proc, else the idle task's name for pid
 * 0 as the kernel would note it.  A copy of the saved command lines older
 * than the event (time, on the same monotonic clock) may still hold the
 * name from before an exec -- a forked "sh" that became "dd" -- so it is
 * read again then.
 */
static void comm_of(struct bt_capture *c, uint32_t pid, uint32_t cpu,
		    uint64_t time, char comm[16])
{
	char path[64], buf[64], stat[512];
	bool found = false;

	memset(comm, 0, 16);
	if (pid == 0) {
		snprintf(comm, 16, "swapper/%u", cpu);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	if (bt_sysfs_read(path, stat, sizeof(stat)) > 0 &&
	    bt_cap_user_task(stat) == 1) {
		snprintf(path, sizeof(path), "/proc/%u/comm", pid);
		if (bt_sysfs_read(path, buf, sizeof(buf)) > 0 && buf[0]) {
			bt_cap_copy_str(comm, 16, buf);
			return;
		}
	}
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			if (c->cm_fresh && (!found || c->cm_time >= time))
				break;
			comm_reload(c);
		}
		if (!c->cm_pid)
			continue;
		for (size_t k = 0, h = hash32(pid, c->cm_cap); k < c->cm_cap;
		     k++, h = (h + 1) & (c->cm_cap - 1)) {
			if (c->cm_pid[h] == 0)
				break;
			if (c->cm_pid[h] == pid) {
				memcpy(comm, c->cm_comm[h], 16);
				found = true;
				break;
			}
		}
		if (found && c->cm_time >= time)
			return;
	}
	if (found)
		return;
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	if (bt_sysfs_read(path, buf, sizeof(buf)) > 0) {
		bt_cap_copy_str(comm, 16, buf);
		return;
	}
	snprintf(comm, 16, "<...>");
}

/* True the first time (dev, pid) is seen. */
static int noted_add(struct bt_capture *c, uint32_t dev, uint32_t pid)
{
	uint64_t key = ((uint64_t)dev << 32 | pid) + 1;
	size_t h;

	if (c->noted_n * 2 >= c->noted_cap) {
		size_t ncap = c->noted_cap ? c->noted_cap * 2 : 1024;
		uint64_t *n = calloc(ncap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (size_t i = 0; i < c->noted_cap; i++) {
			uint64_t k = c->noted[i];

			if (!k)
				continue;
			h = (size_t)((k * 0x9e3779b97f4a7c15ull) >> 20) & (ncap - 1);
			while (n[h])
				h = (h + 1) & (ncap - 1);
			n[h] = k;
		}
		free(c->noted);
		c->noted = n;
		c->noted_cap = ncap;
	}
	h = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (c->noted_cap - 1);
	while (c->noted[h]) {
		if (c->noted[h] == key)
			return 0;
		h = (h + 1) & (c->noted_cap - 1);
	}
	c->noted[h] = key;
	c->noted_n++;
	return 1;
}

static int write_note(struct bt_capture *c, struct out *o, uint32_t action,
		      uint64_t time, uint32_t pid, uint32_t dev, uint32_t cpu,
		      const void *pdu, uint16_t pdu_len)
{
	unsigned char rec[BT_HDR_V7 + 64];
	struct bt_event e;
	int n;

	memset(&e, 0, sizeof(e));
	e.time = time;
	e.action = action;
	e.category = BT_TC_NOTIFY;
	e.pid = pid;
	e.dev = dev;
	e.cpu = cpu;
	e.pdu = pdu;
	e.pdu_len = pdu_len;
	n = bt_event_encode(&e, rec, sizeof(rec), 0);
	if (n < 0)
		return n;
	c->st.notes++;
	c->st.bytes += (uint64_t)n;
	return out_put(o, rec, (size_t)n);
}

/* Write one record, preceded by its pid's PROCESS note when it is new. */
static int emit(struct bt_capture *c, const unsigned char *rec, size_t len)
{
	uint32_t action = bt_ld32(rec + BT_V7_ACTION, 0);
	uint32_t pid = bt_ld32(rec + BT_V7_PID, 0);
	uint32_t dev = bt_ld32(rec + BT_V7_DEVICE, 0);
	uint32_t cpu = bt_ld32(rec + BT_V7_CPU, 0);
	uint64_t time = bt_ld64(rec + BT_OFF_TIME, 0);
	struct out *o = out_for(c, dev, cpu);
	int r;

	if (!o) {
		/*
		 * Another device someone traces through sysfs shares the
		 * tracer's buffer; a CPU number past the configured ones
		 * has no per-CPU file.
		 */
		if (dev_index(c, dev) >= 0)
			c->st.bad++;
		return 0;
	}
	if (c->via == BT_VIA_TRACEFS && !((action >> 16) & BT_TC_NOTIFY)) {
		r = noted_add(c, dev, pid);
		if (r < 0)
			return r;
		if (r > 0) {
			char comm[16];

			comm_of(c, pid, cpu, time, comm);
			r = write_note(c, o, BT_N_PROCESS, time, pid, dev, cpu,
				       comm, 16);
			if (r < 0)
				return r;
		}
	}
	if ((action >> 16) & BT_TC_NOTIFY)
		c->st.notes++;
	else
		c->st.events++;
	c->st.bytes += len;
	return out_put(o, rec, len);
}

/* ------------------------------------------------------ reorder window */

int bt_cap_emit_upto(struct bt_capture *c, uint64_t limit, bool all)
{
	while (c->count) {
		uint32_t s = c->order[c->head];
		unsigned char *rec = c->slots + (size_t)s * SLOT;
		int r;

		if (!all && c->slot_time[s] > limit)
			break;
		r = emit(c, rec, BT_HDR_V7 + bt_ld16(rec + BT_V7_PDU_LEN, 0));
		c->head = (c->head + 1) % NSLOTS;
		c->count--;
		c->freelist[c->nfree++] = s;
		if (r < 0)
			return r;
	}
	return 0;
}

/* Insert a record in time order; records arrive nearly sorted. */
static int window_add(struct bt_capture *c, const unsigned char *rec,
		      size_t len)
{
	uint64_t t = bt_ld64(rec + BT_OFF_TIME, 0);
	uint32_t s, i, prev;
	int r;

	if (len > SLOT) {
		c->st.bad++;
		return 0;
	}
	if (c->nfree == 0) {
		r = bt_cap_emit_upto(c, 0, false);
		if (r < 0)
			return r;
		/* still full: force the oldest out */
		if (c->nfree == 0) {
			uint32_t o = c->order[c->head];
			unsigned char *orec = c->slots + (size_t)o * SLOT;

			r = emit(c, orec, BT_HDR_V7 + bt_ld16(orec + BT_V7_PDU_LEN, 0));
			c->head = (c->head + 1) % NSLOTS;
			c->count--;
			c->freelist[c->nfree++] = o;
			if (r < 0)
				return r;
		}
	}
	s = c->freelist[--c->nfree];
	memcpy(c->slots + (size_t)s * SLOT, rec, len);
	c->slot_time[s] = t;
	i = (c->head + c->count) % NSLOTS;
	c->count++;
	while (i != c->head) {
		prev = (i + NSLOTS - 1) % NSLOTS;
		if (c->slot_time[c->order[prev]] <= t)
			break;
		c->order[i] = c->order[prev];
		i = prev;
	}
	c->order[i] = s;
	if (t > c->newest)
		c->newest = t;
	return 0;
}

/* ------------------------------------------------------- stream parsing */

/*
 * Take whole records from a source's buffer.  trace_pipe puts a text line
 * "CPU:N [LOST M EVENTS]" (or "[LOST EVENTS]") between records when the
 * ring buffer overwrote events; anything else that is not a record makes
 * us skip ahead to the next magic.
 */
static int parse_src(struct bt_capture *c, struct src *s)
{
	size_t off = 0;
	int r = 0;

	while (s->len - off >= 4) {
		unsigned char *p = s->buf + off;
		size_t avail = s->len - off, len;
		uint32_t magic = bt_ld32(p, 0);

		if ((magic & BT_MAGIC_MASK) != BT_MAGIC) {
			unsigned char *nl;

			if (memcmp(p, "CPU:", 4) == 0) {
				nl = memchr(p, '\n', avail);
				if (!nl) {
					if (avail < 128)
						break;
					c->st.bad++;
					off += 4;
					continue;
				}
				const char *lost = memmem(p, (size_t)(nl - p),
							  "[LOST ", 6);
				if (lost && lost[6] >= '0' && lost[6] <= '9')
					c->lost_lines += strtoull(lost + 6,
								  NULL, 10);
				else
					c->lost_lines++;
				off = (size_t)(nl + 1 - s->buf);
				continue;
			}
			c->st.bad++;
			off++;
			while (s->len - off >= 4 &&
			       (bt_ld32(s->buf + off, 0) & BT_MAGIC_MASK) != BT_MAGIC &&
			       memcmp(s->buf + off, "CPU:", 4) != 0)
				off++;
			continue;
		}
		if (avail < BT_HDR_V7)
			break;
		if ((magic & 0xff) != BT_VERSION_7) {
			c->st.bad++;
			off++;
			continue;
		}
		len = BT_HDR_V7 + bt_ld16(p + BT_V7_PDU_LEN, 0);
		if (avail < len)
			break;
		if (c->via == BT_VIA_TRACEFS &&
		    !((bt_ld32(p + BT_V7_ACTION, 0) >> 16) & BT_TC_NOTIFY)) {
			int d = dev_index_add(c, bt_ld32(p + BT_V7_DEVICE, 0));
			uint32_t cpu = bt_ld32(p + BT_V7_CPU, 0);

			/*
			 * Number events per device and CPU from 1 as relay
			 * blktrace does: blkparse's pipe mode waits for
			 * missing sequence numbers, and with 0 everywhere it
			 * holds the whole trace until the end.
			 */
			if (d >= 0 && cpu < (uint32_t)c->ncpu) {
				uint32_t *sq = &c->seq[(size_t)d * c->ncpu + cpu];
				uint32_t v = ++*sq;

				memcpy(p + 4, &v, 4);
			}
		}
		if ((bt_ld32(p + BT_V7_ACTION, 0) & BT_A_CGROUP) && !c->o.cgroup &&
		    bt_ld16(p + BT_V7_PDU_LEN, 0) >= 8 && len <= SLOT) {
			/*
			 * 6.18 flags scheduler messages with a cgroup id even
			 * with the blk_cgroup option off, and blkparse 1.2
			 * drops such messages: unless asked, drop the id.
			 */
			unsigned char tmp[SLOT];
			uint32_t act = bt_ld32(p + BT_V7_ACTION, 0) & ~BT_A_CGROUP;
			uint16_t pl = (uint16_t)(bt_ld16(p + BT_V7_PDU_LEN, 0) - 8);

			memcpy(tmp, p, BT_HDR_V7);
			memcpy(tmp + BT_V7_ACTION, &act, 4);
			memcpy(tmp + BT_V7_PDU_LEN, &pl, 2);
			memcpy(tmp + BT_HDR_V7, p + BT_HDR_V7 + 8, pl);
			r = window_add(c, tmp, BT_HDR_V7 + pl);
		} else {
			r = window_add(c, p, len);
		}
		if (r < 0)
			break;
		off += len;
	}
	memmove(s->buf, s->buf + off, s->len - off);
	s->len -= off;
	return r;
}

/* Read everything available from every source.  1 if anything was read. */
int bt_cap_drain(struct bt_capture *c)
{
	int any = 0;

	for (int i = 0; i < c->nsrcs; i++) {
		struct src *s = &c->srcs[i];

		for (;;) {
			ssize_t n = read(s->fd, s->buf + s->len, INBUF - s->len);
			int r;

			if (n < 0) {
				if (errno == EINTR)
					continue;
				if (errno == EAGAIN)
					break;
				return -errno;
			}
			if (n == 0)
				break;
			any = 1;
			s->len += (size_t)n;
			r = parse_src(c, s);
			if (r < 0)
				return r;
			if (s->len == INBUF) {	/* garbage without magic */
				c->st.bad++;
				s->len = 0;
			}
			if (c->via == BT_VIA_TRACEFS && c->newest > WINDOW_NS) {
				r = bt_cap_emit_upto(c, c->newest - WINDOW_NS,
						     false);
				if (r < 0)
					return r;
			}
		}
	}
	return any;
}

int bt_cap_write_timestamps(struct bt_capture *c)
{
	uint32_t words[2] = { (uint32_t)c->start_real_sec,
			      (uint32_t)c->start_real_nsec };

	for (size_t i = 0; i < c->ndevs; i++) {
		struct out *o = c->o.dir ? &c->devs[i].files[0] : &c->merged;
		int r = write_note(c, o, BT_N_TIMESTAMP, c->start_mono, 0,
				   c->devs[i].dev, 0, words, sizeof(words));

		if (r < 0)
			return r;
	}
	return 0;
}

int bt_capture_convert(int in_fd, int out_fd, const uint32_t *devs,
		       size_t ndevs, struct bt_capture_stats *st)
{
	struct bt_capture_opts o = { .out_fd = out_fd, .via = BT_VIA_TRACEFS };
	struct bt_capture *c;
	int r, r2;

	if (ndevs > CONVERT_DEVS)
		return -E2BIG;
	c = bt_cap_alloc(&o, CONVERT_DEVS);
	if (!c)
		return -ENOMEM;
	c->via = BT_VIA_TRACEFS;
	c->st.via = BT_VIA_TRACEFS;
	c->dyn_devs = ndevs == 0;
	for (size_t i = 0; i < ndevs; i++)
		c->devs[i].dev = devs[i];
	c->ndevs = ndevs;
	r = bt_cap_out_open(&c->merged, out_fd, 0);
	if (r == 0)
		r = bt_cap_add_src(c, in_fd);
	if (r == 0) {
		/* a blocking descriptor: bt_cap_drain() returns at its end */
		c->nsrcs = 1;
		r = bt_cap_drain(c);
		if (r >= 0)
			r = bt_cap_emit_upto(c, 0, true);
		c->srcs[0].fd = -1;
		free(c->srcs[0].buf);
		c->nsrcs = 0;
	}
	r2 = bt_cap_out_close(&c->merged);
	if (r >= 0 && r2 < 0)
		r = r2;
	c->st.lost = c->lost_lines;
	if (st)
		*st = c->st;
	bt_cap_free(c);
	return r < 0 ? r : 0;
}
