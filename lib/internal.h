/* SPDX-License-Identifier: MIT */
/*
 * internal.h - helpers shared by the library's files and nobody else:
 * unaligned loads in either byte order (records come from any producer,
 * at any offset of a buffer), and what a reader tells only the library.
 */
#ifndef BTKIT_INTERNAL_H
#define BTKIT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "btkit.h"

/*
 * The record header, field by field: byte offsets (btkit-format(5)
 * "Records").  Both layouts share the first 28 bytes; version 7 (48
 * bytes) then has a u32 action, version 8 (64 bytes) the pid first and a
 * u64 action.
 */
#define BT_OFF_MAGIC		0	/* u32 */
#define BT_OFF_SEQUENCE		4	/* u32 */
#define BT_OFF_TIME		8	/* u64 */
#define BT_OFF_SECTOR		16	/* u64 */
#define BT_OFF_BYTES		24	/* u32 */
#define BT_V7_ACTION		28	/* u32 */
#define BT_V7_PID		32	/* u32 */
#define BT_V7_DEVICE		36	/* u32 */
#define BT_V7_CPU		40	/* u32 */
#define BT_V7_ERROR		44	/* u16 */
#define BT_V7_PDU_LEN		46	/* u16 */
#define BT_V8_PID		28	/* u32 */
#define BT_V8_ACTION		32	/* u64 */
#define BT_V8_DEVICE		40	/* u32 */
#define BT_V8_CPU		44	/* u32 */
#define BT_V8_ERROR		48	/* u16 */
#define BT_V8_PDU_LEN		50	/* u16 */

static inline uint16_t bt_ld16(const unsigned char *p, int swap)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap16(v) : v;
}

static inline uint32_t bt_ld32(const unsigned char *p, int swap)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t bt_ld64(const unsigned char *p, int swap)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap64(v) : v;
}

/*
 * lib/reader.c: 1 when the reader failed with "empty trace" (no byte in
 * any input), as opposed to a bad first record.
 */
int bt_reader_empty(const struct bt_reader *r);

/*
 * lib/reader.c: read r input by input instead of merged (blkparse's file
 * mode reads ahead in each).  The next record of input i, without the
 * copies of records of the same input read before: 1, 0 at its end
 * (also when it holds no byte), < 0 an error that stays for that input
 * (bt_reader_error() tells it right after).  Not to be mixed with
 * bt_reader_next().
 */
int bt_reader_next_input(struct bt_reader *r, size_t i, struct bt_event *ev);
/*
 * After every input ended: -ENODATA "empty trace" (at offset 0 of the
 * first input, as bt_reader_next() says it) when none held a byte, else 0.
 */
int bt_reader_all_empty(struct bt_reader *r);

/*
 * lib/group.c: free the struct bt_dist at byte offset off of every value
 * of g, then g: the rows of a summary that keeps a distribution per row.
 */
void bt_group_free_dists(struct bt_group *g, size_t off);

/* Number of columns of a static column-name array (an analysis's table). */
#define BT_TABLE_NCOLS(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * lib/diff.c: one comparison cell, and a ratio (empty when NaN), written
 * into a table as btdiff writes them; lib/replay_compare.c writes its
 * medians the same way.
 */
void bt_diff_put_cell(struct bt_table *t, const struct bt_diff_cell *c);
void bt_diff_put_ratio(struct bt_table *t, double v);

/*
 * lib/stats.c: the nearest rank (1..n) of quantile q (0..1) of n >= 1
 * samples; every exact percentile of the library uses it.
 */
uint64_t bt_nearest_rank(double q, uint64_t n);

/*
 * lib/event.c: bt_event_rwbs()'s letters (1 to 8, none 0) packed in a
 * word, the first in the lowest byte: a formatter takes them from a
 * register, not from bytes just stored.  Inline, as btcat asks for every
 * event's: the table by flush, write, sync, ahead, meta, discard, fua and
 * any bytes (index bits 0-7); zone operations patched in apart.
 */
extern const uint64_t bt_rwbs_words[256];
uint64_t bt_rwbs_zoned(const struct bt_event *e, uint64_t w);

static inline uint64_t bt_rwbs_word(const struct bt_event *e)
{
	uint32_t c = e->category;
	uint64_t w = bt_rwbs_words[(c >> 1 & 7) | (c >> 8 & 0x38) |
				   (c >> 9 & 0x40) | (e->bytes != 0) << 7];

	if (c & (BT_TC_ZONE_APPEND | BT_TC_ZONE_MGMT))
		w = bt_rwbs_zoned(e, w);
	return w;
}

