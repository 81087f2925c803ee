// SPDX-License-Identifier: MIT
/*
 * capture.c - the engine behind btcapture (and btreplay --capture): record
 * blktrace records of block devices into one time-ordered stream or into
 * per-CPU files, through the classic relay interface (BLKTRACESETUP and
 * per-CPU files in debugfs) or, where kernel lockdown makes the relay files
 * unreadable (open fails with EPERM), through the tracefs "blk" tracer with
 * the "bin" option.  The tracefs path gives records without sequence numbers
 * and without PROCESS/TIMESTAMP notes, so this file numbers them per device
 * and CPU and writes the notes itself.  Every tracefs and sysfs setting it
 * changes is saved first and restored by bt_capture_stop(), also after a
 * failure half way through bt_capture_start().  A thread reads the kernel
 * buffers; memory is bounded by a fixed reorder window.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>
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
#include <linux/blktrace_api.h>
#include <zlib.h>
#include "btkit.h"

#define TRACEFS		"/sys/kernel/tracing"
#define DEBUGFS		"/sys/kernel/debug"
#define LOCK_PATH	"/run/lock/btkit-capture.lock"
#define LOCK_PATH2	"/tmp/btkit-capture.lock"
#define MAX_SAVED	32
#define SLOT		256		/* bytes of one reorder slot: header + pdu */
#define NSLOTS		16384		/* reorder window capacity, records */
#define INBUF		(256 * 1024)	/* read buffer per source */
#define OUTBUF		(256 * 1024)	/* write buffer per output */
#define WINDOW_NS	10000000ull	/* trace_pipe: hold records 10 ms */
#define SLACK_NS	2000000ull	/* after a full drain: 2 ms */
#define POLL_MS		20
#define READER_NICE	-10		/* nice of the reading thread */
#define CONVERT_DEVS	64		/* devices a conversion can number */
#define TRACEFS_KB	8192		/* default per-CPU ring buffer */
#define RELAY_KB	2048		/* blktrace's default: 4 x 512 KB */

struct saved {
	char path[160];
	char val[64];
};

struct out {
	int fd;
	gzFile gz;
	unsigned char *buf;
	size_t len;
	int err;
};

struct src {			/* one kernel stream: trace_pipe or a relay file */
	int fd;
	unsigned char *buf;
	size_t len;
};

struct cdev {
	char path[PATH_MAX];
	char name[BLKTRACE_BDEV_SIZE];	/* kernel's name: loop0, sda1 */
	char sysdir[96];		/* /sys/dev/block/MAJ:MIN */
	uint32_t dev;			/* kernel dev_t */
	int fd;				/* relay: the device, for the ioctls */
	bool set_up;			/* relay: BLKTRACESETUP done */
	bool started;			/* relay: BLKTRACESTART done */
	bool enabled;			/* tracefs: trace/enable written */
	struct out *files;		/* -D: one per CPU */
};

struct bt_capture {
	struct bt_capture_opts o;
	enum bt_capture_via via;
	int ncpu;
	struct cdev *devs;
	size_t ndevs;
	struct saved saved[MAX_SAVED];
	int nsaved;
	bool mounted_tracefs, mounted_debugfs, tracer_set;
	int lockfd;

	struct src *srcs;
	int nsrcs;
	int stopfd[2];
	pthread_t thr;
	bool thr_running;
	atomic_int stopping;
	atomic_int thr_err;		/* -errno when the thread failed */
	char thr_msg[128];

	/* reorder window: slot ids sorted by time in a ring */
	unsigned char *slots;
	uint64_t *slot_time;
	uint32_t *order;
	uint32_t *freelist;
	uint32_t nfree, head, count;
	uint64_t newest;

	uint32_t *seq;			/* tracefs: per device and CPU */
	bool dyn_devs;			/* convert: devices as they come */

	/* (dev, pid) pairs that have had their PROCESS note */
	uint64_t *noted;
	size_t noted_cap, noted_n;

	/* pid -> comm from saved_cmdlines */
	uint32_t *cm_pid;
	char (*cm_comm)[16];
	size_t cm_cap;
	bool cm_fresh;			/* reloaded in this drain pass */

	struct out merged;
	uint64_t lost_base, lost_lines;
	uint64_t start_mono, start_real_sec, start_real_nsec;
	struct bt_capture_stats st;
};

