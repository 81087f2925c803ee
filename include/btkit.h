/* SPDX-License-Identifier: MIT */
/*
 * btkit.h - the one public header of libbtkit: reading blktrace binary
 * traces (lib/reader.c), decoding events (lib/event.c), rebuilding requests
 * (lib/track.c), scheduler messages (lib/sched.c), statistics (lib/stats.c)
 * and table output (lib/table.c).  All structs are in host byte order;
 * the library never prints, exits or keeps mutable globals.
 */
#ifndef BTKIT_H
#define BTKIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BT_VERSION "0.1.0"

/* ---------------------------------------------------------------- format */

#define BT_MAGIC		0x65617400u	/* low byte: version */
#define BT_MAGIC_MASK		0xffffff00u
#define BT_VERSION_7		7
#define BT_VERSION_8		8
#define BT_HDR_V7		48		/* bytes of a version-7 header */
#define BT_HDR_V8		64		/* bytes of a version-8 header */

/* Actions (low 8 bits of the action word). */
enum bt_act {
	BT_A_QUEUE = 1,
	BT_A_BACKMERGE,
	BT_A_FRONTMERGE,
	BT_A_GETRQ,
	BT_A_SLEEPRQ,
	BT_A_REQUEUE,
	BT_A_ISSUE,
	BT_A_COMPLETE,
	BT_A_PLUG,
	BT_A_UNPLUG_IO,
	BT_A_UNPLUG_TIMER,
	BT_A_INSERT,
	BT_A_SPLIT,
	BT_A_BOUNCE,
	BT_A_REMAP,
	BT_A_ABORT,
	BT_A_DRV_DATA,
};
#define BT_A_CGROUP		0x100u	/* action bit: pdu starts with u64 cgroup id */

/* Notes (action code when BT_TC_NOTIFY is set). */
enum bt_note {
	BT_N_PROCESS = 0,
	BT_N_TIMESTAMP = 1,
	BT_N_MESSAGE = 2,
};

/* Categories: the action word shifted right by 16. */
#define BT_TC_READ		(1u << 0)
#define BT_TC_WRITE		(1u << 1)
#define BT_TC_FLUSH		(1u << 2)	/* BARRIER before 2.6.37 */
#define BT_TC_SYNC		(1u << 3)
#define BT_TC_QUEUE		(1u << 4)
#define BT_TC_REQUEUE		(1u << 5)
#define BT_TC_ISSUE		(1u << 6)
#define BT_TC_COMPLETE		(1u << 7)
#define BT_TC_FS		(1u << 8)
#define BT_TC_PC		(1u << 9)
#define BT_TC_NOTIFY		(1u << 10)
#define BT_TC_AHEAD		(1u << 11)
#define BT_TC_META		(1u << 12)
#define BT_TC_DISCARD		(1u << 13)
#define BT_TC_DRV_DATA		(1u << 14)
#define BT_TC_FUA		(1u << 15)

#define BT_DEV_MAJOR(d)		((unsigned)((d) >> 20))
#define BT_DEV_MINOR(d)		((unsigned)((d) & 0xfffff))
#define BT_DEV_MAKE(ma, mi)	((uint32_t)(((ma) << 20) | (mi)))

/* ----------------------------------------------------------------- event */

/*
 * One record, decoded to host order.  pdu points into the reader's buffer
 * and stays valid until the next bt_reader_next() on the same reader.
 */
struct bt_event {
	uint64_t time;		/* ns, as recorded (trace clock) */
	uint64_t sector;	/* 512-byte sectors, whole-disk */
	uint64_t cgroup;	/* cgroup id when has_cgroup, else 0 */
	uint64_t offset;	/* bytes: where the record starts in its input */
	const unsigned char *pdu; /* payload after any cgroup id */
	uint32_t sequence;	/* per device and CPU from 1; 0 for notes, tracefs */
	uint32_t bytes;		/* bytes */
	uint32_t action;	/* BT_A_* or BT_N_* (cgroup bit removed) */
	uint32_t category;	/* BT_TC_* bits */
	uint32_t pid;		/* meaningless on C events (interrupt context) */
	uint32_t dev;		/* kernel dev_t: BT_DEV_MAJOR / BT_DEV_MINOR */
	uint32_t cpu;
	uint16_t error;		/* negative errno as u16, as recorded */
	uint16_t pdu_len;	/* bytes at pdu */
	uint8_t has_cgroup;	/* action had BT_A_CGROUP with an 8-byte id */
	uint8_t version;	/* 7 or 8 */
	uint16_t input;		/* index of the input (order of bt_reader_add) */
};

