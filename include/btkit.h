/* SPDX-License-Identifier: MIT */
/*
 * btkit.h - the one public header of libbtkit, in the order data flows:
 * the record format and events (lib/event.c), reading blktrace binary
 * traces (lib/reader.c, lib/input.c) and writing them (lib/writer.c),
 * rebuilding requests (lib/track.c), the analyses and what they build on
 * (lib/stats.c, lib/group.c; latency lib/lat.c, scheduler messages, slice
 * waits and fdatasync episodes lib/sched.c, lib/slice.c, lib/sync.c,
 * merges lib/merge.c, sizes lib/size.c), the table writer (lib/table.c),
 * the comparison of recordings (lib/diff.c), blkparse's text
 * (lib/format.c, lib/blkorder.c, lib/summary.c), pictures and the report
 * (lib/svg.c, lib/plot*.c, lib/report.c), capture (lib/capture*.c) and
 * replay (lib/replay*.c, lib/blkdev.c).  All structs are in host byte
 * order; the library never prints, exits or keeps mutable globals.
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
	/*
	 * Version 8 only (Linux 6.19): a bio waits in its zone's write plug
	 * (ZP) and leaves it for submission (ZU); sector and bytes are the
	 * bio's, there is no payload.  __BLK_TA_ZONE_PLUG/_UNPLUG of the
	 * uapi <linux/blktrace_api.h>.
	 */
	BT_A_ZONE_PLUG,
	BT_A_ZONE_UNPLUG,
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
/*
 * Version 8 only: zoned-device operations, bits 32-37 of the u64 action
 * word (BLK_TC_ZONE_*).  Q, G, I, D and C of a zone management command
 * carry one of them (no data: bytes 0, sector the zone's start); every
 * event of a zone append carries ZONE_APPEND, and its C gives the sector
 * the device chose.  See btkit-format(5) "Zoned devices (version 8)".
 */
#define BT_TC_ZONE_APPEND	(1u << 16)
#define BT_TC_ZONE_RESET	(1u << 17)
#define BT_TC_ZONE_RESET_ALL	(1u << 18)
#define BT_TC_ZONE_FINISH	(1u << 19)
#define BT_TC_ZONE_OPEN		(1u << 20)
#define BT_TC_ZONE_CLOSE	(1u << 21)
#define BT_TC_ZONE_MGMT		(BT_TC_ZONE_RESET | BT_TC_ZONE_RESET_ALL | \
				 BT_TC_ZONE_FINISH | BT_TC_ZONE_OPEN | \
				 BT_TC_ZONE_CLOSE)

#define BT_DEV_MAJOR(d)		((unsigned)((d) >> 20))
#define BT_DEV_MINOR(d)		((unsigned)((d) & 0xfffff))
#define BT_DEV_MAKE(ma, mi)	(((uint32_t)(ma) << 20) | (uint32_t)(mi))

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
/* Longest rwbs string plus its NUL: "FZRAFASM" and one spare. */
#define BT_RWBS_LEN		10
/* rwbs string ("RA", "FWFS", "ZR", "N"...) into buf (BT_RWBS_LEN bytes). */
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
	uint64_t events;	/* records read, notes and those set aside
				   (bt_reader_set_actions()) included */
	uint64_t duplicates;	/* records dropped: equal to one already read */
	uint64_t backwards;	/* records older than one already delivered */
	uint64_t bytes;		/* bytes of input consumed */
	uint64_t gaps;		/* jumps in a device and CPU's sequence */
	uint64_t missing;	/* records those jumps skipped (lost) */
	uint64_t repeats;	/* repeated sequences that were no copies: kept */
	uint64_t recordings;	/* separate recordings among the inputs */
};

int bt_reader_new(struct bt_reader **out);
/* Add a path; 0 or -errno (-ENOENT also when a basename matches nothing). */
int bt_reader_add(struct bt_reader *r, const char *path);
/* Add an already open descriptor (not closed by the reader). */
int bt_reader_add_fd(struct bt_reader *r, int fd, const char *name);
/* Add a memory buffer (not copied: must outlive the reader). */
int bt_reader_add_mem(struct bt_reader *r, const void *buf, size_t len,
		      const char *name);
/*
 * 1: *ev filled, 0: end of all inputs, < 0: -errno, see bt_reader_error.
 * Inputs that hold no bytes at all, together, are bad input: -ENODATA
 * "empty trace" at offset 0 of the first input (an empty per-CPU file
 * beside others is a CPU that did nothing, not an error).
 */
int bt_reader_next(struct bt_reader *r, struct bt_event *ev);
/*
 * After a failure: the input's name, the byte offset of the bad record
 * and a short description ("bad magic 0x12345678"); NULL when none.
 */
const char *bt_reader_error(const struct bt_reader *r, const char **file,
			    uint64_t *offset);
void bt_reader_get_stats(const struct bt_reader *r, struct bt_reader_stats *st);
/*
 * Deliver only events whose action has its bit (1u << BT_A_*) in mask,
 * and every note; the default is ~0u, everything.  The others are still
 * read, checked for copies, gaps and time going backwards, and counted
 * (stats.events), but set aside undecoded: an analysis that needs a few
 * actions saves the rest's decoding.  Actions from 32 up always pass.
 * May change between calls of bt_reader_next() and bt_reader_next_input().
 */
void bt_reader_set_actions(struct bt_reader *r, uint32_t mask);
/*
 * Deliver events of one action (below 32) only when their category has
 * a bit of cats (BT_TC_*): 0 sets them all aside, ~0u delivers them all.
 * 0 or -EINVAL.
 */
int bt_reader_set_action(struct bt_reader *r, uint32_t action, uint32_t cats);
/*
 * The actions (1u << BT_A_*) of the events set aside so far: with those
 * delivered, what the trace holds (for a message on what it lacks).
 */
uint32_t bt_reader_aside_actions(const struct bt_reader *r);
/* The newest time (ns, as delivered) of the events set aside; 0: none. */
uint64_t bt_reader_aside_time(const struct bt_reader *r);
/*
 * The reader's i-th warning (separate recordings, duplicates dropped,
 * sequence gaps, time going backwards...) as one line of text without
 * newline, naming the first offending record (input and byte offset) and
 * what it does to the results; NULL when there are fewer warnings.  buf:
 * the text's room (256 bytes hold any).
 */
const char *bt_reader_warning(const struct bt_reader *r, size_t i, char *buf,
			      size_t len);
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

/* --------------------------------------------------------------- tracker */

/* lib/track.c */

/*
 * The tracker rebuilds requests from Q, M, F, G, I, D, C, R, X and A
 * events (blk-mq and the legacy queue): bios fold into requests by back
 * and front merges, requeued requests go round again, split bios become
 * two pieces, remapped bios (A: partition or dm/md to the disk) are
 * analysed on the bottom device and remember where they came from.  A
 * zone append (version 8) is a write whose sector is known only at its C:
 * the C goes to the oldest append dispatched to the zone holding the
 * written sector, and the request takes that sector (BT_RQ_ZONE_APPEND).
 * Requests are keyed by device and sector in a fixed-capacity table, so
 * memory is bounded by the requests in flight: a request without any
 * event for expire_ns of trace time is dropped and counted (and handed to
 * the done callback with BT_RQ_EXPIRED), as is the oldest one when the
 * table is full, and one without event for 1 s when a newer request at
 * its start sector takes a G, I or D (its own D or C was lost).  Events
 * only match requests of their direction (read or write).  No allocation
 * per event.
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
#define BT_RQ_EXPIRED		(1u << 6)	/* never completed: expired, evicted or replaced */
#define BT_RQ_OPEN		(1u << 7)	/* never completed: open at bt_tracker_flush */
#define BT_RQ_ERROR		(1u << 8)	/* a C carried an error */
#define BT_RQ_FRONT		(1u << 9)	/* front-merged before I: starts with a later bio */
#define BT_RQ_ZONE_APPEND	(1u << 10)	/* zone append: sector is where its C says it went */

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
	uint64_t i_last;	/* ns: last I (differs from i after a requeue) */
	uint64_t d_first;	/* ns: first D (differs from d after a requeue) */
	uint64_t c;		/* ns: last C (the final piece of a partial completion) */
	uint64_t last;		/* ns: latest event folded in */
	uint64_t q_off_sum;	/* ns: sum over the bios of (bio's Q - q) */
	uint64_t qlist[BT_RQ_QLIST]; /* ns: Q times of the first bios, in folding order */
	uint64_t mlist[BT_RQ_QLIST]; /* ns: M or F times of the first merged bios
				      * with a Q, in order; BT_TIME_NONE: the
				      * bio front-merged before the I, which
				      * the I is timed on */
	uint64_t m_off_sum;	/* ns: sum over the nmerged bios of (M or F - q) */
	uint64_t merged_q;	/* ns: after an M or F, the Q of the bio it
				   merged (BT_TIME_NONE: not seen) */
	uint64_t cgroup;	/* cgroup id of the first event that had one, else 0 */
	uint32_t bytes;		/* bytes: of the D (else the sum of the bios) */
	uint32_t nbios;		/* bios folded in: Q'd bios, merges, split pieces */
	uint32_t nqlist;	/* entries used in qlist */
	uint32_t nmerged;	/* bios merged with a Q seen, less the front one the I is timed on */
	uint32_t nmlist;	/* entries used in mlist */
	uint32_t nrequeue;	/* R events */
	uint32_t pid;		/* owner: pid of the first Q (else of the first event) */
	uint32_t dev;		/* kernel dev_t analysed (bottom of a remap) */
	uint32_t origin_dev;	/* kernel dev_t the first bio was remapped from */
	uint32_t category;	/* BT_TC_* of the D (else of the first event) */
	uint32_t flags;		/* BT_RQ_* */
	uint16_t error;		/* negative errno as u16 from the C, 0 if none */
	uint8_t state;		/* enum bt_rq_state */
	uint8_t qsplit;		/* bit k: qlist[k] is a piece of a split bio */
	char op;		/* 'R' read, 'W' write, 'D' discard, 'F' flush (0 bytes), 'N' other */
	char rwbs[BT_RWBS_LEN];	/* as blkparse prints it for the D (else the first event) */
	char comm[17];		/* owner's name (PROCESS notes), set when handed to done */
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
	uint64_t replaced;	/* given up: no event for 1 s, and a newer
				   request at its sector took a G, I or D */
};

