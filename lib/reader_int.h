/* SPDX-License-Identifier: MIT */
/*
 * reader_int.h - what the reader's files share and nobody else: the
 * reader object and its inputs, each a byte source (input.c) that
 * reader.c cuts into records and merges, with the record decoding that
 * reader_rec.c (recordings) uses too and the duplicate check of
 * reader_dup.c.
 */
#ifndef BTKIT_READER_INT_H
#define BTKIT_READER_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <zlib.h>
#include "btkit.h"
#include "internal.h"

/*
 * Per-input buffer: 256 KiB, down to 128 KiB when there are many inputs
 * (per-CPU sets of big machines) so the total stays near 4 MiB.  Either
 * holds the largest record (prefix + v8 header + 64 KiB pdu) with room.
 */
#define BUF_MAX		(256u * 1024)
#define BUF_MIN		(128u * 1024)
#define BUF_TOTAL	(4u * 1024 * 1024)
#define CTX_LEN		16		/* tracefs context-info prefix */
#define MAX_RECORD	(CTX_LEN + BT_HDR_V8 + 65535u)
/* Detection looks at the first record and the next magic in one window. */
_Static_assert(BUF_MIN >= MAX_RECORD + CTX_LEN + 4, "buffer too small");
#define MAX_INPUTS	65535u
#define COMM_MAX_PIDS	65536u		/* named pids kept: memory stays bounded */
#define SEQ_MAX		768u		/* (dev, cpu) pairs whose sequences are kept */
#define SEQ_HOT_BITS	6		/* their cache: 1 << 6 places */
#define SEQ_HOT		(1u << SEQ_HOT_BITS)

struct input {
	char *name;
	int fd;			/* -1 for memory */
	int close_fd;
	/* Source bytes of a memory input (compressed when gz). */
	const unsigned char *mem;
	size_t mem_len;
	/* The window of decoded bytes: data[pos, end) not yet consumed. */
	const unsigned char *data;
	unsigned char *buf;	/* owned buffer behind data, cap bytes */
	size_t cap;
	size_t pos, end;
	uint64_t base;		/* input offset of data[0] */
	unsigned eof:1;		/* source exhausted: end is final */
	unsigned started:1;	/* source probed for gzip */
	unsigned detected:1;	/* format decided at the first record */
	unsigned swap:1;	/* records in the other byte order */
	unsigned wide7:1;	/* 64-byte header behind a v7 magic */
	unsigned gz:1;
	unsigned gz_trunc:1;	/* gzip stream ended early */
	unsigned pending:1;	/* has a record, waits for its recording's turn */
	unsigned ctx;		/* prefix bytes before each record: 0 or 16 */
	/* gzip: compressed bytes in zbuf (fd) or straight from mem. */
	z_stream *z;
	unsigned char *zbuf;
	size_t mem_fed;		/* bytes of mem handed to zlib */
	int zeof;		/* no more compressed bytes */
	int ierr;		/* read or gzip error, after the bytes before it */
	char imsg[96];		/* what went wrong (ierr or a returned error) */
	uint64_t eoff;		/* where: offset of a returned error */
	uint16_t index;
	uint32_t set;		/* per-CPU set: inputs sharing it are one recording */
	uint16_t rec;		/* recording, decided at the start */
	uint64_t shift;		/* ns added to every time (separate recordings) */
	int dead;		/* read input by input: its end (0) or error */
	int have_time;		/* read input by input: newest is set */
	uint64_t newest;	/* read input by input: latest event time */
	unsigned char scratch[8];	/* TIMESTAMP payload in host order */
	struct bt_event ev;	/* the next record, decoded */
	/*
	 * The records' layout as the first one's (magic_raw: its magic as
	 * stored, of version magic_ver): swap * 2 + wide, -1 before it.
	 */
	int8_t layout;
	uint32_t magic_raw, magic_ver;
	/* An event's has_cgroup (0), version and input, as it holds them. */
	unsigned char ev_tail[4];
	uint8_t fast;		/* native layout, no prefix: the short paths' */
	/*
	 * The slot each (device, CPU) of this input's recording used last,
	 * direct-mapped (bt_dup_hot()): the records of a few CPUs interleave,
	 * and most find theirs here without the map.  Empty places point to
	 * the reader's seq_none, which matches no record, so the common check
	 * needs no test for NULL.  Per input, every slot here is of in->rec.
	 */
	struct seq_slot *hot[SEQ_HOT];
};

