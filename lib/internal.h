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
 * any input).  A caller reading a per-CPU set one reader per file uses
 * it to let an idle CPU's empty file pass unless all of them are empty.
 */
int bt_reader_empty(const struct bt_reader *r);

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

/* The value of the key, or 0 when absent. */
static inline uint32_t bt_map_get(const struct bt_map *m, uint64_t k0,
				  uint64_t k1)
{
	const struct bt_map_slot *s = bt_map_find(m, k0, k1);

	return s ? s->val : 0;
}

/*
 * lib/stats.c: n samples of one value, as n calls of bt_dist_add() would
 * add them (btt-style per-bio samples spread one offset over many bios).
 */
int bt_dist_add_n(struct bt_dist *d, uint64_t v, uint64_t n);

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