/* NULL opts: defaults.  0 or -ENOMEM / -EINVAL. */
int bt_tracker_new(struct bt_tracker **out, const struct bt_tracker_opts *opts);
/*
 * Feed one event (notes and other actions are ignored).  Returns 1 when a
 * request was touched (*rq, if rq is not NULL, points to it; after a final
 * C it is the finished request, already given to the done callback), 0
 * when not (*rq NULL), -EINVAL on bad arguments, -ENOMEM when there was
 * no memory to index the event's request (the event is then not tracked).
 */
int bt_tracker_feed(struct bt_tracker *tr, const struct bt_event *ev,
		    const struct bt_request **rq);
/* End of trace: hand every open request to done with BT_RQ_OPEN. */
void bt_tracker_flush(struct bt_tracker *tr);
void bt_tracker_get_stats(const struct bt_tracker *tr,
			  struct bt_tracker_stats *st);
void bt_tracker_free(struct bt_tracker *tr);

/* ----------------------------------------------------------------- stats */

/*
 * A distribution of u64 samples (ns, bytes): exact count, sum, min, max;
 * quantiles exact while n <= BT_DIST_EXACT, then the middle of the
 * log-linear bucket of the nearest-rank sample (relative error under
 * 1/128).  Memory per distribution is bounded.
 */