/*
 * Where a record was read: the input's index and the byte offset, for
 * warnings that name the first offending record.
 */
struct where {
	uint64_t off;
	uint16_t input;
	uint8_t valid;
};

/*
 * A sequenced event's fields but its device, CPU and sequence (the key
 * that found it): enough to tell a copy from another record.  The action
 * (16 bits) and category (32) are act, action | category << 16, and
 * cat_hi, category >> 16: so time to pid lie as in a 48-byte record
 * (bt_dup_remember_v7() copies them from its bytes), as error and pdu_len.
 */
struct rec_id {
	uint64_t time, sector;
	uint32_t bytes, act, pid;
	uint16_t error, pdu_len;
	uint16_t cat_hi;
};

_Static_assert(offsetof(struct rec_id, pid) + 4 ==
	       BT_V7_PID + 4 - BT_OFF_TIME &&
	       offsetof(struct rec_id, act) == BT_V7_ACTION - BT_OFF_TIME &&
	       offsetof(struct rec_id, bytes) == BT_OFF_BYTES - BT_OFF_TIME &&
	       offsetof(struct rec_id, sector) == BT_OFF_SECTOR - BT_OFF_TIME &&
	       offsetof(struct rec_id, pdu_len) ==
	       offsetof(struct rec_id, error) + 2 &&
	       BT_V7_PDU_LEN == BT_V7_ERROR + 2, "rec_id as a record");

/* What the reader knows of the last and first sequenced events of a key. */
struct seq_slot {
	uint64_t key;		/* dev << 32 | cpu, + 1 */
	uint64_t dc;		/* bt_dup_dc() of them */
	/* Not beside last: GCC would pair the two stores through SSE. */
	uint32_t expect;	/* last + 1 once one was delivered, else 0 */
	uint16_t rec;		/* recording the key belongs to */
	uint8_t replay;		/* a copy of the key's records is being read */
	uint32_t last;		/* highest sequence delivered */
	uint32_t first;		/* first sequence delivered */
	uint32_t replay_seq;	/* last sequence of the copy */
	uint64_t max_time;	/* newest record delivered: ns */
	struct rec_id last_id, first_id;	/* those records */
	struct where last_at, first_at;
};

/*
 * Recent notes and sequence-less records by fingerprint, in two
 * generations of WIN_GEN records: a copy of a record is found while its
 * original is among the last WIN_GEN to 2 * WIN_GEN such records.  Small
 * enough to stay in the cache: it is looked at for most notes.
 */
#define WIN_SLOTS	8192u		/* per generation, power of two */
#define WIN_GEN		(WIN_SLOTS / 2)

/* The first occurrence of something a warning reports. */
struct first_seen {
	struct where at;
	struct where orig;	/* duplicates: the record it copies */
	uint64_t delta;		/* backwards: ns before the newest record */
	uint32_t seq, prev;	/* gaps, repeats: the sequence and the one before */
	uint32_t cpu;
};