/* bt_event_rwbs(), inline for the tracker: the string into buf. */
static inline char *bt_rwbs_put(const struct bt_event *e, char *buf)
{
	uint64_t w = bt_rwbs_word(e);
	/* Every letter is non-zero: the length is where the bytes end. */
	unsigned n = (unsigned)(71 - __builtin_clzll(w)) / 8;

	/* BT_RWBS_LEN > 8: one store of all eight bytes, then the NUL. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	memcpy(buf, &w, 8);
	buf[n] = '\0';
	return buf;
}

/* Big-endian loads: remap, split and unplug payloads are always BE. */
static inline uint32_t bt_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t bt_be64(const unsigned char *p)
{
	return (uint64_t)bt_be32(p) << 32 | bt_be32(p + 4);
}

/*
 * lib/array.c: room for element n of the array *arrp (a T **, cap
 * elements of elem bytes allocated), doubling the capacity from min.  0,
 * or -ENOMEM with the array left as it was.
 */
int bt_array_room(void *arrp, size_t *cap, size_t n, size_t elem, size_t min);

/*
 * lib/map.c: the library's one hash map, from a 128-bit key (k0, k1) to a
 * non-zero u32 (usually an index + 1 into the caller's dense array).
 * Zero-initialised or bt_map_init()ed; grows itself, at most half full.
 */
struct bt_map_slot {
	uint64_t k0, k1;
	uint32_t h;		/* bt_map_hash(k0, k1), low 32 bits */
	uint32_t val;		/* 0: free slot */
};

struct bt_map {
	struct bt_map_slot *slot;
	size_t mask;		/* slots - 1 (a power of two), 0 when none */
	size_t n;		/* keys held */
};

void bt_map_init(struct bt_map *m);
void bt_map_free(struct bt_map *m);
void bt_map_clear(struct bt_map *m);
/* Room for n keys without growing: 0 or -ENOMEM. */
int bt_map_reserve(struct bt_map *m, size_t n);
/* Insert or replace; val must not be 0.  0, -EINVAL or -ENOMEM. */
int bt_map_put(struct bt_map *m, uint64_t k0, uint64_t k1, uint32_t val);
/* bt_map_put() that also gives the value it replaced (0: none) in *old. */
int bt_map_swap(struct bt_map *m, uint64_t k0, uint64_t k1, uint32_t val,
		uint32_t *old);
/* Remove the key: its value, or 0 when it was absent. */
uint32_t bt_map_del(struct bt_map *m, uint64_t k0, uint64_t k1);
/* Remove the key of a slot bt_map_find() gave: one probe, not two. */
void bt_map_del_slot(struct bt_map *m, struct bt_map_slot *s);

static inline size_t bt_map_hash(uint64_t k0, uint64_t k1)
{
	uint64_t h = (k0 ^ (k1 * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;

	return (size_t)(h ^ h >> 32);
}

/*
 * The slot holding the key, or NULL when absent.  Its val may be changed
 * in place to another non-zero value (a caller keeping chains of entries
 * under one key moves the head without probing twice); it stays valid
 * until the next put, delete or reserve.
 */
static inline struct bt_map_slot *bt_map_find(const struct bt_map *m,
					      uint64_t k0, uint64_t k1)
{
	size_t i;

	if (!m->n)
		return NULL;
	for (i = bt_map_hash(k0, k1) & m->mask; m->slot[i].val;
	     i = (i + 1) & m->mask)
		if (m->slot[i].k0 == k0 && m->slot[i].k1 == k1)
			return &m->slot[i];
	return NULL;
}

/*
 * bt_map_swap() where bt_map_reserve() made room for the key: no growth,
 * no failure, and no call (the tracker puts keys in at most of its
 * events).  The value it replaced is the result, 0 when none.
 */
static inline uint32_t bt_map_swap_reserved(struct bt_map *m, uint64_t k0,
					    uint64_t k1, uint32_t val)
{
	uint32_t h = (uint32_t)bt_map_hash(k0, k1), old;
	size_t i = h & m->mask;

	while (m->slot[i].val && (m->slot[i].k0 != k0 || m->slot[i].k1 != k1))
		i = (i + 1) & m->mask;
	old = m->slot[i].val;
	if (!old)
		m->n++;
	m->slot[i].k0 = k0;
	m->slot[i].k1 = k1;
	m->slot[i].h = h;
	m->slot[i].val = val;
	return old;
}

/* The value of the key, or 0 when absent. */
static inline uint32_t bt_map_get(const struct bt_map *m, uint64_t k0,
				  uint64_t k1)
{
	const struct bt_map_slot *s = bt_map_find(m, k0, k1);

	return s ? s->val : 0;
}

/*
 * A small cache in front of a map whose keys keep their value once put
 * (entries only added; clear it when they move): the last key noted at
 * each of BT_MAP_HINTS places answers without hashing or probing the
 * map, which pays when a few keys interleave, as a few processes' events
 * do.  Zeroed: empty.  The comm map, groups and slices use it.
 */
#define BT_MAP_HINTS	64

struct bt_map_hints {
	struct bt_map_hint {
		uint64_t k0, k1;
		uint32_t val;	/* 0: empty */
	} h[BT_MAP_HINTS];
};

/* Multiplicative: pid 0 and its neighbours spread. */
static inline unsigned bt_map_hint_at(uint64_t k0, uint64_t k1)
{
	uint32_t x = (uint32_t)(k0 ^ k0 >> 32) ^ (uint32_t)(k1 ^ k1 >> 32) * 7u;

	return (x * 2654435761u) >> 26;		/* BT_MAP_HINTS = 2^6 */
}

/* The value noted for the key, or 0 (then ask the map). */
static inline uint32_t bt_map_hint_find(const struct bt_map_hints *c,
					uint64_t k0, uint64_t k1)
{
	const struct bt_map_hint *h = &c->h[bt_map_hint_at(k0, k1)];

	return h->val && h->k0 == k0 && h->k1 == k1 ? h->val : 0;
}

static inline void bt_map_hint_note(struct bt_map_hints *c, uint64_t k0,
				    uint64_t k1, uint32_t val)
{
	struct bt_map_hint *h = &c->h[bt_map_hint_at(k0, k1)];

	h->k0 = k0;
	h->k1 = k1;
	h->val = val;
}

/*
 * lib/stats.c: n samples of one value, as n calls of bt_dist_add() would
 * add them (btt-style per-bio samples spread one offset over many bios).
 */
int bt_dist_add_n(struct bt_dist *d, uint64_t v, uint64_t n);
/*
 * lib/stats.c: from's samples into d, as adding each of them would (the
 * exact samples may come in another order).  0 or -ENOMEM.
 */
int bt_dist_merge(struct bt_dist *d, const struct bt_dist *from);

/*
 * lib/comm.c: the pid -> comm map (PROCESS notes).  Names keep up to
 * BT_COMM_MAX bytes.  At most max_pids pids are kept: bt_comm_set() then
 * says -ENOSPC and the pid stays unnamed.  keep_first: a pid's first name
 * wins (blkparse), else its latest.  0, -ENOSPC or -ENOMEM.
 */
#define BT_COMM_MAX	16

struct bt_comm_ent {
	uint32_t pid;
	char comm[BT_COMM_MAX + 1];
};

struct bt_comm {
	struct bt_comm_ent *ent;	/* in the order the pids came */
	size_t used, cap, max_pids;
	struct bt_map idx;		/* pid -> ent index + 1 */
	struct bt_map_hints hints;	/* in front of idx */
};

void bt_comm_init(struct bt_comm *m, size_t max_pids);
int bt_comm_set(struct bt_comm *m, uint32_t pid, const char *name, size_t len,
		int keep_first);
const char *bt_comm_get(const struct bt_comm *m, uint32_t pid);
void bt_comm_free(struct bt_comm *m);

/*
 * An analysis that wants the tracker's finished requests puts its own done
 * callback into the tracker's options and keeps the one that was there, to
 * call after its own: several analyses then share one tracker.
 */
struct bt_done_link {
	void (*fn)(const struct bt_request *rq, void *arg);
	void *arg;
};

static inline void bt_done_chain(struct bt_done_link *next,
				 struct bt_tracker_opts *to,
				 void (*fn)(const struct bt_request *, void *),
				 void *self)
{
	next->fn = to->done;
	next->arg = to->arg;
	to->done = fn;
	to->arg = self;
}

static inline void bt_done_next(const struct bt_done_link *next,
				const struct bt_request *rq)
{
	if (next->fn)
		next->fn(rq, next->arg);
}

#endif /* BTKIT_INTERNAL_H */