#define BT_DIST_EXACT		1024
struct bt_dist {
	uint64_t n;		/* samples */
	uint64_t sum;		/* sum of samples (saturates) */
	uint64_t min, max;
	uint64_t *exact;	/* first BT_DIST_EXACT samples, or NULL */
	uint64_t *buckets;	/* log-linear counts once exact overflowed */
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
/* First and last non-empty bucket: 1, or 0 when h is empty. */
int bt_log2_span(const struct bt_log2 *h, unsigned *lo, unsigned *hi);

/* ----------------------------------------------------------------- group */
/* lib/group.c */

/*
 * The rows of a report: groups keyed by device, pid and a number of the
 * caller's (op, queue; 0 when unused), each with a value area of the
 * caller's size, zeroed when the group is added.  Memory grows with the
 * number of groups.  A value pointer stays valid until the next group is
 * added or the groups are sorted.
 */
struct bt_group;
struct bt_group_key {
	uint32_t dev;		/* kernel dev_t */
	uint32_t pid;
	uint32_t sub;
};
/* 0, -ENOMEM or -EINVAL (value_size absurd). */
int bt_group_new(struct bt_group **out, size_t value_size);
/* The group's value, added if new; NULL on ENOMEM. */
void *bt_group_get(struct bt_group *g, uint32_t dev, uint32_t pid,
		   uint32_t sub);
/* The group's value, or NULL when there is no such group. */
void *bt_group_find(const struct bt_group *g, uint32_t dev, uint32_t pid,
		    uint32_t sub);
size_t bt_group_count(const struct bt_group *g);
/*
 * Group i (0 <= i < count, in the order they came until sorted): its value,
 * and its key in *key unless NULL.  NULL past the end.
 */
void *bt_group_at(const struct bt_group *g, size_t i,
		  struct bt_group_key *key);
/*
 * Order the groups: by dev, pid, sub (unsigned) when cmp is NULL, else by
 * cmp, which is given two const struct bt_group_key pointers.
 */
void bt_group_sort(struct bt_group *g, int (*cmp)(const void *, const void *));
void bt_group_free(struct bt_group *g);

/* Each analysis writes its tool's table through the table writer below. */
struct bt_table;
struct bt_table_cols;

/* ------------------------------------------------------------------- lat */

/* lib/lat.c */

/*
 * Latency distributions (btkit(7) "Latency") per device, op and, when
 * asked, owner: q2c, q2d, d2c, q2g, g2i and i2d, one sample per completed
 * request; or, with btt set, weighted as btt 1.2.0 does so that the means
 * are its "All Devices" averages: q2c, q2d and d2c once per bio contained
 * in the request, q2g, g2i and i2d as the G, I and D events come, plus
 * q2q, q2m and m2d per bio, requests without data left out and a
 * non-positive difference counted as 1 ns.  Give the tracker the
 * analysis's done callback with bt_lat_attach() before bt_tracker_new(),
 * then every event and the request bt_tracker_feed() said it touched to
 * bt_lat_feed().  Memory: a row is about 20 KB, at most max_groups rows
 * of (device, owner); later owners share the row of pid BT_LAT_OTHERS.
 */
struct bt_lat;

/* Row ops: BT_LAT_ALL holds every request of the device again. */
enum bt_lat_op {
	BT_LAT_R, BT_LAT_W, BT_LAT_D, BT_LAT_F, BT_LAT_N, BT_LAT_ALL,
	BT_LAT_NOPS,
};
enum bt_lat_metric {
	BT_LAT_Q2C, BT_LAT_Q2D, BT_LAT_D2C, BT_LAT_Q2G, BT_LAT_G2I,
	BT_LAT_I2D, BT_LAT_Q2Q, BT_LAT_Q2M, BT_LAT_M2D, BT_LAT_NMETRICS,
};
#define BT_LAT_OTHERS		UINT32_MAX	/* pid of the row for the rest */

/* One completed request, for bt_lat_opts.request. */
struct bt_lat_req {
	const struct bt_request *rq;
	uint64_t start;		/* ns: its first Q (else G, I, D, C) */
	uint64_t q2d, d2c, q2c;	/* ns; BT_TIME_NONE when a stage is missing */
};

struct bt_lat_opts {
	int btt;		/* weight as btt (above) */
	int per_pid;		/* rows per owner pid; else one per device (pid 0) */
	int has_pid;		/* only requests owned by pid (implies per_pid) */
	uint32_t pid;
	uint32_t max_groups;	/* rows of (device, owner); 0: 1024 */
	/*
	 * optional: every completed request that passes the pid filter,
	 * as it completes; then no distribution is kept.
	 */
	void (*request)(const struct bt_lat_req *r, void *arg);
	void *arg;
};

struct bt_lat_stats {
	uint64_t q, m, g, i, d, c;	/* events seen: Q, M or F, G, I, D, C */
	uint64_t completed;	/* requests completed (after the pid filter) */
	uint64_t rows;		/* rows with samples */
	int nomem;		/* a sample or a row was lost to ENOMEM */
};

struct bt_lat_row {
	uint32_t dev;		/* kernel dev_t */
	uint32_t pid;		/* owner; 0 without per_pid; BT_LAT_OTHERS */
	int op;			/* enum bt_lat_op */
	int metric;		/* enum bt_lat_metric */
	struct bt_dist *d;	/* ns samples; bt_dist_quantile() may sort it */
};

/* NULL opts: defaults.  0 or -ENOMEM / -EINVAL. */
int bt_lat_new(struct bt_lat **out, const struct bt_lat_opts *opts);
/* Sets to->done and to->arg: the analysis's hook for finished requests. */
void bt_lat_attach(struct bt_lat *l, struct bt_tracker_opts *to);
/* One event and the request the tracker touched (NULL if none): 0 or -ENOMEM. */
int bt_lat_feed(struct bt_lat *l, const struct bt_event *ev,
		const struct bt_request *rq);
/* to - from in ns; a non-positive difference is 0, or 1 ns with btt. */
uint64_t bt_lat_delta(const struct bt_lat *l, uint64_t from, uint64_t to);
void bt_lat_get_stats(const struct bt_lat *l, struct bt_lat_stats *st);
/*
 * Every row with samples, by device, pid, op and metric, to row().
 * Returns the number of rows or -EINVAL.
 */
int bt_lat_rows(struct bt_lat *l,
		void (*row)(const struct bt_lat_row *r, void *arg), void *arg);
/* "R", "W", "D", "F", "N", "all"; "q2c" ... "m2d"; NULL when out of range. */
const char *bt_lat_op_name(int op);
const char *bt_lat_metric_name(int metric);
void bt_lat_free(struct bt_lat *l);
/*
 * btlat's tables, for every program that prints them (btlat, btplot's
 * report).  The distributions: columns per device, or per device and
 * owner with per_pid; bt_lat_table() writes every row of bt_lat_rows()
 * into t, names from r's PROCESS notes (r may be NULL), and returns the
 * count or -EINVAL.  One row per request (bt_lat_opts.request): time_s
 * from origin (ns), a missing stage as bt_table_none().
 */
struct bt_table_cols bt_lat_cols(const struct bt_lat *l);
int bt_lat_table(struct bt_lat *l, struct bt_table *t,
		 const struct bt_reader *r);
struct bt_table_cols bt_lat_req_cols(void);
void bt_lat_req_row(struct bt_table *t, const struct bt_lat_req *e,
		    uint64_t origin);

/* ----------------------------------------------------------------- sched */

/* lib/sched.c */

/*
 * Scheduler messages (blktrace MESSAGE notes) decoded.  CFQ (2.6.26-4.20)
 * logs "cfq<pid>[S|A][N] [blkcg-path] text", BFQ (4.12+) "bfq<pid>[S|A]
 * [blkcg-path] text" or "bfqSHARED-[S|A] text"; device-level lines are
 * "cfq text" / "bfq text"; "elv switch: NAME" comes from the elevator core.
 * Queue lines are classified by their text into the slice markers of
 * btkit(7) "Slice wait": backlog (add_to_rr, add to busy), leave
 * (del_from_rr, del from busy), service start (set_active,
 * set_in_service_queue) and service end (slice expired, expire ().
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

/* lib/slice.c */

/*
 * Slice waits (btkit(7) "Slice wait"), from both sources at once:
 * scheduler messages (a queue waits from backlog, or from the end of its
 * service while still backlogged, to its service start; a dispatch of one
 * of its own requests before that, as BFQ injection does, also ends the
 * wait) and events only (an owner's request inserted, or got when it has
 * no I, while the owner had nothing pending nor in flight and its last
 * completion is older than tau; the wait ends at the owner's next D).
 * Feed every event with the request the tracker says it touched.
 * Episodes are handed to a callback as they end.
 */
struct bt_slice;

enum bt_slice_source { BT_SLICE_EVENTS = 0, BT_SLICE_MESSAGES = 1 };
/* What an episode's pid means. */
enum bt_slice_queue {
	BT_SLICE_PROC = 0,	/* a process: owner, or its sync queue */
	BT_SLICE_ASYNC,		/* an async queue named after pid (messages) */
	BT_SLICE_SHARED,	/* a merged queue, pid -1 (messages) */
};

struct bt_slice_ep {
	uint64_t start;		/* ns: backlog or insert */
	uint64_t end;		/* ns: service start or dispatch; last event if censored */
	uint64_t wait;		/* ns: end - start */
	uint64_t dev_idle;	/* ns the device had nothing in flight meanwhile */
	uint64_t foreign_bytes;	/* bytes others dispatched meanwhile */
	uint32_t dev;		/* kernel dev_t */
	int32_t pid;		/* owner or queue pid; -1 for a shared queue */
	int32_t top_other;	/* pid that dispatched most bytes meanwhile, -1 none */
	uint8_t source;		/* enum bt_slice_source */
	uint8_t queue;		/* enum bt_slice_queue */
	uint8_t sched;		/* enum bt_sched_name of a messages episode */
	uint8_t censored;	/* still waiting at the end of the trace */
};

struct bt_slice_opts {
	uint64_t tau_ns;	/* events only: quiet time before a new episode; 0: 8 ms */
	int top_other;		/* compute top_other (costs a scan per episode) */
	void (*episode)(const struct bt_slice_ep *ep, void *arg);
	void *arg;
};

/* 0 or -ENOMEM / -EINVAL (no episode callback). */
int bt_slice_new(struct bt_slice **out, const struct bt_slice_opts *opts);
/*
 * One event, in time order, and the request bt_tracker_feed() said it
 * touched (NULL if none).  Returns 0 or -ENOMEM.
 */
int bt_slice_feed(struct bt_slice *s, const struct bt_event *ev,
		  const struct bt_request *rq);
/*
 * Before bt_tracker_new(): make the tracker hand its finished requests to
 * s, which forgets the ones the tracker gave up on (bt_slice_forget).  A
 * done callback already in *to is still called, after s's, so several
 * analyses can share one tracker.
 */
void bt_slice_attach(struct bt_slice *s, struct bt_tracker_opts *to);
/*
 * The tracker gave up on rq (BT_RQ_EXPIRED; other requests are ignored):
 * stop counting it as pending or in flight, so its owner can wait again.
 * bt_slice_attach() calls it; a caller with its own done callback may.
 */
void bt_slice_forget(struct bt_slice *s, const struct bt_request *rq);
/* End of trace: episodes still waiting go to the callback as censored. */
void bt_slice_finish(struct bt_slice *s);
/* 1 when the device's trace carried scheduler queue messages. */
int bt_slice_has_messages(const struct bt_slice *s, uint32_t dev);
void bt_slice_free(struct bt_slice *s);

/*
 * btslice's tables, for every program that prints them (btslice, btplot's
 * report).  Which source a report shows (btslice --from): auto takes a
 * device's scheduler messages when its trace has them (so far), else its
 * events.  bt_slice_wanted: 1 when an episode of source on dev is shown.
 */
enum bt_slice_from {
	BT_SLICE_FROM_AUTO, BT_SLICE_FROM_MESSAGES, BT_SLICE_FROM_EVENTS,
};
int bt_slice_wanted(const struct bt_slice *s, int from, uint32_t dev,
		    unsigned source);
/*
 * One row per episode (not censored): start_s from origin (ns), names
 * from r's PROCESS notes (r may be NULL), top_other_pid "-" unless the
 * analysis computed it (bt_slice_opts.top_other).
 */
struct bt_table_cols bt_slice_ep_cols(void);
void bt_slice_ep_row(struct bt_table *t, const struct bt_slice_ep *ep,
		     uint64_t origin, const struct bt_reader *r);
/*
 * The summary: every episode added as it comes (censored ones counted
 * apart), then one row per process or queue, device and source that
 * from shows, processes before async and shared queues, by pid, into a
 * table made with bt_slice_sum_cols().  new and add: 0 or -ENOMEM;
 * table: the number of rows.
 */
struct bt_slice_sum;
int bt_slice_sum_new(struct bt_slice_sum **out);
int bt_slice_sum_add(struct bt_slice_sum *s, const struct bt_slice_ep *ep);
struct bt_table_cols bt_slice_sum_cols(void);
int bt_slice_sum_table(struct bt_slice_sum *s, struct bt_table *t,
		       const struct bt_slice *sl, int from,
		       const struct bt_reader *r);
void bt_slice_sum_free(struct bt_slice_sum *s);

/* lib/sync.c */

/*
 * fdatasync episodes (btkit(7) "fdatasync episode") per device and pid:
 * open at the Q of a sync write or flush-class bio, data phase until every
 * write bio of the episode completed (bios are followed by sector range,
 * so merges and splits do not matter), then the first flush-class bio
 * queued by the pid itself or a journal thread (or anyone with any_flush)
 * closes the episode at its completion.  A journal thread (jbd2/...,
 * kjournald, journal_pids) has episodes of its own too: from its first
 * sync write (journal blocks) or flush to the completion of its commit,
 * flagged BT_SYNC_JOURNAL.
 */
struct bt_sync;

/* struct bt_sync_ep flags: how the episode closed. */
#define BT_SYNC_SELF		(1u << 0)	/* the pid's own empty flush */
#define BT_SYNC_JOURNAL		(1u << 1)	/* a journal thread's flush (any_flush: anyone's), or its own commit */
#define BT_SYNC_FUA		(1u << 2)	/* the pid's data-bearing PREFLUSH/FUA write */
#define BT_SYNC_NOFLUSH		(1u << 3)	/* no flush within the window: closed at data end */
#define BT_SYNC_INVALID		(1u << 4)	/* the pid queued other I/O meanwhile */
#define BT_SYNC_CENSORED	(1u << 5)	/* still open at the end of the trace */

struct bt_sync_ep {
	uint64_t open;		/* ns: Q of the first sync write or flush bio */
	uint64_t data_done;	/* ns: completion of the last data write (open if none) */
	uint64_t close;		/* ns: completion of the closing flush */
	uint64_t lat;		/* ns: close - open */
	uint64_t data;		/* ns: data_done - open */
	uint64_t flush;		/* ns: close - data_done */
	uint64_t data_bytes;	/* bytes of the episode's data writes */
	uint32_t dev;		/* kernel dev_t */
	uint32_t pid;
	uint32_t closer;	/* pid that queued the closing flush (0 noflush) */
	uint32_t flags;		/* BT_SYNC_* */
};

struct bt_sync_opts {
	uint64_t noflush_ns;	/* wait for a flush this long; 0: 5 s */
	int any_flush;		/* any pid's flush closes others' episodes */
	const uint32_t *journal_pids;	/* extra journal threads */
	size_t njournal;
	void (*episode)(const struct bt_sync_ep *ep, void *arg);
	void *arg;
	/*
	 * The reader the events come from, or NULL.  From the second
	 * event fed on, while no episode is open, it is told to set aside
	 * what cannot open one (bt_reader_set_action()): all but the Q of
	 * a sync write or flush, a flush's D and pass-through commands.
	 * The results are those of feeding every event the reader would
	 * deliver; a caller that filters by more than action (device,
	 * time window) or needs the others for something else leaves it
	 * NULL.
	 */
	struct bt_reader *follow;
};

/* 0 or -ENOMEM / -EINVAL (no episode callback). */
int bt_sync_new(struct bt_sync **out, const struct bt_sync_opts *opts);
/*
 * comm: the name of ev->pid (NULL if unknown).  0 or -ENOMEM.  Only a
 * flush or FUA write being queued asks who queued it (a journal thread?):
 * pass NULL for every event where bt_sync_wants_comm() is 0, and the name
 * need not be looked up.
 */
int bt_sync_feed(struct bt_sync *s, const struct bt_event *ev,
		 const char *comm);
static inline int bt_sync_wants_comm(const struct bt_event *ev)
{
	return ev->action == BT_A_QUEUE &&
	       (ev->category & (BT_TC_FLUSH | BT_TC_FUA)) != 0;
}
/* End of trace: open episodes go to the callback with BT_SYNC_CENSORED. */
void bt_sync_finish(struct bt_sync *s);
void bt_sync_free(struct bt_sync *s);
/* 1 when comm names a journal thread ("jbd2/sda1-8", "kjournald"). */
int bt_sync_is_journal(const char *comm);

/*
 * btsync's tables, for every program that prints them (btsync, btplot's
 * report).  One row per episode: its columns, then a row into t for an episode that closed (not censored),
 * start_s from origin (ns), names from r's PROCESS notes (r may be NULL).
 */
struct bt_table_cols bt_sync_ep_cols(void);
void bt_sync_ep_row(struct bt_table *t, const struct bt_sync_ep *ep,
		    uint64_t origin, const struct bt_reader *r);
/*
 * The per-process summary: episodes added as they come (censored ones are
 * left out; invalid ones only counted), then one row per pid, by pid, into
 * a table made with bt_sync_sum_cols().  new and add: 0 or -ENOMEM;
 * table: the number of rows.
 */
struct bt_sync_sum;
int bt_sync_sum_new(struct bt_sync_sum **out);
int bt_sync_sum_add(struct bt_sync_sum *s, const struct bt_sync_ep *ep);
struct bt_table_cols bt_sync_sum_cols(void);
int bt_sync_sum_table(struct bt_sync_sum *s, struct bt_table *t,
		      const struct bt_reader *r);
void bt_sync_sum_free(struct bt_sync_sum *s);

/* lib/merge.c */

/*
 * Merge ratios (btkit(7) "Merge ratio") per device and op (R, W, all),
 * optionally per owner process, computed as btt's "Device Merge
 * Information": #Q = Q events with bytes plus requeues, raised to #D;
 * #D = D events with bytes; blocks from completions, their average over
 * #D; nothing of a device counted before its first Q or A (btt drops
 * those events).  Unlike btt, cgroup-flagged events count.  Feed every
 * event with the request the tracker says it touched, and route the
 * tracker's finished requests to it with bt_merge_attach() (bios per
 * request).  Memory follows the number of (device, owner) pairs.
 */
struct bt_merge;

struct bt_merge_opts {
	int per_pid;		/* rows per owner (pid of the request's first Q) */
	int has_pid;		/* only the requests pid owns */
	uint32_t pid;
};

struct bt_merge_row {
	uint32_t dev;		/* kernel dev_t */
	uint32_t pid;		/* owner; 0 without per_pid */
	const char *op;		/* "R", "W" or "all" */
	uint64_t q;		/* bios queued with bytes plus requeues, at least d */
	uint64_t back, front;	/* back and front merges */
	uint64_t d;		/* requests dispatched with bytes */
	double ratio;		/* q / d; 0 without d */
	double bios_per_rq;	/* bios per completed request with bytes; 0 if none */
	uint64_t blk_min, blk_avg, blk_max, blk_total;	/* 512-byte blocks; avg over d */
};

/* 0 or -ENOMEM / -EINVAL. */
int bt_merge_new(struct bt_merge **out, const struct bt_merge_opts *opts);
/*
 * Before bt_tracker_new(): make the tracker hand its finished requests to
 * m.  A done callback already in *to is still called, after m's, so
 * several analyses can share one tracker.
 */
void bt_merge_attach(struct bt_merge *m, struct bt_tracker_opts *to);
/* One event (notes, PC ignored) and its request (NULL if none).  0 or -ENOMEM. */
int bt_merge_feed(struct bt_merge *m, const struct bt_event *ev,
		  const struct bt_request *rq);
/*
 * The rows, sorted by device and owner, R, W, all within: an op row without
 * any count is skipped, "all" never.  row is called for each; the row is
 * valid during the call.  0, or -ENOMEM when an earlier allocation failed.
 */
int bt_merge_rows(struct bt_merge *m,
		  void (*row)(const struct bt_merge_row *r, void *arg), void *arg);
void bt_merge_free(struct bt_merge *m);
/*
 * btmerge's table, for every program that prints it (btmerge, btplot's
 * report): columns per device, or per device and owner with per_pid;
 * bt_merge_table() writes the rows of bt_merge_rows() into t, names from
 * r's PROCESS notes (r may be NULL), and returns what it returns.
 */
struct bt_table_cols bt_merge_cols(const struct bt_merge *m);
int bt_merge_table(struct bt_merge *m, struct bt_table *t,
		   const struct bt_reader *r);

/* lib/size.c */

/*
 * Request-size histograms (btkit(7) "Size histogram"): power-of-two
 * buckets of bytes per device and op, optionally per owner process, of
 * the D events (what the device saw: every D, completed or not,
 * pass-through commands included) or of the Q events (what was
 * submitted).  Ops: 'R', 'W', 'D' discard, 'F' flush without data, 'N'
 * any other event without data.  The owner needs the tracker's request;
 * without per_pid and has_pid, rq may always be NULL.
 */
struct bt_size;

struct bt_size_opts {
	int at_q;		/* count Q events instead of D */
	int per_pid;		/* histograms per owner (pid of the request's first Q) */
	int has_pid;		/* only the events of requests pid owns */
	uint32_t pid;
};

struct bt_size_hist {
	uint32_t dev;		/* kernel dev_t */
	uint32_t pid;		/* owner; 0 without per_pid */
	char op;		/* 'R', 'W', 'D', 'F' or 'N' */
	const struct bt_log2 *h;	/* bytes; never empty */
};

/* 0 or -ENOMEM / -EINVAL. */
int bt_size_new(struct bt_size **out, const struct bt_size_opts *opts);
/*
 * The one action (1u << BT_A_*) whose events s counts: the dispatch, or
 * the queue with at_q.  Without a tracker (no per_pid), a reader may set
 * the others aside (bt_reader_set_actions()).
 */
uint32_t bt_size_actions(const struct bt_size *s);
/*
 * One event and the request bt_tracker_feed() said it touched (NULL if
 * none: the owner is then the event's pid).  0 or -ENOMEM.
 */
int bt_size_feed(struct bt_size *s, const struct bt_event *ev,
		 const struct bt_request *rq);
/*
 * The non-empty histograms, sorted by device and owner, in op order R, W,
 * D, F, N within; hist is called for each, valid during the call.
 */
void bt_size_rows(struct bt_size *s,
		  void (*hist)(const struct bt_size_hist *h, void *arg),
		  void *arg);
void bt_size_free(struct bt_size *s);
/*
 * btsize's table, for every program that prints it (btsize, btplot's
 * report): columns per device, or per device and owner with per_pid;
 * bt_size_table() writes one row per bucket of each histogram of
 * bt_size_rows(), from its first non-empty bucket to its last, names
 * from r's PROCESS notes (r may be NULL).
 */
struct bt_table_cols bt_size_cols(const struct bt_size *s);
void bt_size_table(struct bt_size *s, struct bt_table *t,
		   const struct bt_reader *r);

/* ----------------------------------------------------------------- table */

/*
 * Report output: a header line, then rows of cells, tab-separated text
 * or RFC 4180 CSV (quoting through libcsv, LF line ends), or JSON Lines:
 * no header, one object per row keyed by the column names, numbers as
 * numbers, text as strings, an empty or "-" text cell and a non-finite
 * double as null; or an HTML <table> (one <tr> per line, <th> header
 * cells, text escaped, numbers in <td class="num">), closed by
 * bt_table_free().  Write errors are sticky and returned by
 * bt_table_free().
 */
enum bt_table_fmt { BT_TABLE_TSV, BT_TABLE_CSV, BT_TABLE_JSON, BT_TABLE_HTML };
struct bt_table;
/* The columns of an analysis's table, as its *_cols() function gives them. */
struct bt_table_cols {
	const char *const *name;
	size_t n;
};
int bt_table_new(struct bt_table **out, FILE *fp, enum bt_table_fmt fmt,
		 int header, const char *const *cols, size_t ncols);
void bt_table_str(struct bt_table *t, const char *s);
void bt_table_u64(struct bt_table *t, uint64_t v);
void bt_table_i64(struct bt_table *t, int64_t v);
void bt_table_us(struct bt_table *t, uint64_t ns);	/* microseconds, 3 decimals */
void bt_table_s(struct bt_table *t, uint64_t ns);	/* seconds, 9 decimals */
void bt_table_double(struct bt_table *t, double v, int decimals);
void bt_table_dev(struct bt_table *t, uint32_t dev);	/* "MAJ,MIN" */
/* A number that is missing: "-", an empty cell in CSV, null in JSON. */
void bt_table_none(struct bt_table *t);
/*
 * The name of pid from r's PROCESS notes, "-" when r is NULL or the pid
 * has none.
 */
void bt_table_comm(struct bt_table *t, const struct bt_reader *r,
		   uint32_t pid);
/*
 * mean, p50, p95, p99 and max of d (ns) in microseconds, 3 decimals;
 * five empty cells when d has no sample (a mean of nothing), not 0.000.
 */
void bt_table_dist(struct bt_table *t, struct bt_dist *d);
/* n empty cells: figures that do not exist. */
void bt_table_empty(struct bt_table *t, unsigned n);
/* Ends a row: -EINVAL when the cell count differs from the columns. */
int bt_table_end_row(struct bt_table *t);
/* Rows ended so far (not the header, not the rows refused). */
uint64_t bt_table_rows(const struct bt_table *t);
/* Flushes; 0 or -EIO when any write failed. */
int bt_table_free(struct bt_table *t);

/* lib/diff.c */

/*
 * The comparison engine behind btdiff: two or more recordings, each read
 * in one pass through every analysis at once (tracker, slice waits,
 * fdatasync episodes, merges, request latency), their figures pooled per
 * group of processes and laid side by side, one row per group and
 * metric.  Feed recording after recording: bt_diff_begin(), every event
 * (notes included) to bt_diff_feed(), bt_diff_end(); then the rows.  A
 * group's percentiles come from the pooled samples of its processes.
 * Slice waits use one source for every recording: scheduler messages
 * only when every recording had them on every device it dispatched to,
 * else events (btkit(7) "Slice wait").  Memory follows the number of
 * groups times recordings, and the requests in flight of the recording
 * being read.
 */
struct bt_diff;

/* How processes are grouped into rows. */
enum bt_diff_by {
	BT_DIFF_BY_COMM = 0,	/* by name up to its first '/': kworker/3:1 is kworker */
	BT_DIFF_BY_PID,		/* one row per pid, across recordings */
	BT_DIFF_BY_CGROUP,	/* by the cgroup id of the process's I/O */
};

/* Metrics, in their default order (rows within a group). */
enum bt_diff_metric {
	BT_DIFF_IOS = 0,	/* completed read and write requests with data */
	BT_DIFF_BYTES,		/* bytes of those requests */
	BT_DIFF_IOPS,		/* ios per second of the recording's span */
	BT_DIFF_MB_S,		/* 10^6 bytes per second of the span */
	BT_DIFF_FSYNC_EPISODES,	/* valid fdatasync episodes */
	BT_DIFF_FSYNC_P50,	/* ns, pooled episode latencies */
	BT_DIFF_FSYNC_P99,	/* ns */
	BT_DIFF_FSYNC_FLUSH_MEAN, /* ns: mean flush phase */
	BT_DIFF_SLICE_P50,	/* ns, pooled slice waits of the common source */
	BT_DIFF_SLICE_P99,	/* ns */
	BT_DIFF_SLICE_SOURCE,	/* text: "events" or "messages" (group all only) */
	BT_DIFF_Q2C_P50,	/* ns, per completed request */
	BT_DIFF_Q2C_P99,	/* ns */
	BT_DIFF_D2C_P50,	/* ns */
	BT_DIFF_D2C_P99,	/* ns */
	BT_DIFF_MERGE_RATIO,	/* bios queued per request dispatched */
	BT_DIFF_RQ_BYTES_MEAN,	/* bytes / ios */
	BT_DIFF_NMETRICS
};

struct bt_diff_opts {
	int by;			/* enum bt_diff_by */
	int has_pid;		/* only what pid owns (requests, episodes) */
	uint32_t pid;
	const unsigned *metrics;	/* enum bt_diff_metric, in row order; NULL: all */
	size_t nmetrics;
};

/* What a cell holds. */
enum bt_diff_kind {
	BT_DIFF_EMPTY = 0,	/* no such figure: group absent, or nothing to measure */
	BT_DIFF_COUNT,		/* u */
	BT_DIFF_NS,		/* u: ns, printed as microseconds */
	BT_DIFF_REAL,		/* v with decimals */
	BT_DIFF_TEXT,		/* text */
};
struct bt_diff_cell {
	uint8_t kind;		/* enum bt_diff_kind */
	uint8_t decimals;	/* BT_DIFF_REAL */
	uint64_t u;
	double v;		/* the figure as a number (any kind but TEXT, EMPTY) */
	const char *text;
};
struct bt_diff_row {
	const char *group;	/* "all" first, then the groups in order */
	const char *metric;	/* bt_diff_metric_name() */
	size_t n;		/* recordings */
	const struct bt_diff_cell *cell;	/* n, in the order of bt_diff_begin */
	const double *ratio;	/* n: cell[i] / cell[0]; NaN when undefined */
};

/* 0 or -ENOMEM / -EINVAL (bad by or metric). */
int bt_diff_new(struct bt_diff **out, const struct bt_diff_opts *opts);
/* "ios", "fsync_p99_us"...; NULL past BT_DIFF_NMETRICS. */
const char *bt_diff_metric_name(unsigned m);
/* The metric named name, or -EINVAL. */
int bt_diff_metric_find(const char *name);
/*
 * Start the next recording, named label (copied).  r (optional, must
 * outlive the pass) names the processes from its PROCESS notes.  0,
 * -ENOMEM, -EINVAL when a recording is being read already.
 */
int bt_diff_begin(struct bt_diff *d, const char *label,
		  const struct bt_reader *r);
/* One event of the recording, in time order.  0 or -ENOMEM. */
int bt_diff_feed(struct bt_diff *d, const struct bt_event *ev);
/*
 * End of the recording: open requests and episodes are closed, its
 * figures kept.  0, -ENOMEM, or -ENOMSG with BT_DIFF_BY_CGROUP when no
 * event of the recording carried a cgroup id (its figures are kept, all
 * under the group "-").
 */
int bt_diff_end(struct bt_diff *d);
size_t bt_diff_recordings(const struct bt_diff *d);
/* The slice-wait source of every recording: enum bt_slice_source. */
int bt_diff_slice_source(const struct bt_diff *d);
/* Every row, in order; row is valid during the call.  0 or -ENOMEM. */
int bt_diff_rows(struct bt_diff *d,
		 void (*row)(const struct bt_diff_row *r, void *arg), void *arg);
/*
 * The whole table on fp: columns group, metric, one per label, ratio
 * (last / first) and, with three recordings or more, ratio_LABEL of each
 * after the first against the first.  0, -ENOMEM, -EIO (write error).
 */
int bt_diff_print(struct bt_diff *d, FILE *fp, enum bt_table_fmt fmt,
		  int header);
/*
 * The rows bt_diff_print() writes, into t, a table its caller made with
 * those columns (the report's HTML table).  0 or -ENOMEM.
 */
int bt_diff_table(struct bt_diff *d, struct bt_table *t);
/*
 * One line on fp, "verdict: " and per group with fdatasync episodes the
 * recording with the lowest fdatasync p99 and by how much, and the one
 * with the highest mb_s.  0 or -EIO.
 */
int bt_diff_verdict(struct bt_diff *d, FILE *fp);
void bt_diff_free(struct bt_diff *d);

/* ---------------------------------------------------------------- text */

/* lib/format.c */

/*
 * The line `blkparse -q` (Debian blktrace 1.2.0) prints for an event.
 * With BT_FMT_V120 cgroup-flagged records print nothing, as in 1.2.0;
 * without it they follow blkparse 1.3.0 (I/O as usual, messages with the
 * record's pid and an "ino,gen " cgroup prefix).
 */
#define BT_FMT_V120		1u

/* Bytes bt_format_line() may write for e (header, tail, payload dump). */
size_t bt_format_bound(const struct bt_event *e);
/*
 * Write e's line, newline included, into buf (bt_format_bound(e) bytes).
 * rel: ns since the trace's first event, unsigned like blkparse's (a
 * wrapped value prints as blkparse would).  comm: name from the pid's
 * PROCESS note (up to 16 bytes are used), NULL prints "(null)".  Returns
 * the length, 0 when blkparse prints no line for e.
 */
size_t bt_format_line(char *buf, const struct bt_event *e, uint64_t rel,
		      const char *comm, unsigned flags);
/*
 * 1 when blkparse prints a line for e, 0 when it skips e silently (notes,
 * driver data), -1 when it skips e with a "Bad fs/pc action" complaint.
 */
int bt_format_kind(const struct bt_event *e, unsigned flags);
/*
 * The payload part of e as text, no newline: "<- (259,3) 2048" (remap),
 * "/ 4096" (split), "3" (requests unplugged), the message text, or a PC
 * command dump.  buf: bt_format_bound(e) bytes.  Returns the length.
 */
size_t bt_format_detail(char *buf, const struct bt_event *e);

/* lib/summary.c */

/*
 * The statistics `blkparse -s` prints after the events: per process, per
 * device and CPU, per device.  Feed it the events blkparse shows, in its
 * order (lib/blkorder.c), each with the index of its blkparse device.
 */
struct bt_summary;

int bt_summary_new(struct bt_summary **out);
/*
 * Name device dev ("maj,min", or a per-CPU set's NAME) and give its
 * sequence gaps and the records missing in them (bt_blkorder_dev()).
 * Every device up to the last one fed must be named.  0 or -ENOMEM.
 */
int bt_summary_dev(struct bt_summary *s, size_t dev, const char *name,
		   uint64_t gaps, uint64_t missing);
/*
 * Account e (passing the caller's filters) as blkparse does when it shows
 * it: once with late 0 before its line is printed, and, when a line was
 * printed (bt_format_kind(e, flags) > 0), once with late 1 after it (the
 * part blkparse counts after printing PC queues and completions).  rel:
 * ns since the trace's origin.  comm: the pid's name now, or NULL.
 * Returns 1 when e's pid is counted for the first time: it is listed as
 * comm, or "unknown" when comm is NULL, and blkparse names the pid so for
 * good (the caller should too).  0 otherwise, -ENOMEM.
 */
int bt_summary_event(struct bt_summary *s, size_t dev,
		     const struct bt_event *e, uint64_t rel, unsigned flags,
		     int late, const char *comm);
/*
 * Write the statistics to f as blkparse -s does.  Numbers are grouped as
 * LC_NUMERIC says (blkparse sets it from the environment; the caller may).
 * 0 or -ENOMEM; a write error is left in ferror(f).
 */
int bt_summary_print(const struct bt_summary *s, FILE *f);
void bt_summary_free(struct bt_summary *s);

/* lib/blkorder.c */

/*
 * The records of a reader's inputs in the order blkparse prints them: one
 * input as a stream (`blkparse -i - < trace`: batches of 512 sorted by
 * time, device, sequence; a gap in a device and CPU's sequence stalls it),
 * several as per-CPU files (`blkparse -i NAME`: each read 512 ahead,
 * merged by next time), with blkparse's time origin and process names.
 */
struct bt_blkorder;

struct bt_blkorder_dev {
	uint32_t dev;		/* kernel dev_t; 0 for a per-CPU set */
	char name[32];		/* "maj,min", or the set's NAME */
	uint64_t gaps;		/* sequence gaps blkparse noted (stream) */
	uint64_t missing;	/* records in those gaps */
};

/*
 * Order r's inputs (r is not owned and must outlive o, and is read only
 * through o: each input once, so stdin and FIFOs work; a stalled stream
 * keeps its rest in a temporary file).  flags: BT_FMT_V120 for 1.2.0's
 * handling of cgroup-flagged notes and time origin.  0, or -errno
 * (*bad_input is NULL: no input is opened here any more).
 */
int bt_blkorder_new(struct bt_blkorder **out, struct bt_reader *r,
		    unsigned flags, const char **bad_input);
/*
 * 1: *ev is the next record (its payload valid until the next call), *rel
 * its time in ns since blkparse's origin, *dev its device's index (see
 * bt_blkorder_dev); ev->offset is UINT64_MAX after a stall (the record
 * was read back from the temporary file).  0 at the end.  < 0: -errno; bt_blkorder_failed()
 * tells the reader that failed (NULL: no memory, or the temporary file
 * that keeps the rest of a stalled stream could not be written or read
 * back).  After a reader's error the records read before it still
 * follow, and other inputs go on.
 */
int bt_blkorder_next(struct bt_blkorder *o, struct bt_event *ev,
		     uint64_t *rel, size_t *dev);
const struct bt_reader *bt_blkorder_failed(const struct bt_blkorder *o);
/* A pid's name: first PROCESS note read so far (or bt_blkorder_name). */
const char *bt_blkorder_comm(const struct bt_blkorder *o, uint32_t pid);
/* Name pid unless it has a name already (blkparse keeps the first). */
int bt_blkorder_name(struct bt_blkorder *o, uint32_t pid, const char *name);
/* blkparse's devices so far, in the order it lists them. */
size_t bt_blkorder_devs(const struct bt_blkorder *o);
void bt_blkorder_dev(const struct bt_blkorder *o, size_t i,
		     struct bt_blkorder_dev *out);
/* The reader's statistics (duplicates, time going backwards...). */
void bt_blkorder_get_stats(const struct bt_blkorder *o,
			   struct bt_reader_stats *st);
void bt_blkorder_free(struct bt_blkorder *o);

/* ------------------------------------------------------------------- svg */

/* lib/svg.c */

/*
 * The one SVG writer: elements and attributes are written as they come
 * (nothing is kept), text is escaped for XML (<>&"' as entities, control
 * bytes and broken UTF-8 as '?', tab and newline as a space), numbers are
 * formatted without the locale.  Write errors are sticky: bt_svg_finish()
 * returns -EIO.  Typical use: open, attr..., then title or text, close.
 */
struct bt_svg;

/* Start a picture of width x height user units; style: CSS or NULL.  0, -EINVAL, -ENOMEM. */
int bt_svg_new(struct bt_svg **out, FILE *f, double width, double height,
	       const char *style);
void bt_svg_open(struct bt_svg *s, const char *name);	/* "<name" */
void bt_svg_attr(struct bt_svg *s, const char *name, const char *value);
void bt_svg_attr_num(struct bt_svg *s, const char *name, double v,
		     int decimals);
void bt_svg_text(struct bt_svg *s, const char *text);	/* character data */
void bt_svg_textf(struct bt_svg *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));	/* up to 511 bytes */
void bt_svg_title(struct bt_svg *s, const char *text);	/* hover text */
/* Markup written as it is (the caller's own, e.g. a <defs> block). */
void bt_svg_raw(struct bt_svg *s, const char *markup);
/* "/>" when the element got no content, else "</name>". */
void bt_svg_close(struct bt_svg *s, const char *name);
/* Close the picture, flush, free s.  0 or -EIO. */
int bt_svg_finish(struct bt_svg *s);
/*
 * v with at most decimals (0..9) fraction digits, trailing zeros dropped,
 * '.' whatever the locale, no exponent; NaN and |v| > 1e15 give "0".
 * Returns the length snprintf would (buf may be short).
 */