struct bt_reader {
	struct input **in;
	size_t nin, cap_in;
	struct input **heap;	/* inputs with a pending record, min time first */
	size_t nheap;
	struct input *last;	/* delivered last: advance before the next */
	/*
	 * The input read alone, while bt_reader_next() may take its next
	 * record by the short path (fast_as()): it is last, the only one
	 * in the merge, of a native layout, a time was delivered, no error.
	 */
	struct input *alone;
	struct input *lone;	/* the same while actions are set aside */
	/*
	 * The input delivered last in a merge of several, while
	 * next_merge() may advance it and take the next record the short
	 * way: native layout, a time was delivered, no error.
	 */
	struct input *merged;
	int started;
	int empty;		/* failed for want of any byte in any input */
	int err;
	struct input *err_in;
	uint64_t err_off;
	char msg[160];
	uint64_t max_time;	/* latest non-note time read */
	int have_time;
	/*
	 * bt_reader_set_actions(), bt_reader_set_action(): bit a set,
	 * records of action a are read, checked and counted but not
	 * delivered, unless their category has a bit of cats[a].  0
	 * delivers everything.
	 */
	uint32_t aside;
	/* Of an action in aside: the categories (any bit) still delivered. */
	uint32_t cats[32];
	uint32_t aside_seen;	/* actions of the records set aside */
	uint64_t aside_time;	/* newest time among them */
	struct bt_reader_stats st;
	struct bt_comm comm;	/* pid -> latest name */
	struct seq_slot seq[SEQ_MAX];	/* in the order the pairs came */
	struct bt_map seq_idx;		/* (key, rec) -> seq index + 1 */
	struct seq_slot seq_none;	/* what empty places of in->hot hold */
	size_t seq_used;
	uint64_t *win;		/* 2 * WIN_SLOTS fingerprints (0: free), at first use */
	uint64_t *win_at;	/* beside each: offset << 16 | input */
	size_t win_n;		/* records in the current generation */
	unsigned win_cur;	/* current generation: 0 or 1 */
	struct first_seen dup1, back1, gap1, rep1;
	uint64_t repeats;	/* repeated sequences that were no copies */
	uint32_t nsets;		/* per-CPU set ids handed out */
	uint16_t nrec;		/* separate recordings found at the start */
	uint16_t rec_in[3];	/* the first inputs of the first three */
	uint8_t rec_abs;	/* merged by absolute time (TIMESTAMP notes) */
	uint16_t cur_rec;	/* one after the other: the recording read now */
	uint64_t rec_shift_ns;	/* one after the other: largest shift applied */
};

/*
 * input.c.  bt_input_fill_slow() makes need bytes available at data + pos
 * (fewer only at the end) and returns how many there are, or -errno with
 * eoff and imsg telling where and what, for the reader to report.  nin:
 * the reader's number of inputs, which sizes the buffer.
 */
void bt_input_free(struct input *in);
ssize_t bt_input_fill_slow(struct input *in, size_t need, int soft,
			   size_t nin);

static inline struct where where_of(const struct bt_event *e)
{
	struct where w = { e->offset, e->input, 1 };

	return w;
}

/*
 * A (device, CPU) as one word: the two as a native record holds them side
 * by side (device first), so that one load of the record's bytes is it.
 */
static inline uint64_t bt_dup_dc(uint32_t dev, uint32_t cpu)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (uint64_t)cpu << 32 | dev;
#else
	return (uint64_t)dev << 32 | cpu;
#endif
}

/*
 * bt_dup_dc() of a decoded event, with the device opaque: else GCC loads
 * its device and CPU, just written by two 4-byte stores, as one 8-byte
 * word, which waits for both to retire (perf: a quarter of
 * bt_reader_next_input(), btcat's path on a per-CPU set, and 7.6% of the
 * merge's loop).
 */
static inline uint64_t bt_dup_dc_of(const struct bt_event *e)
{
	uint32_t dev = e->dev;

	__asm__("" : "+r"(dev));
	return bt_dup_dc(dev, e->cpu);
}

/*
 * The slot cache's place for a (device, CPU) of the input, bt_dup_dc():
 * a multiplicative hash, every bit of both in the top ones.  What the
 * cache holds is checked against the slot's dc.
 */
static inline struct seq_slot **bt_dup_hot(struct input *in, uint64_t dc)
{
	return &in->hot[(dc * 0x9e3779b97f4a7c15ull) >> (64 - SEQ_HOT_BITS)];
}

/* Every place of the input's slot cache empty (at the start). */
static inline void bt_dup_hot_init(struct bt_reader *r, struct input *in)
{
	for (unsigned i = 0; i < SEQ_HOT; i++)
		in->hot[i] = &r->seq_none;
}