static inline int bt_event_is_note(const struct bt_event *e)
{
	return (e->category & BT_TC_NOTIFY) != 0;
}

/* Action letter as blkparse prints it ("Q", "UT", "m" for messages...). */
const char *bt_event_letters(const struct bt_event *e);
/* rwbs string ("RA", "FWFS", "N"...) into buf (at least 8 bytes). */
char *bt_event_rwbs(const struct bt_event *e, char *buf);

/* PDU decoders: 0 on success, -EBADMSG when the payload is too short. */
struct bt_remap {
	uint32_t dev_from;	/* kernel dev_t */
	uint32_t dev_to;	/* kernel dev_t */
	uint64_t sector_from;	/* 512-byte sectors */
};
int bt_event_remap(const struct bt_event *e, struct bt_remap *out);
int bt_event_split(const struct bt_event *e, uint64_t *new_sector);
int bt_event_unplug(const struct bt_event *e, uint64_t *nr_requests);
/* PROCESS note: comm into buf (>= 17 bytes), NUL terminated. */
int bt_event_process(const struct bt_event *e, char *comm, size_t len);
/* TIMESTAMP note: wall clock at trace start. */
int bt_event_timestamp(const struct bt_event *e, uint32_t *sec, uint32_t *nsec);
/* MESSAGE note: text and its length (not NUL terminated). */
int bt_event_message(const struct bt_event *e, const char **text, size_t *len);

/* ---------------------------------------------------------------- reader */

/*
 * A reader merges any number of inputs by time.  An input is a file
 * (per-CPU file, blkparse -d dump, btcapture stream, tracefs capture with
 * or without the 16-byte context prefix, any of them gzipped), "-" for
 * stdin, or a per-CPU basename NAME meaning every NAME.blktrace.N present.
 * Memory is bounded by the number of inputs.
 */
struct bt_reader;

struct bt_reader_stats {
	uint64_t events;	/* records delivered, notes included */
	uint64_t duplicates;	/* records dropped: sequence already seen */
	uint64_t backwards;	/* records older than one already delivered */
	uint64_t bytes;		/* bytes of input consumed */
};

int bt_reader_new(struct bt_reader **out);
/* Add a path; 0 or -errno (-ENOENT also when a basename matches nothing). */
int bt_reader_add(struct bt_reader *r, const char *path);
/* Add an already open descriptor (not closed by the reader). */
int bt_reader_add_fd(struct bt_reader *r, int fd, const char *name);
/* Add a memory buffer (not copied: must outlive the reader). */
int bt_reader_add_mem(struct bt_reader *r, const void *buf, size_t len,
		      const char *name);
/* 1: *ev filled, 0: end of all inputs, < 0: -errno, see bt_reader_error. */
int bt_reader_next(struct bt_reader *r, struct bt_event *ev);
/*
 * After a failure: the input's name, the byte offset of the bad record
 * and a short description ("bad magic 0x12345678").
 */
const char *bt_reader_error(const struct bt_reader *r, const char **file,
			    uint64_t *offset);
void bt_reader_get_stats(const struct bt_reader *r, struct bt_reader_stats *st);
/* comm from PROCESS notes seen so far, NULL if none. */
const char *bt_reader_comm(const struct bt_reader *r, uint32_t pid);
size_t bt_reader_inputs(const struct bt_reader *r);
const char *bt_reader_input_name(const struct bt_reader *r, size_t i);
void bt_reader_free(struct bt_reader *r);

/* ---------------------------------------------------------------- writer */

/* Flags of bt_event_encode(). */
#define BT_ENC_SWAP	1u	/* opposite byte order to the host's */
#define BT_ENC_V8	2u	/* version 8: 64-byte header, u64 action */
#define BT_ENC_WIDE	4u	/* 64-byte layout behind a version-7 magic */