size_t bt_svg_num(char *buf, size_t len, double v, int decimals);
/* text escaped into buf (NUL terminated, cut to len); returns the full length. */
size_t bt_svg_escape(char *buf, size_t len, const char *text);
/* viridis colour at t in [0, 1] as "#rrggbb" into buf (8 bytes). */
char *bt_svg_viridis(double t, char *buf);
/* Okabe-Ito category colour i (eight, repeating) as "#rrggbb". */
const char *bt_svg_category(unsigned i);

/* ------------------------------------------------------------------ plot */

/* lib/plot.c, lib/plot_render.c */

/*
 * Pictures of one or more traces (btplot).  A struct bt_plot accumulates
 * one trace into grids of fixed size: time columns that merge pairwise
 * when the trace outgrows them, so memory and the picture's size do not
 * grow with the trace.  Feed every event (time span), every finished
 * request (tracker's done callback), fdatasync episodes and slice waits;
 * then render one or several plots of the same kind into one SVG, on
 * shared axes and one colour scale.
 */
enum bt_plot_kind {
	BT_PLOT_HEATMAP,	/* latency heat map: time x log2 latency */
	BT_PLOT_OFFSET,		/* sector over time per process group */
	BT_PLOT_IOPS,		/* IOPS and MB/s per op */
	BT_PLOT_DEPTH,		/* requests in the scheduler and the driver */
	BT_PLOT_WAITS,		/* fsync episodes and slice waits per process */
};
enum bt_plot_metric {
	BT_PLOT_Q2C, BT_PLOT_D2C, BT_PLOT_Q2D, BT_PLOT_FSYNC, BT_PLOT_SLICE,
};