/*
 * Field by field, each load the size of the store that decoded it: a
 * wider load spanning several fresh stores waits for them to retire.
 * The stores are volatile so that the compiler does not merge the copies
 * into such loads (GCC's vectorizer does, even across a reordering).
 */
static inline void bt_rec_id_of(struct rec_id *id, const struct bt_event *e)
{
	volatile struct rec_id *v = id;

	v->time = e->time;
	v->sector = e->sector;
	v->bytes = e->bytes;
	v->act = e->action | e->category << 16;
	v->cat_hi = (uint16_t)(e->category >> 16);
	v->pid = e->pid;
	v->error = e->error;
	v->pdu_len = e->pdu_len;
}

/* id equals e's fields (as bt_rec_id_of() would make them). */
static inline int bt_rec_id_eq(const struct rec_id *id,
			       const struct bt_event *e)
{
	return id->time == e->time && id->sector == e->sector &&
	       id->bytes == e->bytes &&
	       id->act == (e->action | e->category << 16) &&
	       id->cat_hi == (uint16_t)(e->category >> 16) &&
	       id->pid == e->pid && id->error == e->error &&
	       id->pdu_len == e->pdu_len;
}

/* e, newer than what its slot holds, becomes the slot's last record. */
static inline void bt_dup_remember(struct seq_slot *s, const struct bt_event *e)
{
	s->last = e->sequence;
	s->expect = e->sequence + 1;
	bt_rec_id_of(&s->last_id, e);
	s->last_at.off = e->offset;
	s->last_at.input = e->input;
	s->replay = 0;
	if (e->time > s->max_time)
		s->max_time = e->time;
}

/*
 * bt_dup_remember() of a native 48-byte record at p without cgroup id,
 * from its bytes rather than from the event just decoded: time (with the
 * input's shift), the record's offset and input given.
 */
static inline void bt_dup_remember_v7(struct seq_slot *s,
				      const unsigned char *p, uint32_t seq,
				      uint64_t time, uint64_t off,
				      uint16_t input)
{
	unsigned char *id = (unsigned char *)&s->last_id;

	s->last = seq;
	s->expect = seq + 1;
	memcpy(id, p + BT_OFF_TIME, BT_V7_PID + 4 - BT_OFF_TIME);
	s->last_id.time = time;
	memcpy(&s->last_id.error, p + BT_V7_ERROR, 4);
	s->last_id.cat_hi = 0;
	s->last_at.off = off;
	s->last_at.input = input;
	s->replay = 0;
	if (time > s->max_time)
		s->max_time = time;
}

/*
 * The common sequenced record, inline: the next in sequence of a
 * (device, CPU) whose slot the cache holds.  1 when settled here (a new
 * record, remembered as bt_dup_sequenced() would), 0 when that must decide.
 */
static inline int bt_dup_next(struct input *in, const struct bt_event *e)
{
	uint64_t dc = bt_dup_dc_of(e);
	struct seq_slot *s = *bt_dup_hot(in, dc);

	if (s->dc != dc || e->sequence != s->expect)
		return 0;
	bt_dup_remember(s, e);
	return 1;
}

/*
 * lib/reader_dup.c: 1 when record e of input in copies one already read
 * (to be skipped), 0 when it is new (and remembered); records with a
 * sequence number by their device and CPU, the others (notes, tracefs) by
 * fingerprint, which may fail with -ENOMEM.
 */
int bt_dup_sequenced(struct bt_reader *r, struct input *in,
		     const struct bt_event *e);
int bt_dup_unsequenced(struct bt_reader *r, struct input *in,
		       const struct bt_event *e);
/*
 * bt_dup_unsequenced() of a sequence-less record (not a note) newer than
 * what its slot s delivered, with the window allocated: no copy, so all
 * it does is remember the record.
 */
void bt_dup_unsequenced_newer(struct bt_reader *r, struct input *in,
			      struct seq_slot *s, const struct bt_event *e);