/*
 * Encode e as one record (header, cgroup id when has_cgroup, pdu) into buf.
 * Returns the record's length, -ENOSPC when len is too small, -EINVAL when
 * the payload does not fit pdu_len.  PDUs are copied as they are: remap,
 * split and unplug payloads are big-endian whatever the flags.
 */
int bt_event_encode(const struct bt_event *e, void *buf, size_t len,
		    unsigned flags);

/* ----------------------------------------------------------------- stats */

/*
 * A distribution of u64 samples (ns, bytes): exact count, sum, min, max;
 * quantiles exact while n <= BT_DIST_EXACT, then from log-linear buckets
 * (relative error under 1/64).  Memory per distribution is bounded.
 */
#define BT_DIST_EXACT		1024
struct bt_dist {
	uint64_t n;		/* samples */
	uint64_t sum;		/* sum of samples (saturates) */
	uint64_t min, max;
	uint64_t *exact;	/* first BT_DIST_EXACT samples, or NULL */
	uint32_t *buckets;	/* log-linear counts once exact overflowed */
	uint32_t nexact;
	uint8_t sorted;
};
void bt_dist_init(struct bt_dist *d);
int bt_dist_add(struct bt_dist *d, uint64_t v);	/* 0 or -ENOMEM */
/* q in [0,1]; nearest-rank; 0 when empty.  May sort in place. */
uint64_t bt_dist_quantile(struct bt_dist *d, double q);
double bt_dist_mean(const struct bt_dist *d);
void bt_dist_free(struct bt_dist *d);

/* Power-of-two histogram: bucket k counts values in [2^(k-1), 2^k - 1]; k=0 holds 0. */
struct bt_log2 {
	uint64_t count[65];
	uint64_t total;
};
void bt_log2_add(struct bt_log2 *h, uint64_t v);
/* Bounds of bucket k, inclusive. */
void bt_log2_bounds(unsigned k, uint64_t *lo, uint64_t *hi);

/* ----------------------------------------------------------------- table */

/*
 * Report output: a header line, then rows of cells, tab-separated text
 * or RFC 4180 CSV (quoting through libcsv).  Write errors are sticky and
 * returned by bt_table_free().
 */
enum bt_table_fmt { BT_TABLE_TSV, BT_TABLE_CSV };
struct bt_table;
int bt_table_new(struct bt_table **out, FILE *fp, enum bt_table_fmt fmt,
		 int header, const char *const *cols, size_t ncols);
void bt_table_str(struct bt_table *t, const char *s);
void bt_table_u64(struct bt_table *t, uint64_t v);
void bt_table_i64(struct bt_table *t, int64_t v);
void bt_table_us(struct bt_table *t, uint64_t ns);	/* microseconds, 3 decimals */
void bt_table_s(struct bt_table *t, uint64_t ns);	/* seconds, 9 decimals */
void bt_table_double(struct bt_table *t, double v, int decimals);
void bt_table_dev(struct bt_table *t, uint32_t dev);	/* "MAJ,MIN" */
/* Ends a row: -EINVAL when the cell count differs from the columns. */
int bt_table_end_row(struct bt_table *t);
/* Flushes; 0 or -EIO when any write failed. */
int bt_table_free(struct bt_table *t);

/* --------------------------------------------------------------- tracker */

/* lib/track.c */

/*
 * The tracker rebuilds requests from Q, M, F, G, I, D, C, R, X and A
 * events (blk-mq and the legacy queue): bios fold into requests by back
 * and front merges, requeued requests go round again, split bios become
 * two pieces, remapped bios (A: partition or dm/md to the disk) are
 * analysed on the bottom device and remember where they came from.
 * Requests are keyed by device and sector in a fixed-capacity table, so
 * memory is bounded by the requests in flight: a request without any
 * event for expire_ns of trace time is dropped and counted (and handed to
 * the done callback with BT_RQ_EXPIRED), as is the oldest one when the
 * table is full.  No allocation per event.
 */
struct bt_tracker;

#define BT_TIME_NONE		UINT64_MAX	/* timestamp absent */
#define BT_RQ_QLIST		8		/* bio Q times kept per request */