struct bt_plot_opts {
	uint8_t kind;		/* enum bt_plot_kind */
	uint8_t metric;		/* heatmap: enum bt_plot_metric */
	uint8_t per_op;		/* heatmap: one panel per op */
	unsigned top;		/* offset groups, waits lanes; 0: 7, 12 */
	uint64_t bin_ns;	/* iops, depth: starting column width; 0: automatic */
};

struct bt_plot;

/* label: the trace's name in the picture.  0, -ENOMEM or -EINVAL. */
int bt_plot_new(struct bt_plot **out, const struct bt_plot_opts *o,
		const char *label);
/* Every I/O event (not notes), in time order: the trace's time span. */
void bt_plot_event(struct bt_plot *p, const struct bt_event *ev);
/* A finished request (expired and open ones are left out).  0 or -ENOMEM. */
int bt_plot_request(struct bt_plot *p, const struct bt_request *rq);
/* An fdatasync episode, comm: the name of ep->pid or NULL.  0 or -ENOMEM. */
int bt_plot_sync(struct bt_plot *p, const struct bt_sync_ep *ep,
		 const char *comm);
/* A slice wait, comm: the name of ep->pid or NULL.  0 or -ENOMEM. */
int bt_plot_slice(struct bt_plot *p, const struct bt_slice_ep *ep,
		  const char *comm);
