/* SPDX-License-Identifier: MIT */
/*
 * capture_int.h - what the capture engine's files share and nobody else:
 * the capture object and the calls between its files, which run one way.
 * The session (capture.c) calls the back-ends (capture_relay.c,
 * capture_tracefs.c) and the stream (capture_stream.c: the object's
 * buffers, the records on their way out); the back-ends call the stream
 * only to hand it their descriptors; nothing calls the session.  Kernel
 * setting files go through sysfs.h.
 */
#ifndef BTKIT_CAPTURE_INT_H
#define BTKIT_CAPTURE_INT_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/blktrace_api.h>
#include <zlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "btkit.h"
#include "sysfs.h"

#define TRACEFS		"/sys/kernel/tracing"
#define DEBUGFS		"/sys/kernel/debug"
#define LOCK_PATH	"/run/lock/btkit-capture.lock"
#define LOCK_PATH2	"/tmp/btkit-capture.lock"
#define SLOT		256		/* bytes of one reorder slot: header + pdu */
#define NSLOTS		16384		/* reorder window capacity, records */
#define INBUF		(256 * 1024)	/* read buffer per source */
#define OUTBUF		(256 * 1024)	/* write buffer per output */
#define WINDOW_NS	10000000ull	/* trace_pipe: hold records 10 ms */
#define SLACK_NS	2000000ull	/* after a full drain: 2 ms */
#define POLL_MS		20
#define READER_NICE	-10		/* nice of the reading thread */
#define CONVERT_DEVS	64		/* devices a conversion can number */
#define TRACEFS_KB	8192		/* default per-CPU ring buffer, at least */
#define TRACEFS_TOTAL_KB 65536		/* default ring buffer over all CPUs */
#define RELAY_KB	2048		/* blktrace's default: 4 x 512 KB */

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
	struct bt_sysfs_saved saved;	/* tracefs: settings to write back */
	bool mounted_tracefs, mounted_debugfs;
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
	uint64_t cm_time;		/* ns, CLOCK_MONOTONIC: when loaded */

	struct out merged;
	uint64_t lost_base, lost_lines;
	uint64_t start_mono, start_real_sec, start_real_nsec;
	struct bt_capture_stats st;
};

/* Format into msg (the caller's message buffer; NULL or 0 length: none). */
static inline void __attribute__((format(printf, 3, 4)))
bt_cap_msg(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!msg || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
}

/* Copy with truncation, always NUL terminated. */
static inline void bt_cap_copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
}

/* bt_sysfs_mount with the message a capture reports. */
static inline int bt_cap_mount(const char *dir, const char *type,
			       const char *probe, bool *mounted, char *msg,
			       size_t mlen)
{
	int r = bt_sysfs_mount(dir, type, probe, mounted);

	if (r < 0)
		bt_cap_msg(msg, mlen, "cannot mount %s on %s: %s", type, dir,
			   strerror(-r));
	return r;
}

/* capture_relay.c: BLKTRACESETUP and the per-CPU relay files */
int bt_cap_relay_start(struct bt_capture *c, char *msg, size_t mlen);
void bt_cap_relay_teardown(struct bt_capture *c);
uint64_t bt_cap_relay_lost(struct bt_capture *c);

/* capture_tracefs.c: the blk tracer and trace_pipe */
int bt_cap_tracefs_start(struct bt_capture *c, char *msg, size_t mlen);
void bt_cap_tracefs_disable(struct bt_capture *c, int *ret);
int bt_cap_tracefs_restore(struct bt_capture *c);
uint64_t bt_cap_tracefs_lost(void);
/* Default per-CPU ring buffer in KB: TRACEFS_TOTAL_KB over the CPUs. */
unsigned bt_cap_tracefs_default_kb(int ncpu);
int bt_cap_saved_value(const char *path, char *val, size_t len);

/* capture_stream.c: the object, kernel records to the output stream */
/*
 * From the text of /proc/PID/stat: 1 for a user task, 0 for a kernel
 * thread (PF_KTHREAD in its flags), -1 when the text does not parse.
 */
int bt_cap_user_task(const char *stat);
struct bt_capture *bt_cap_alloc(const struct bt_capture_opts *o,
				size_t devcap);
void bt_cap_free(struct bt_capture *c);
int bt_cap_add_src(struct bt_capture *c, int fd);
int bt_cap_out_open(struct out *o, int fd, int gzip);
int bt_cap_out_flush(struct out *o);
int bt_cap_out_close(struct out *o);
int bt_cap_drain(struct bt_capture *c);
int bt_cap_emit_upto(struct bt_capture *c, uint64_t limit, bool all);
int bt_cap_write_timestamps(struct bt_capture *c);

#endif /* BTKIT_CAPTURE_INT_H */