/* struct bt_request flags */
#define BT_RQ_REQUEUED		(1u << 0)	/* went back by R at least once */
#define BT_RQ_SPLIT		(1u << 1)	/* holds a piece of a split bio (X) */
#define BT_RQ_REMAPPED		(1u << 2)	/* first bio came by A: origin_* set */
#define BT_RQ_NOQ		(1u << 3)	/* no Q: blk-flush flush, or began before the trace */
#define BT_RQ_DIRECT		(1u << 4)	/* dispatched without I (direct issue) */
#define BT_RQ_PARTIAL		(1u << 5)	/* completed in more than one C */
#define BT_RQ_EXPIRED		(1u << 6)	/* never completed: expired or evicted */
#define BT_RQ_OPEN		(1u << 7)	/* never completed: open at bt_tracker_flush */
#define BT_RQ_ERROR		(1u << 8)	/* a C carried an error */

/* Where a request is in its life (bt_request.state). */
enum bt_rq_state {
	BT_RQS_QUEUED = 1,	/* bio queued (Q), not yet in a request */
	BT_RQS_GOT,		/* request allocated (G) */
	BT_RQS_INSERTED,	/* in the scheduler (I) */
	BT_RQS_ISSUED,		/* at the driver (D) */
	BT_RQS_REQUEUED,	/* sent back (R), waits for another D */
	BT_RQS_DONE,		/* completed (C) or given up */
};

/*
 * One request.  Handed to the done callback when it completes, expires or
 * is flushed; bt_tracker_feed() also exposes the request an event touched.
 * The pointer is valid until the next call on the tracker.
 */
struct bt_request {
	uint64_t sector;	/* 512-byte sectors: current start */
	uint64_t origin_sector;	/* 512-byte sectors on origin_dev (BT_RQ_REMAPPED) */
	uint64_t q;		/* ns: first (earliest) Q folded in */
	uint64_t g;		/* ns: G */
	uint64_t i;		/* ns: first I */
	uint64_t d;		/* ns: last D (after requeues, the one that completed) */
	uint64_t c;		/* ns: last C (the final piece of a partial completion) */
	uint64_t last;		/* ns: latest event folded in */
	uint64_t q_off_sum;	/* ns: sum over the bios of (bio's Q - q) */
	uint64_t qlist[BT_RQ_QLIST]; /* ns: Q times of the first bios, in folding order */
	uint64_t cgroup;	/* cgroup id of the first event that had one, else 0 */
	uint32_t bytes;		/* bytes: of the D (else the sum of the bios) */
	uint32_t nbios;		/* bios folded in: Q'd bios, merges, split pieces */
	uint32_t nqlist;	/* entries used in qlist */
	uint32_t nrequeue;	/* R events */
	uint32_t pid;		/* owner: pid of the first Q (else of the first event) */
	uint32_t dev;		/* kernel dev_t analysed (bottom of a remap) */
	uint32_t origin_dev;	/* kernel dev_t the first bio was remapped from */
	uint32_t category;	/* BT_TC_* of the D (else of the first event) */
	uint32_t flags;		/* BT_RQ_* */
	uint16_t error;		/* negative errno as u16 from the C, 0 if none */
	uint8_t state;		/* enum bt_rq_state */
	char op;		/* 'R' read, 'W' write, 'D' discard, 'F' flush (0 bytes), 'N' other */
	char rwbs[8];		/* as blkparse prints it for the D (else the first event) */
	char comm[17];		/* owner's name from PROCESS notes, "" if unknown */
};

struct bt_tracker_opts {
	uint64_t expire_ns;	/* ns of trace time without event; 0: 30 s */
	uint32_t capacity;	/* requests in flight; 0: 32768 */
	/* optional: names owners by bt_reader_comm() */
	const struct bt_reader *reader;
	/* optional: every finished request (completed, expired, flushed) */
	void (*done)(const struct bt_request *rq, void *arg);
	void *arg;
};

struct bt_tracker_stats {
	uint64_t completed;	/* requests finished by C */
	uint64_t expired;	/* dropped after expire_ns without event */
	uint64_t evicted;	/* dropped early: table full */
	uint64_t open;		/* still open at bt_tracker_flush */
	uint64_t unmatched;	/* M, F, C, R that found no request */
	uint64_t remapped;	/* bios that moved to another device (A) */
	uint64_t inflight;	/* requests in the table now */
	uint64_t peak;		/* most requests in the table at once */
};

