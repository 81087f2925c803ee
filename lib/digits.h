/* SPDX-License-Identifier: MIT */
/*
 * digits.h - decimal conversion shared by btcat's text (format.c) and the
 * report tables (table.c): eight digits at once by multiply-shift in
 * lanes (digits8), two at a time from a table, stored with fixed 8-byte
 * writes.  Callers leave 8 bytes of room past the last digit they expect:
 * the stores may run past it (later bytes overwrite them).
 */
#ifndef BTKIT_DIGITS_H
#define BTKIT_DIGITS_H

#include <stdint.h>
#include <string.h>

static const char digits2[201] =
	"00010203040506070809" "10111213141516171819"
	"20212223242526272829" "30313233343536373839"
	"40414243444546474849" "50515253545556575859"
	"60616263646566676869" "70717273747576777879"
	"80818283848586878889" "90919293949596979899";

/*
 * The 8 decimal digits of v < 10^8 as numbers 0-9, the most significant
 * in the lowest byte: split into two 4-digit lanes, each into 2-digit
 * lanes, each into digits, by multiply-shift division in all lanes at
 * once (checked against printf for every v < 10^8).  No loop, no branch.
 */
static inline uint64_t digits8(uint32_t v)
{
	uint64_t h = v / 10000;
	/* (x - h * 100) << 16 | h and the like, as one multiply-add. */
	uint64_t x = ((uint64_t)v << 32) + h * (1 - (10000ull << 32));

	h = ((x * 10486) >> 20) & 0x0000007f0000007full;
	x = (x << 16) + h * (1 - (100ull << 16));
	h = ((x * 103) >> 10) & 0x000f000f000f000full;
	return (x << 8) + h * (1 - (10ull << 8));
}

#define ZEROS8	0x3030303030303030ull
#define SPACES8	0x2020202020202020ull

/* Store x's bytes lowest first, as digits8() orders them. */
static inline void store8(char *p, uint64_t x)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	memcpy(p, &x, 8);
}

/* Leading zeros of digits8(v), the last digit kept for 0: no branch. */
static inline unsigned lead0(uint64_t d)
{
	return (unsigned)__builtin_ctzll(d | 1ull << 56) / 8;
}

/*
 * v < 10^8 unpadded: all eight digits converted and the leading zeros
 * shifted out, with no branch on the length.
 */
static inline char *put_u27(char *p, uint32_t v)
{
	uint64_t d = digits8(v);
	unsigned z = lead0(d);

	store8(p, (d | ZEROS8) >> (8 * z));
	return p + 8 - z;
}

/* The one or two digits of v < 100. */
static inline char *put_small(char *p, uint32_t v)
{
	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	memcpy(p, digits2 + 2 * v, 2);
	return p + 2;
}

/* v in decimal at p, unpadded (at most 20 digits); returns the end. */
static inline char *put_u64(char *p, uint64_t v)
{
	/* Sectors of one disk mostly have one length: the tests predict. */
	if (v < 100000000)
		return put_u27(p, (uint32_t)v);
	if (v < 10000000000ull) {
		/*
		 * 9 or 10 digits (disks up to 2^32 sectors): the top pair.
		 * v >> 8 fits 32 bits and 10^8 = 2^8 * 390625: a 32-bit
		 * division, shorter than a 64-bit one.
		 */
		uint32_t hi = (uint32_t)(v >> 8) / 390625;

		p = put_small(p, hi);
		store8(p, digits8((uint32_t)(v - hi * 100000000ull)) | ZEROS8);
		return p + 8;
	}
	if (v < 10000000000000000ull) {
		/* The two halves convert side by side. */
		p = put_u27(p, (uint32_t)(v / 100000000));
		store8(p, digits8((uint32_t)(v % 100000000)) | ZEROS8);
		return p + 8;
	}
	p = put_u27(p, (uint32_t)(v / 10000000000000000ull));
	v %= 10000000000000000ull;
	store8(p, digits8((uint32_t)(v / 100000000)) | ZEROS8);
	store8(p + 8, digits8((uint32_t)(v % 100000000)) | ZEROS8);
	return p + 16;
}

#endif /* BTKIT_DIGITS_H */