/* Samples binned so far (requests, episodes) of what the kind draws. */
uint64_t bt_plot_samples(const struct bt_plot *p);
/*
 * Draw n plots of one kind into one picture on f: small multiples
 * (heatmap, offset, waits) or overlays (iops, depth) on shared axes.
 * May coarsen the plots' grids.  0, -EINVAL (no plot, kinds differ),
 * -ENOMEM or -EIO.
 */
int bt_plot_render(struct bt_plot *const *p, size_t n, FILE *f);
void bt_plot_free(struct bt_plot *p);

/* ---------------------------------------------------------------- report */

/* lib/report.c */

/*
 * btplot's report: one self-contained HTML page (no script, and nothing
 * fetched from anywhere) with a title naming the traces, their devices
 * and time spans, every picture kind inline as SVG (all traces on shared
 * axes), per trace the tables of btsync, btslice, btlat, btmerge and
 * btsize as those tools print them with their default options, and with
 * two traces or more btdiff's table of them and its verdict.  Read
 * each trace through begin, every event (notes too) to feed, and end,
 * while r (which names the pids) is alive; then write the page.
 */
#define BT_REPORT_MAX_TRACES	8

struct bt_report;

/*
 * po: the plots' options (bin, top, heatmap metric and per_op); NULL:
 * defaults.  ntraces: how many traces will be read, 0 when not known; with
 * 1 the report makes no comparison (btdiff's table needs two).
 */
int bt_report_new(struct bt_report **out, const struct bt_plot_opts *po,
		  size_t ntraces);