/* A record's fingerprint: every field and the payload. */
uint64_t bt_dup_fingerprint(const struct bt_event *e);

/* ------------------------------------ decoding, shared with reader_rec.c */

static inline int magic_ok(uint32_t m)
{
	return (m & BT_MAGIC_MASK) == BT_MAGIC;
}

/*
 * Decode the header at p (past any prefix).  swap and wide are constants
 * at each call site so the compiler makes one straight path per layout.
 */
static inline __attribute__((always_inline)) void
decode(struct bt_event *e, const unsigned char *p, int swap, int wide)
{
	e->sequence = bt_ld32(p + BT_OFF_SEQUENCE, swap);
	e->time = bt_ld64(p + BT_OFF_TIME, swap);
	e->sector = bt_ld64(p + BT_OFF_SECTOR, swap);
	e->bytes = bt_ld32(p + BT_OFF_BYTES, swap);
	if (wide) {
		uint64_t act = bt_ld64(p + BT_V8_ACTION, swap);

		e->pid = bt_ld32(p + BT_V8_PID, swap);
		e->action = (uint32_t)(act & 0xffff);
		e->category = (uint32_t)(act >> 16);
		e->dev = bt_ld32(p + BT_V8_DEVICE, swap);
		e->cpu = bt_ld32(p + BT_V8_CPU, swap);
		e->error = bt_ld16(p + BT_V8_ERROR, swap);
		e->pdu_len = bt_ld16(p + BT_V8_PDU_LEN, swap);
	} else {
		uint32_t act = bt_ld32(p + BT_V7_ACTION, swap);

		e->action = act & 0xffff;
		e->category = act >> 16;
		e->pid = bt_ld32(p + BT_V7_PID, swap);
		e->dev = bt_ld32(p + BT_V7_DEVICE, swap);
		e->cpu = bt_ld32(p + BT_V7_CPU, swap);
		e->error = bt_ld16(p + BT_V7_ERROR, swap);
		e->pdu_len = bt_ld16(p + BT_V7_PDU_LEN, swap);
	}
}

/*
 * The payload of a decoded record: at pdu (pdu_len bytes), less the
 * cgroup id in front of it when the action carries BT_A_CGROUP.
 */
static inline void bt_rec_payload(struct bt_event *e, const unsigned char *pdu,
				  int swap)
{
	e->pdu = e->pdu_len ? pdu : NULL;
	e->has_cgroup = 0;
	e->cgroup = 0;
	if (e->action & BT_A_CGROUP) {
		e->action &= ~BT_A_CGROUP;
		if (e->pdu_len >= 8) {
			e->cgroup = bt_ld64(e->pdu, swap);
			e->has_cgroup = 1;
			e->pdu_len -= 8;
			e->pdu = e->pdu_len ? e->pdu + 8 : NULL;
		}
	}
}

/* Separate recordings' times: shift ns added to every time of the input. */
static inline void shift_input(struct input *in, uint64_t shift)
{
	in->shift = shift;
	in->ev.time += shift;
}

/* lib/reader_rec.c: which inputs are separate recordings, at the start. */
/*
 * What the head of an input says about its recording: the TIMESTAMP note
 * among its leading notes (wall clock at a trace time) and its first event.
 */
struct rec_head {
	int has_ts, has_ev;
	uint64_t ts_time;
	uint32_t ts_sec, ts_nsec;
	uint64_t ev_fp, ev_time;
	uint32_t ev_dev, ev_cpu;
};

/* What the records already in the input's window say, consuming none. */
void bt_rec_scan_head(const struct input *in, struct rec_head *h);
/*
 * Sets each live input's rec (recording), r->nrec, r->rec_in and, when
 * every recording has a TIMESTAMP note, r->rec_abs with each input's
 * shift.  0 or -ENOMEM.
 */
int bt_rec_group(struct bt_reader *r, const struct rec_head *heads,
		 const int *live);

#endif /* BTKIT_READER_INT_H */