/* NULL opts: defaults.  0 or -ENOMEM / -EINVAL. */
int bt_tracker_new(struct bt_tracker **out, const struct bt_tracker_opts *opts);
/*
 * Feed one event (notes and other actions are ignored).  Returns 1 when a
 * request was touched (*rq, if rq is not NULL, points to it; after a final
 * C it is the finished request, already given to the done callback), 0
 * when not (*rq NULL), -EINVAL on bad arguments.
 */
int bt_tracker_feed(struct bt_tracker *tr, const struct bt_event *ev,
		    const struct bt_request **rq);
/* End of trace: hand every open request to done with BT_RQ_OPEN. */
void bt_tracker_flush(struct bt_tracker *tr);
void bt_tracker_get_stats(const struct bt_tracker *tr,
			  struct bt_tracker_stats *st);
void bt_tracker_free(struct bt_tracker *tr);

/* ----------------------------------------------------------------- sched */

/* lib/sched.c */

/*
 * Scheduler messages (blktrace MESSAGE notes) decoded.  CFQ (2.6.26-4.20)
 * logs "cfq<pid>[S|A][N] [blkcg-path] text", BFQ (4.12+) "bfq<pid>[S|A]
 * [blkcg-path] text" or "bfqSHARED-[S|A] text"; device-level lines are
 * "cfq text" / "bfq text"; "elv switch: NAME" comes from the elevator core.
 * Queue lines are classified by their text into the slice markers of
 * DESIGN.md: backlog (add_to_rr, add to busy), leave (del_from_rr,
 * del from busy), service start (set_active, set_in_service_queue) and
 * service end (slice expired, expire ().
 */
enum bt_sched_kind {
	BT_SCHED_UNKNOWN = 0,	/* not a scheduler message we know */
	BT_SCHED_QUEUE,		/* about one queue: pid, sync, shared valid */
	BT_SCHED_DEVICE,	/* about the whole device ("cfq idle timer fired") */
	BT_SCHED_SWITCH,	/* "elv switch: NAME": name in arg */
};
enum bt_sched_name { BT_SCHED_NONE = 0, BT_SCHED_CFQ, BT_SCHED_BFQ };
enum bt_sched_mark {
	BT_SCHED_OTHER = 0,	/* any other queue message */
	BT_SCHED_BACKLOG,	/* queue got requests: waits for service */
	BT_SCHED_LEAVE,		/* queue left the service tree without service */
	BT_SCHED_START,		/* queue is now in service */
	BT_SCHED_END,		/* queue's service (slice, budget) ended */
};
struct bt_sched_msg {
	uint8_t kind;		/* enum bt_sched_kind */
	uint8_t sched;		/* enum bt_sched_name */
	uint8_t mark;		/* enum bt_sched_mark (queue messages) */
	uint8_t sync;		/* 1: sync queue (S), 0: async (A) or unknown */
	uint8_t has_type;	/* the S/A letter was present (CFQ >= 2.6.30) */
	uint8_t noidle;		/* CFQ N: sync-noidle workload */
	uint8_t shared;		/* BFQ merged queue (bfqSHARED-, or pid -1) */
	int32_t pid;		/* queue's pid; -1 when shared */
	const char *group;	/* blkcg path token ("/user.slice") or NULL */
	size_t group_len;
	const char *text;	/* message after queue and group tokens */
	size_t text_len;
	const char *arg;	/* BT_SCHED_SWITCH: the new elevator's name */
	size_t arg_len;
};
/*
 * Decode a message text of len bytes (trailing NULs and newlines ignored).
 * Returns 1 when it is a scheduler message (m filled), 0 when not (m->kind
 * BT_SCHED_UNKNOWN).  Pointers in m point into text.
 */
int bt_sched_parse(const char *text, size_t len, struct bt_sched_msg *m);
/*
 * Decode a MESSAGE note (the reader has already moved a cgroup id into
 * e->cgroup).  Returns 1, 0 when not a scheduler message, -EINVAL when e is
 * not a MESSAGE note.
 */
int bt_sched_event(const struct bt_event *e, struct bt_sched_msg *m);
/* Queue name as the kernel prints it ("cfq12S", "bfqSHARED-A") into buf. */
char *bt_sched_queue_name(const struct bt_sched_msg *m, char *buf, size_t len);

#endif /* BTKIT_H */