/* Start the next trace.  0, -EINVAL (one already begun), -E2BIG, -ENOMEM. */
int bt_report_begin(struct bt_report *rp, const char *label,
		    const struct bt_reader *r);
/* One event of the trace begun, in time order: 0 or -ENOMEM (sticky). */
int bt_report_feed(struct bt_report *rp, const struct bt_event *ev);
/* End of the trace: its tables are written.  0, -ENOMEM or -EINVAL. */
int bt_report_end(struct bt_report *rp);
/* The page on f.  0, -EINVAL (no trace, or one not ended), -ENOMEM, -EIO. */
int bt_report_write(struct bt_report *rp, FILE *f);
void bt_report_free(struct bt_report *rp);

/* --------------------------------------------------------------- capture */

/* lib/capture.c */

/*
 * Recording engine behind btcapture and btreplay --capture.  Traces block
 * devices through the relay interface (BLKTRACESETUP, per-CPU debugfs
 * files) or the tracefs "blk" tracer (bin option, context-info off, mono
 * clock), reads in a thread, and writes either one time-ordered stream with
 * a TIMESTAMP note per device and a PROCESS note before each pid's first
 * event on a device, or per-CPU files DIR/NAME.blktrace.CPU.  Every tracefs
 * and sysfs setting changed is restored by bt_capture_stop(), and by
 * bt_capture_start() itself when it fails.  Needs root.  Error texts go to
 * msg (mlen bytes) for the caller to print.
 */
struct bt_capture;

enum bt_capture_via {
	BT_VIA_AUTO,		/* relay, tracefs when relay files give EPERM */
	BT_VIA_RELAY,
	BT_VIA_TRACEFS,
};

struct bt_capture_opts {
	const char *const *devs;	/* block device paths */
	size_t ndevs;
	enum bt_capture_via via;
	int out_fd;		/* one merged stream here (not closed), or -1 */
	const char *dir;	/* else per-CPU files in dir, NULL when out_fd */
	const char *name;	/* basename in dir instead of the device's (1 device) */
	uint16_t act_mask;	/* BT_TC_* categories to record; 0: all */
	unsigned buf_kb;	/* KB of buffer per CPU; 0: 8192 (relay 2048) */
	int gzip;		/* 0: plain, 1..9: gzip level */
	int cgroup;		/* 1: keep cgroup ids (blkparse 1.2 rejects them) */
};

struct bt_capture_stats {
	uint64_t events;	/* records written, notes excluded */
	uint64_t notes;		/* notes written: PROCESS, TIMESTAMP, MESSAGE */
	uint64_t bytes;		/* bytes written before compression */
	uint64_t lost;		/* events the kernel dropped or overwrote */
	uint64_t bad;		/* malformed records skipped */
	uint64_t duration_ns;	/* ns: start to stop */
	enum bt_capture_via via; /* the path used */
	/*
	 * tracefs: the ring buffer was unexpanded (boot state, buffer_size_kb
	 * "7 (expanded: 1408)") and is left at its expanded size, as any
	 * first use of tracing leaves it: the kernel cannot unexpand it.
	 */
	uint8_t expanded_ring;
};

/*
 * Set up, start the reading thread, return.  -EPERM not root, -ENOTBLK not
 * a block device, -EBUSY another capture, tracer or trace of the device in
 * use (nothing changed then), -errno otherwise (everything restored).
 */
int bt_capture_start(struct bt_capture **out, const struct bt_capture_opts *o,
		     char *msg, size_t mlen);
/* 0 while the reading thread is fine, else its -errno (then stop). */
int bt_capture_error(const struct bt_capture *c, char *msg, size_t mlen);
/*
 * Stop tracing, write what is left, restore every setting, free c.  Stats
 * are filled even when it fails.  Not async-signal-safe: call it from the
 * main flow after a signal was noted.
 */
int bt_capture_stop(struct bt_capture *c, struct bt_capture_stats *st,
		    char *msg, size_t mlen);
/*
 * Offline: the same treatment for a raw tracefs capture read from in_fd
 * (what `cat trace_pipe` gives with the bin option on and context-info
 * off, "CPU:N [LOST M EVENTS]" lines included): events numbered per device
 * and CPU, PROCESS notes (names looked up now, "<...>" when unknown),
 * cgroup ids dropped from messages, time order within 10 ms, lost events
 * counted from those lines.  devs: keep only these kernel dev_t (NULL, 0:
 * every device).  No TIMESTAMP note: the wall clock is unknown.
 */
int bt_capture_convert(int in_fd, int out_fd, const uint32_t *devs,
		       size_t ndevs, struct bt_capture_stats *st);

/* ---------------------------------------------------------------- replay */

/* lib/replay.c */

/*
 * Replay engine behind btreplay.  Load a trace with bt_replay_feed() (every
 * event, notes and completions included: completions give each process's
 * recorded depth), give each traced device a target descriptor, run.  One
 * thread per traced pid, each with its own io_uring, so the kernel sees one
 * I/O context per original process; I/Os are issued at their recorded time
 * from the first I/O (scaled by speed) with at most the process's recorded
 * number in flight.  Flushes are fdatasync() and discards BLKDISCARD (or a
 * punched hole on a regular file), both issued by the process's thread
 * itself so the trace of the replay attributes them to it.  Memory is
 * 48 bytes per replayed I/O.
 */
struct bt_replay;

struct bt_replay_conf {
	uint8_t from_d;		/* 1: replay requests as dispatched (D), 0: bios (Q) */
	uint8_t has_pid;	/* only this pid's I/O */
	uint32_t pid;
};

/* Per traced device: what the trace does there. */
struct bt_replay_dev {
	uint32_t dev;		/* kernel dev_t as traced */
	uint64_t base;		/* 512-byte sectors: partition start seen in remaps */
	uint64_t extent;	/* bytes: highest end of an I/O, from base */
	uint64_t reads, writes, discards, flushes;	/* I/O counts */
	uint64_t fua;		/* writes with FUA */
};

/* Results per process (and their total): times in ns. */
struct bt_replay_proc {
	uint32_t pid;		/* 0 in the total */
	uint32_t depth;		/* recorded I/Os in flight, at most */
	uint64_t ios;		/* I/Os issued */
	uint64_t bytes;		/* bytes of the issued I/Os */
	uint64_t errors;	/* I/Os failed or short */
	int first_error;	/* errno of the first failure, 0 if none */
	uint64_t lat_p50, lat_p99;	/* ns: issue to completion */
	uint64_t lag_p50, lag_p99, lag_max; /* ns: issued after its due time */
	/*
	 * The engine's own lag: an I/O due while its process had its recorded
	 * depth in flight (or was in a flush) is held, and counts from the
	 * completion that let it go; 0 with no_stall.
	 */
	uint64_t held;		/* I/Os held */
	uint64_t elag_p50, elag_p99, elag_max;	/* ns */
	uint64_t span;		/* ns: first issue to last completion */
	uint32_t tid;		/* the thread of the last run (its pid in a trace of it) */
};

struct bt_replay_opts {
	double speed;		/* > 0: 2 replays twice as fast; ignored with no_stall */
	int no_stall;		/* ignore recorded times, only the depth limits */
};

int bt_replay_new(struct bt_replay **out, const struct bt_replay_conf *c);
/* Feed every event in time order; 0 or -ENOMEM. */
int bt_replay_feed(struct bt_replay *rp, const struct bt_event *e);
/* End of loading: the number of I/Os to replay, or -errno. */
int64_t bt_replay_loaded(struct bt_replay *rp);
size_t bt_replay_ndevs(const struct bt_replay *rp);
void bt_replay_dev_get(const struct bt_replay *rp, size_t i,
		       struct bt_replay_dev *out);
/* Where device i's I/O goes: an O_DIRECT descriptor (kept open by the caller). */
int bt_replay_target(struct bt_replay *rp, size_t i, int fd, int is_blkdev);
/* Run to the end or bt_replay_stop(); 0, or -errno when threads or rings failed. */
int bt_replay_run(struct bt_replay *rp, const struct bt_replay_opts *o);
/* Async-signal-safe: stop issuing, wait for what is in flight. */
void bt_replay_stop(struct bt_replay *rp);
size_t bt_replay_nprocs(const struct bt_replay *rp);
/* pid of process i (sorted by pid), after loading. */
uint32_t bt_replay_proc_pid(const struct bt_replay *rp, size_t i);
/*
 * Name process i's thread comm (15 bytes kept), so that a trace of the
 * replay names it as the original; default "btreplay".
 */
int bt_replay_proc_name(struct bt_replay *rp, size_t i, const char *comm);
/* Results of process i (sorted by pid); i == nprocs gives the total. */
void bt_replay_proc_get(struct bt_replay *rp, size_t i,
			struct bt_replay_proc *out);
void bt_replay_free(struct bt_replay *rp);

/* lib/replay_reset.c */

/*
 * The target of device i as it was before the replay's writes: the byte
 * ranges its writes and discards touch, saved through the descriptor of
 * bt_replay_target() into an unlinked file in dir (NULL: /tmp), so that
 * runs after the first start from the same contents.  0 or -errno.
 */
struct bt_replay_snap;
int bt_replay_snap_save(const struct bt_replay *rp, size_t i, const char *dir,
			struct bt_replay_snap **out);