static void setmsg(char *msg, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void setmsg(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!msg || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
}

/* Copy with truncation, always NUL terminated. */
static void copy_str(char *dst, size_t len, const char *src)
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

static int read_text(const char *path, char *buf, size_t len)
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
 * The value to write back later.  trace_clock lists every clock with the
 * current one in brackets; buffer_size_kb reads "7 (expanded: 1408)" before
 * the buffer was first used, and only the expanded size can be written back
 * (the kernel never shrinks to the unexpanded one by itself).
 */
static void normalize(const char *path, char *val)
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

		snprintf(val, 64, "%lu", kb);
	}
}

/* Save the current value of path (once) and write val. */
static int set_saved(struct bt_capture *c, const char *path, const char *val,
		     char *msg, size_t mlen)
{
	char old[4096];
	int r, i;

	r = read_text(path, old, sizeof(old));
	if (r < 0) {
		setmsg(msg, mlen, "%s: %s", path, strerror(-r));
		return r;
	}
	normalize(path, old);
	if (strcmp(old, val) == 0)
		return 0;
	for (i = 0; i < c->nsaved; i++)
		if (strcmp(c->saved[i].path, path) == 0)
			break;
	if (i == c->nsaved) {
		if (c->nsaved == MAX_SAVED || strlen(path) >= 160 ||
		    strlen(old) >= 64) {
			setmsg(msg, mlen, "%s: cannot save old value", path);
			return -E2BIG;
		}
		snprintf(c->saved[i].path, sizeof(c->saved[i].path), "%s", path);
		snprintf(c->saved[i].val, sizeof(c->saved[i].val), "%s", old);
		c->nsaved++;
	}
	r = write_text(path, val);
	if (r < 0)
		setmsg(msg, mlen, "%s: cannot write '%s': %s", path, val,
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

static int ensure_mounted(const char *dir, const char *type, bool *mounted,
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

		setmsg(msg, mlen, "cannot mount %s on %s: %s", type, dir,
		       strerror(errno));
		return e;
	}
	*mounted = true;
	return 0;
}

/* -------------------------------------------------------------- output */

static int out_open(struct out *o, int fd, int gzip)
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

static int out_flush(struct out *o)
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
	if (o->len + n > OUTBUF && out_flush(o) < 0)
		return o->err;
	memcpy(o->buf + o->len, p, n);
	o->len += n;
	return 0;
}

/* Flush and close the gzip stream; the descriptor stays the caller's. */
static int out_close(struct out *o)
{
	int r;

	if (!o->buf)
		return 0;
	r = out_flush(o);
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

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint16_t rd16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

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
	char *buf, *p, *line;
	int fd;
	size_t len = 0, bufsz = 1 << 20;
	ssize_t n;

	c->cm_fresh = true;
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
				copy_str(c->cm_comm[h], 16, comm);
				break;
			}
		}
	}
	free(buf);
}

/*
 * The comm of pid as the tracer saw it: the tracer's saved command lines
 * (recorded when the event was), else /proc (the process may have exec'd
 * since), else the idle task's name for pid 0 as the kernel would note it.
 */
