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

#endif /* BTKIT_INTERNAL_H */