/* Bytes saved. */
uint64_t bt_replay_snap_bytes(const struct bt_replay_snap *s);
/* Write the saved bytes back (and fdatasync); 0 or -errno. */
int bt_replay_snap_restore(struct bt_replay_snap *s);
void bt_replay_snap_free(struct bt_replay_snap *s);

/* lib/blkdev.c */

/* A block device as sysfs describes it. */
struct bt_blkdev {
	char name[64];		/* kernel name: "sda2", "loop3" */
	char disk[64];		/* the whole disk: "sda" (= name for a disk) */
	uint32_t dev;		/* kernel dev_t */
	uint64_t size;		/* bytes */
	uint64_t part_start;	/* 512-byte sectors; 0 for a whole disk */
	unsigned lbs;		/* logical block size, bytes */
	int is_partition;
};
/* 0, -ENOTBLK when path is not a block device, or -errno. */
int bt_blkdev_info(const char *path, struct bt_blkdev *b);

/* Reasons a device is not safe to replay onto. */
#define BT_BLK_MOUNTED		1u	/* it or a partition mounted or swap */
#define BT_BLK_HOLDERS		2u	/* it or a partition has holders (dm, md) */
#define BT_BLK_BUSY		4u	/* open O_EXCL fails with EBUSY */
#define BT_BLK_SIGNATURE	8u	/* filesystem or partition-table signature */
#define BT_BLK_ROOT		16u	/* holds the root filesystem */
struct bt_blkdev_safety {
	unsigned reasons;	/* BT_BLK_* */
	char mounted[160];	/* "sdb1 mounted on /mnt" */
	char holder[64];	/* "dm-0" */
	const char *signature;	/* "ext2/3/4 filesystem" */
};
int bt_blkdev_check(const char *path, const struct bt_blkdev *b,
		    struct bt_blkdev_safety *s);

/* I/O scheduler of a disk (queue/scheduler): current and available list. */
int bt_blkdev_sched_get(const char *disk, char *cur, size_t len,
			char *avail, size_t alen);
/* 1 when the disk offers name, 0 when not, -errno. */
int bt_blkdev_sched_avail(const char *disk, const char *name);
/* blk-mq name for a legacy one (noop, deadline, cfq, as), else NULL. */
const char *bt_blkdev_sched_legacy(const char *name);
/*
 * Save the current scheduler and its tunables, switch to name (NULL: keep)
 * and re-read to confirm (-EINVAL when another stays in place).  *out is set
 * whenever something was saved, even on failure: restore and free it.
 */
struct bt_blkdev_sched;
int bt_blkdev_sched_switch(const char *disk, const char *name,
			   struct bt_blkdev_sched **out);
/* Write queue/iosched/KEY (or queue/KEY, saved first); got = value re-read. */
int bt_blkdev_sched_tune(struct bt_blkdev_sched *s, const char *key,
			 const char *val, char *got, size_t glen);
/* Put back the old scheduler and every saved tunable. */
int bt_blkdev_sched_restore(struct bt_blkdev_sched *s);
const char *bt_blkdev_sched_old(const struct bt_blkdev_sched *s);
void bt_blkdev_sched_free(struct bt_blkdev_sched *s);

/*
 * A scratch loop device on a sparse file of at least bytes in dir (NULL:
 * /tmp), the file already unlinked and the device set to detach itself on
 * its last close.  Returns an open O_RDWR descriptor of the device (its
 * path in path), or -errno.
 */
int bt_blkdev_scratch(const char *dir, uint64_t bytes, char *path, size_t len);

/* lib/replay_target.c */

/*
 * Where a replay goes and the rules around it (btreplay's policy): each
 * traced device's target path, the safety verdict on an explicit target,
 * opening it, and the scheduler asked for.  Lines meant for the user
 * (substitutions, values read back, the scheduler in use) go to note().
 */
struct bt_replay_map {
	uint32_t dev;		/* kernel dev_t as traced */
	const char *path;	/* block device or regular file */
};
/*
 * The path traced device dev is replayed onto: its map entry, else target
 * (one for the whole trace), else NULL (a scratch device).  -ENOENT: maps
 * given, none for dev; -E2BIG: one target but ndevs traced devices.
 */
int bt_replay_target_path(const struct bt_replay_map *map, size_t nmap,
			  const char *target, uint32_t dev, size_t ndevs,
			  const char **path);

#define BT_TGT_WRITE		1u	/* the trace's writes and discards allowed */
#define BT_TGT_FORCE		2u	/* in use or with a signature: anyway */
/* Refusals beside the BT_BLK_* reasons of bt_blkdev_check(). */
#define BT_TGT_TOO_SMALL	32u	/* the trace reaches past the end */
#define BT_TGT_WRITES		64u	/* writes or discards without BT_TGT_WRITE */

struct bt_replay_verdict {
	int is_blk;		/* a block device (else a regular file) */
	struct bt_blkdev b;	/* is_blk: the device */
	uint64_t size;		/* bytes */
	unsigned refused;	/* the rule that said no (BT_BLK_*, BT_TGT_*); 0: go */
	char why[256];		/* refused or failed: what to tell the user */
};
/*
 * The safety rules on an explicit target for traced device d: never the
 * root filesystem's device or one smaller than the trace reaches; writes
 * only with BT_TGT_WRITE; a device mounted, held, busy or with a signature
 * only with BT_TGT_FORCE.  0 with v->refused set or clear, or -errno
 * (v->why says what failed).
 */
int bt_replay_check_target(const char *path, const struct bt_replay_dev *d,
			   unsigned flags, struct bt_replay_verdict *v);
/* Open for O_DIRECT (a file without it: buffered, noted); fd or -errno. */
int bt_replay_open_target(const char *path, int is_blk, int writes,
			  void (*note)(void *arg, const char *line), void *arg);
/*
 * The scheduler of a replay on disk: want (NULL: keep), a legacy name the
 * kernel lacks mapped to its blk-mq one (cfq and as: bfq with CFQ's
 * slice_idle=8 and low_latency=0), then each "KEY=VALUE" of tunes, all
 * after the switch, which resets them.  *out as bt_blkdev_sched_switch()
 * sets it (restore and free it, also on failure).  0 or -errno (msg).
 */
int bt_replay_sched_apply(const char *disk, const char *want,
			  const char *const *tunes, size_t ntunes,
			  void (*note)(void *arg, const char *line), void *arg,
			  struct bt_blkdev_sched **out, char *msg, size_t mlen);

/* lib/replay_compare.c */

/* Schedulers one comparison takes at most. */
#define BT_REPLAY_MAX_SCHEDS	16
/*
 * The table of replays under several schedulers: d holds the captures of
 * the runs as its recordings, in the order they ran, run r of label l as
 * recording r * nlabels + l (interleaved: A B A B ...), up to repeat runs
 * of each (fewer when stopped early).  With repeat 1, bt_diff_print().
 * With more: columns group, metric, then per label the median of its runs
 * (of an even count the lower middle one) and LABEL_range ("min..max",
 * then " k/N" when only k of N runs had the figure), then ratio (median
 * of the last label / of the first) and, with three labels or more,
 * ratio_LABEL of each after the first.  0, -EINVAL, -ENOMEM, -EIO.
 */
int bt_replay_compare_print(struct bt_diff *d, const char *const *labels,
			    size_t nlabels, size_t repeat, FILE *fp,
			    enum bt_table_fmt fmt, int header);
/* bt_diff_verdict() of the same, on the medians when repeat > 1. */
int bt_replay_compare_verdict(struct bt_diff *d, const char *const *labels,
			      size_t nlabels, size_t repeat, FILE *fp);
/*
 * An I/O io_uring could not issue without blocking (no free tag under a
 * scheduler's depth limit) goes to a kernel worker named iou-wrk-TID
 * after the submitting thread, and the worker queues the bio.  In the
 * capture of a replay that is the replay thread's I/O, as it was the
 * original process's: when r names ev's process iou-wrk-TID and knows
 * TID, ev->pid becomes TID and 1 is returned; else 0, ev untouched.
 */
int bt_replay_worker_owner(const struct bt_reader *r, struct bt_event *ev);
/*
 * The names of the processes in a capture of rp's last run, for
 * bt_diff_begin(): one PROCESS note per pid of pids (those cap has notes
 * for), encoded into *buf (*len bytes, free() it) for a reader of its
 * own.  A replay thread is named after the process it replays, as orig
 * names the traced pid: the tracer's pid-to-name cache, which cap's notes
 * come from, can hold the name of an older process that had the pid, or
 * the parent's from before the thread named itself.  0 or -ENOMEM.
 */
int bt_replay_names(struct bt_replay *rp, const struct bt_reader *orig,
		    const struct bt_reader *cap, const uint32_t *pids,
		    size_t npids, unsigned char **buf, size_t *len);
/*
 * The capture of rp's last run, in the file open at fd (name for
 * messages), as recording label of d: read from its start twice, first
 * for its processes' names (bt_replay_names()), then for its events,
 * with io_uring workers' I/O counted as their threads'
 * (bt_replay_worker_owner(); *punted: the bios so counted).  0, -ENOMEM,
 * -errno of the seek, or the reader's error when the capture cannot be
 * read: then *failed is that reader, after the recording was ended, for
 * the caller to report (bt_reader_error(), bt_reader_warning()) and
 * free; else *failed is NULL.
 */
int bt_replay_capture_diff(struct bt_replay *rp, const struct bt_reader *orig,
			   int fd, const char *name, struct bt_diff *d,
			   const char *label, uint64_t *punted,
			   struct bt_reader **failed);

#endif /* BTKIT_H */