static void comm_of(struct bt_capture *c, uint32_t pid, uint32_t cpu,
		    char comm[16])
{
	char path[64], buf[64];

	memset(comm, 0, 16);
	if (pid == 0) {
		snprintf(comm, 16, "swapper/%u", cpu);
		return;
	}
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			if (c->cm_fresh)
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
				return;
			}
		}
	}
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	if (read_text(path, buf, sizeof(buf)) == 0 && buf[0]) {
		copy_str(comm, 16, buf);
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
	uint32_t action = rd32(rec + 28), pid = rd32(rec + 32);
	uint32_t dev = rd32(rec + 36), cpu = rd32(rec + 40);
	uint64_t time = rd64(rec + 8);
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

			comm_of(c, pid, cpu, comm);
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

static int window_emit_upto(struct bt_capture *c, uint64_t limit, bool all)
{
	while (c->count) {
		uint32_t s = c->order[c->head];
		unsigned char *rec = c->slots + (size_t)s * SLOT;
		int r;

		if (!all && c->slot_time[s] > limit)
			break;
		r = emit(c, rec, BT_HDR_V7 + rd16(rec + 46));
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
	uint64_t t = rd64(rec + 8);
	uint32_t s, i, prev;
	int r;

	if (len > SLOT) {
		c->st.bad++;
		return 0;
	}
	if (c->nfree == 0) {
		r = window_emit_upto(c, 0, false);
		if (r < 0)
			return r;
		/* still full: force the oldest out */
		if (c->nfree == 0) {
			uint32_t o = c->order[c->head];
			unsigned char *orec = c->slots + (size_t)o * SLOT;

			r = emit(c, orec, BT_HDR_V7 + rd16(orec + 46));
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
		uint32_t magic = rd32(p);

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
			       (rd32(s->buf + off) & BT_MAGIC_MASK) != BT_MAGIC &&
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
		len = BT_HDR_V7 + rd16(p + 46);
		if (avail < len)
			break;
		if (c->via == BT_VIA_TRACEFS &&
		    !((rd32(p + 28) >> 16) & BT_TC_NOTIFY)) {
			int d = dev_index_add(c, rd32(p + 36));
			uint32_t cpu = rd32(p + 40);

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
		if ((rd32(p + 28) & BT_A_CGROUP) && !c->o.cgroup &&
		    rd16(p + 46) >= 8 && len <= SLOT) {
			/*
			 * 6.18 flags scheduler messages with a cgroup id even
			 * with the blk_cgroup option off, and blkparse 1.2
			 * drops such messages: unless asked, drop the id.
			 */
			unsigned char tmp[SLOT];
			uint32_t act = rd32(p + 28) & ~BT_A_CGROUP;
			uint16_t pl = (uint16_t)(rd16(p + 46) - 8);

			memcpy(tmp, p, BT_HDR_V7);
			memcpy(tmp + 28, &act, 4);
			memcpy(tmp + 46, &pl, 2);
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
static int drain(struct bt_capture *c)
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
				r = window_emit_upto(c, c->newest - WINDOW_NS,
						     false);
				if (r < 0)
					return r;
			}
		}
	}
	return any;
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
		r = drain(c);
		if (r < 0) {
			snprintf(c->thr_msg, sizeof(c->thr_msg),
				 "reading the trace: %s", strerror(-r));
			break;
		}
		/* Everything stamped before t0 has been read by now. */
		r = window_emit_upto(c, t0 > SLACK_NS ? t0 - SLACK_NS : 0, false);
		if (r >= 0 && stop)
			r = window_emit_upto(c, 0, true);
		/* a reader at the other end of a pipe sees events as they come */
		if (r >= 0 && !c->merged.gz && c->merged.len)
			r = out_flush(&c->merged);
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

		setmsg(msg, mlen, "%s: %s", path, strerror(errno));
		return e;
	}
	if (!S_ISBLK(st.st_mode)) {
		setmsg(msg, mlen, "%s: not a block device", path);
		return -ENOTBLK;
	}
	d->dev = BT_DEV_MAKE(major(st.st_rdev), minor(st.st_rdev));
	snprintf(d->sysdir, sizeof(d->sysdir), "/sys/dev/block/%u:%u",
		 major(st.st_rdev), minor(st.st_rdev));
	snprintf(link, sizeof(link), "%s", d->sysdir);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0) {
		int e = -errno;

		setmsg(msg, mlen, "%s: %s: %s", path, link, strerror(errno));
		return e;
	}
	target[n] = 0;
	base = strrchr(target, '/');
	copy_str(d->name, sizeof(d->name), base ? base + 1 : target);
	return 0;
}

static int open_dir_files(struct bt_capture *c, char *msg, size_t mlen)
{
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

				setmsg(msg, mlen, "%s: %s", path, strerror(errno));
				return e;
			}
			r = out_open(&d->files[cpu], fd, c->o.gzip);
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
			int r = out_close(&d->files[cpu]);

			if (r < 0 && !*ret)
				*ret = r;
			if (d->files[cpu].fd >= 0)
				close(d->files[cpu].fd);
		}
		free(d->files);
		d->files = NULL;
	}
}

