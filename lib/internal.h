/* SPDX-License-Identifier: MIT */
/*
 * internal.h - helpers shared by the library's files and nobody else:
 * unaligned loads in either byte order (records come from any producer,
 * at any offset of a buffer), and what a reader tells only the library.
 */
#ifndef BTKIT_INTERNAL_H
#define BTKIT_INTERNAL_H

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