static int add_src(struct bt_capture *c, int fd)
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
		if (read_text(path, buf + 1, sizeof(buf) - 1) < 0)
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

	if (read_text(TRACEFS "/current_tracer", buf, sizeof(buf)) < 0) {
		setmsg(msg, mlen, "cannot read " TRACEFS "/current_tracer");
		return -ENOENT;
	}
	if (strcmp(buf, "nop") != 0) {
		setmsg(msg, mlen, "tracer '%s' is in use (" TRACEFS
		       "/current_tracer); not touching it", buf);
		return -EBUSY;
	}
	if (read_text(TRACEFS "/set_event", buf, sizeof(buf)) == 0 && buf[0]) {
		setmsg(msg, mlen, "trace events are enabled (" TRACEFS
		       "/set_event); tracefs is in use");
		return -EBUSY;
	}
	for (size_t i = 0; i < c->ndevs; i++) {
		char path[160];

		snprintf(path, sizeof(path), "%s/trace/enable", c->devs[i].sysdir);
		if (read_text(path, buf, sizeof(buf)) < 0) {
			setmsg(msg, mlen, "%s: no block trace support (%s)",
			       c->devs[i].path, path);
			return -EOPNOTSUPP;
		}
		if (strcmp(buf, "0") != 0) {
			setmsg(msg, mlen, "%s is already being traced",
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

	r = ensure_mounted(TRACEFS, "tracefs", &c->mounted_tracefs, msg, mlen);
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
		setmsg(msg, mlen, TRACEFS "/trace_pipe: %s", strerror(errno));
		return r;
	}
	r = add_src(c, fd);
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
			setmsg(msg, mlen, "%s: %s", path, strerror(-r));
			return r;
		}
		d->enabled = true;
		if (c->o.act_mask) {
			snprintf(path, sizeof(path), "%s/trace/act_mask",
				 d->sysdir);
			snprintf(val, sizeof(val), "%#x", c->o.act_mask);
			r = write_text(path, val);
			if (r < 0) {
				setmsg(msg, mlen, "%s: %s", path, strerror(-r));
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

static void relay_teardown(struct bt_capture *c)
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

static int relay_start(struct bt_capture *c, char *msg, size_t mlen)
{
	char buf[256];
	int r;

	/* With the blk tracer current, relay traces go to tracefs instead. */
	r = ensure_mounted(TRACEFS, "tracefs", &c->mounted_tracefs, msg, mlen);
	if (r == 0 && read_text(TRACEFS "/current_tracer", buf, sizeof(buf)) == 0 &&
	    strcmp(buf, "blk") == 0) {
		setmsg(msg, mlen, "tracer 'blk' is in use; not touching it");
		return -EBUSY;
	}
	r = ensure_mounted(DEBUGFS, "debugfs", &c->mounted_debugfs, msg, mlen);
	if (r < 0)
		return r;
	for (size_t i = 0; i < c->ndevs; i++) {
		struct cdev *d = &c->devs[i];
		struct blk_user_trace_setup bs;
		unsigned kb = c->o.buf_kb ? c->o.buf_kb : RELAY_KB;

		d->fd = open(d->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (d->fd < 0) {
			r = -errno;
			setmsg(msg, mlen, "%s: %s", d->path, strerror(errno));
			return r;
		}
		memset(&bs, 0, sizeof(bs));
		bs.act_mask = c->o.act_mask ? c->o.act_mask : 0xffff;
		bs.buf_nr = 4;
		bs.buf_size = kb * 1024 / 4;
		if (ioctl(d->fd, BLKTRACESETUP, &bs) < 0) {
			r = -errno;
			setmsg(msg, mlen, "%s: BLKTRACESETUP: %s%s", d->path,
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
				setmsg(msg, mlen, "%s: %s", path,
				       strerror(errno));
				return r;
			}
			r = add_src(c, fd);
			if (r < 0) {
				close(fd);
				return r;
			}
		}
	}
	for (size_t i = 0; i < c->ndevs; i++) {
		if (ioctl(c->devs[i].fd, BLKTRACESTART) < 0) {
			r = -errno;
			setmsg(msg, mlen, "%s: BLKTRACESTART: %s",
			       c->devs[i].path, strerror(errno));
			return r;
		}
		c->devs[i].started = true;
	}
	return 0;
}

static uint64_t relay_lost(struct bt_capture *c)
{
	uint64_t total = 0;

	for (size_t i = 0; i < c->ndevs; i++) {
		char path[PATH_MAX], buf[64];

		snprintf(path, sizeof(path), DEBUGFS "/block/%s/dropped",
			 c->devs[i].name);
		if (read_text(path, buf, sizeof(buf)) == 0)
			total += strtoull(buf, NULL, 10);
	}
	return total;
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
	relay_teardown(c);
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

static void capture_free(struct bt_capture *c)
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
static struct bt_capture *capture_alloc(const struct bt_capture_opts *o,
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
		capture_free(c);
		return NULL;
	}
	for (uint32_t i = 0; i < NSLOTS; i++)
		c->freelist[i] = NSLOTS - 1 - i;
	c->nfree = NSLOTS;
	for (size_t i = 0; i < devcap; i++)
		c->devs[i].fd = -1;
	return c;
}

static int write_timestamps(struct bt_capture *c)
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

int bt_capture_start(struct bt_capture **out, const struct bt_capture_opts *o,
		     char *msg, size_t mlen)
{
	struct bt_capture *c;
	struct timespec mono, real;
	int r;

	*out = NULL;
	setmsg(msg, mlen, "%s", "");
	if (!o->ndevs || (o->out_fd < 0) == (o->dir == NULL)) {
		setmsg(msg, mlen, "need devices and one output");
		return -EINVAL;
	}
	if (geteuid() != 0) {
		setmsg(msg, mlen, "tracing block devices needs root");
		return -EPERM;
	}
	c = capture_alloc(o, o->ndevs);
	if (!c)
		return -ENOMEM;
	c->ndevs = o->ndevs;
	for (size_t i = 0; i < o->ndevs; i++) {
		c->devs[i].fd = -1;
		r = dev_lookup(&c->devs[i], o->devs[i], msg, mlen);
		if (r < 0) {
			capture_free(c);
			return r;
		}
		for (size_t j = 0; j < i; j++)
			if (c->devs[j].dev == c->devs[i].dev) {
				setmsg(msg, mlen, "%s: given twice", o->devs[i]);
				capture_free(c);
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
		setmsg(msg, mlen, r == -EBUSY ?
		       "another capture is running (its lock file is locked)" :
		       "lock file: %s", strerror(-r));
		capture_free(c);
		return r;
	}
	if (pipe2(c->stopfd, O_CLOEXEC | O_NONBLOCK) < 0) {
		r = -errno;
		capture_free(c);
		return r;
	}
	if (o->dir) {
		r = open_dir_files(c, msg, mlen);
	} else {
		r = out_open(&c->merged, o->out_fd, o->gzip);
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
		r = relay_start(c, msg, mlen);
		if (r == -EPERM && o->via == BT_VIA_AUTO) {
			/* lockdown: relay files cannot be opened */
			undo(c);
			c->via = BT_VIA_TRACEFS;
		} else if (r < 0) {
			goto fail;
		}
	}
	if (c->via == BT_VIA_TRACEFS) {
		setmsg(msg, mlen, "%s", "");
		r = write_timestamps(c);
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
	out_close(&c->merged);
	{
		int ignored = 0;

		close_dir_files(c, &ignored);
	}
	if (msg && !msg[0])
		setmsg(msg, mlen, "%s", strerror(-r));
	capture_free(c);
	return r;
}

int bt_capture_error(const struct bt_capture *c, char *msg, size_t mlen)
{
	if (c->thr_err)
		setmsg(msg, mlen, "%s", c->thr_msg);
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
	setmsg(msg, mlen, "%s", "");
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
		setmsg(msg, mlen, "%s", c->thr_msg);
		ret = c->thr_err;
	}
	if (c->via == BT_VIA_TRACEFS) {
		uint64_t now = tracefs_lost();

		lost = now > c->lost_base ? now - c->lost_base : 0;
		if (c->lost_lines > lost)
			lost = c->lost_lines;
	} else {
		lost = relay_lost(c);
	}
	r = undo(c);
	if (r < 0 && !ret) {
		setmsg(msg, mlen, "restoring tracefs settings: %s", strerror(-r));
		ret = r;
	}
	r = out_close(&c->merged);
	if (r < 0 && !ret) {
		setmsg(msg, mlen, "writing the trace: %s", strerror(-r));
		ret = r;
	}
	r = 0;
	close_dir_files(c, &r);
	if (r < 0 && !ret) {
		setmsg(msg, mlen, "writing the trace: %s", strerror(-r));
		ret = r;
	}
	c->st.lost = lost;
	c->st.duration_ns = now_ns(CLOCK_MONOTONIC) - c->start_mono;
	if (st)
		*st = c->st;
	capture_free(c);
	return ret;
}

int bt_capture_convert(int in_fd, int out_fd, const uint32_t *devs,
		       size_t ndevs, struct bt_capture_stats *st)
{
	struct bt_capture_opts o = { .out_fd = out_fd, .via = BT_VIA_TRACEFS };
	struct bt_capture *c;
	int r, r2;

	if (ndevs > CONVERT_DEVS)
		return -E2BIG;
	c = capture_alloc(&o, CONVERT_DEVS);
	if (!c)
		return -ENOMEM;
	c->via = BT_VIA_TRACEFS;
	c->st.via = BT_VIA_TRACEFS;
	c->dyn_devs = ndevs == 0;
	for (size_t i = 0; i < ndevs; i++)
		c->devs[i].dev = devs[i];
	c->ndevs = ndevs;
	r = out_open(&c->merged, out_fd, 0);
	if (r == 0)
		r = add_src(c, in_fd);
	if (r == 0) {
		/* a blocking descriptor: drain() returns at its end */
		c->nsrcs = 1;
		r = drain(c);
		if (r >= 0)
			r = window_emit_upto(c, 0, true);
		c->srcs[0].fd = -1;
		free(c->srcs[0].buf);
		c->nsrcs = 0;
	}
	r2 = out_close(&c->merged);
	if (r >= 0 && r2 < 0)
		r = r2;
	c->st.lost = c->lost_lines;
	if (st)
		*st = c->st;
	capture_free(c);
	return r < 0 ? r : 0;
}
