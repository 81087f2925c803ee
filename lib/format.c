// SPDX-License-Identifier: MIT
/*
 * format.c - the text blkparse prints for one event, byte for byte as
 * Debian's blkparse 1.2.0 does with -q, written with hand-rolled integer
 * formatting because printf was the bottleneck of btcat.  The widths and
 * the quirks (a remap line shows the target device of its payload, a
 * pid without a PROCESS note prints "(null)", messages print pid 0 and
 * sequence 0, 0-byte events drop "SECTOR + N", PC requests dump their
 * command bytes) all come from blkparse's own output code.  Where 1.2.0
 * is wrong about cgroup-flagged records, the lines follow blkparse 1.3.0
 * unless the caller asks for BT_FMT_V120.
 */
#include <string.h>
#include "internal.h"
#include "digits.h"

/* What blkparse does with an action: the line shape it prints. */
enum shape {
	SH_NONE,	/* no line, silently (driver data, notes) */
	SH_BAD,		/* no line, blkparse complains "Bad fs/pc action" */
	SH_DONE,	/* C, R: sector + count [error] */
	SH_QUEUE,	/* D, I, Q, B: sector + count [comm] */
	SH_MERGE,	/* M, F, G, S: sector + count [comm] */
	SH_PLUG,	/* P, ZP: [comm] */
	SH_UNPLUG,	/* U, UT, ZU: [comm] requests */
	SH_REMAP,	/* A: sector + count <- (maj,min) from */
	SH_SPLIT,	/* X: sector / new [comm] */
	SH_MSG,		/* m: message text */
};

struct act_info {
	char letters[3];	/* as "%2s" prints them */
	unsigned char shape;
	unsigned char pc;	/* also handled for PC (SCSI command) requests */
	unsigned char pc_pdu;	/* PC line dumps the payload */
};

static const struct act_info acts[] = {
	[BT_A_QUEUE]		= { " Q", SH_QUEUE,  1, 0 },
	[BT_A_BACKMERGE]	= { " M", SH_MERGE,  0, 0 },
	[BT_A_FRONTMERGE]	= { " F", SH_MERGE,  0, 0 },
	[BT_A_GETRQ]		= { " G", SH_MERGE,  1, 0 },
	[BT_A_SLEEPRQ]		= { " S", SH_MERGE,  1, 0 },
	[BT_A_REQUEUE]		= { " R", SH_DONE,   1, 0 },
	[BT_A_ISSUE]		= { " D", SH_QUEUE,  1, 1 },
	[BT_A_COMPLETE]		= { " C", SH_DONE,   1, 1 },
	[BT_A_PLUG]		= { " P", SH_PLUG,   0, 0 },
	[BT_A_UNPLUG_IO]	= { " U", SH_UNPLUG, 0, 0 },
	[BT_A_UNPLUG_TIMER]	= { "UT", SH_UNPLUG, 0, 0 },
	[BT_A_INSERT]		= { " I", SH_QUEUE,  1, 1 },
	[BT_A_SPLIT]		= { " X", SH_SPLIT,  0, 0 },
	[BT_A_BOUNCE]		= { " B", SH_QUEUE,  0, 0 },
	[BT_A_REMAP]		= { " A", SH_REMAP,  0, 0 },
	/* Version 8's zone write plugging, as blkparse's v8 series prints it. */
	[BT_A_ZONE_PLUG]	= { "ZP", SH_PLUG,   0, 0 },
	[BT_A_ZONE_UNPLUG]	= { "ZU", SH_UNPLUG, 0, 0 },
};
#define NACTS (sizeof(acts) / sizeof(acts[0]))

static int is_message(const struct bt_event *e)
{
	/* blkparse compares the whole action word: no other category bits. */
	return e->category == BT_TC_NOTIFY && e->action == BT_N_MESSAGE;
}

static enum shape shape_of(const struct bt_event *e, unsigned flags)
{
	const struct act_info *a;

	if (e->category & BT_TC_NOTIFY) {
		if (!is_message(e))
			return SH_NONE;
		if (e->has_cgroup)	/* 1.2.0 drops these unseen */
			return (flags & BT_FMT_V120) ? SH_NONE : SH_MSG;
		/* 1.2.0 prints a message only when it has text. */
		return e->pdu_len ? SH_MSG : SH_NONE;
	}
	/* blkparse only shows records whose category passes its mask. */
	if (!e->category)
		return SH_NONE;
	if (e->has_cgroup && (flags & BT_FMT_V120))
		return SH_BAD;
	if (e->action == BT_A_DRV_DATA && !(e->category & BT_TC_PC))
		return SH_NONE;
	if (e->action >= NACTS || !acts[e->action].letters[0])
		return SH_BAD;
	/*
	 * Only version-8 records have zone actions (the kernel writes ZP and
	 * ZU for BLKTRACESETUP2 traces only): elsewhere, and for 1.2.0, which
	 * predates them, they stay "Bad fs action".
	 */
	if (e->action >= BT_A_ZONE_PLUG &&
	    ((flags & BT_FMT_V120) || e->version != BT_VERSION_8))
		return SH_BAD;
	a = &acts[e->action];
	if ((e->category & BT_TC_PC) && !a->pc)
		return SH_BAD;
	return (enum shape)a->shape;
}

int bt_format_kind(const struct bt_event *e, unsigned flags)
{
	switch (shape_of(e, flags)) {
	case SH_NONE:
		return 0;
	case SH_BAD:
		return -1;
	default:
		return 1;
	}
}

size_t bt_format_bound(const struct bt_event *e)
{
	/* Header and tails stay under 160 bytes; a PC dump is 3 per byte. */
	return 256 + 3 * (size_t)e->pdu_len;
}

/* ------------------------------------------------------------ numbers */

/*
 * Decimal conversion two digits at a time from a table, and padding by
 * fixed 8-byte stores of spaces: every width blkparse uses is at most 8,
 * and bt_format_bound() leaves room for the stores that run past the
 * line's end (later bytes overwrite them).
 */
static const char spaces[9] = "        ";

static const uint64_t pow10[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
	10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
	100000000000ull, 1000000000000ull, 10000000000000ull,
	100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull,
	10000000000000000000ull,
};

/*
 * Digits of v: from its bit length (log10(2) ~ 1233 / 4096), then exact.
 * v | 1 has as many digits as v (an odd number is no power of ten) and 0
 * gets its one digit.
 */
static inline unsigned ndigits(uint64_t v)
{
	uint64_t w = v | 1;
	unsigned t = ((64u - (unsigned)__builtin_clzll(w)) * 1233u) >> 12;

	return t + (w >= pow10[t]);
}

/* The 8 digits of v < 10^8 at p, zeros leading: halves independent. */
static inline void put8(char *p, uint32_t v)
{
	uint32_t hi = v / 10000, lo = v % 10000;

	memcpy(p, digits2 + 2 * (hi / 100), 2);
	memcpy(p + 2, digits2 + 2 * (hi % 100), 2);
	memcpy(p + 4, digits2 + 2 * (lo / 100), 2);
	memcpy(p + 6, digits2 + 2 * (lo % 100), 2);
}

/* The n decimal digits of v at p, last digit first, 8 at a time. */
static inline void put_digits(char *p, uint64_t v, unsigned n)
{
	char *t = p + n;
	uint32_t w;

	while (v >= 100000000) {
		t -= 8;
		put8(t, (uint32_t)(v % 100000000));
		v /= 100000000;
	}
	for (w = (uint32_t)v; w >= 100; w /= 100) {
		t -= 2;
		memcpy(t, digits2 + 2 * (w % 100), 2);
	}
	if (w >= 10)
		memcpy(t - 2, digits2 + 2 * w, 2);
	else
		t[-1] = (char)('0' + w);
}

/*
 * digits8(v) in ASCII with the leading zeros as spaces ("%8u"), the last
 * digit kept for 0: the bytes below the first non-zero digit lose 0x10.
 */
static inline uint64_t spaced8(uint64_t d)
{
	uint64_t low = d | 1ull << 56;

	return (d | ZEROS8) - (((low & (0 - low)) - 1) & 0x1010101010101010ull);
}

/* A request's size in sectors (< 2^23): mostly 1 to 3 digits. */
static inline char *put_count(char *p, uint32_t v)
{
	if (v < 100)
		return put_small(p, v);
	if (v < 1000) {
		*p = (char)('0' + v / 100);
		memcpy(p + 1, digits2 + 2 * (v % 100), 2);
		return p + 3;
	}
	return put_u27(p, v);
}

/* printf("%*u") and ("%-*u"): v right (or left) aligned in width <= 8. */
static char *put_u64_w(char *p, uint64_t v, int width, int left)
{
	unsigned n;

	if (left && v < 10 && width > 1) {
		memcpy(p, spaces, 8);
		*p = (char)('0' + v);
		return p + width;
	}
	if (left && v < 100000000) {
		uint64_t d = digits8((uint32_t)v);
		unsigned z = lead0(d);

		/* The digits first, then spaces in the bytes they leave. */
		n = 8 - z;
		d = (d | ZEROS8) >> (8 * z);
		if (n < 8)
			d |= SPACES8 << (8 * n);
		store8(p, d);
		return p + (n > (unsigned)width ? n : (unsigned)width);
	}
	n = ndigits(v);

	if (left) {
		put_digits(p, v, n);
		if (n < (unsigned)width) {
			memcpy(p + n, spaces, 8);
			return p + width;
		}
		return p + n;
	}
	if (n < (unsigned)width) {
		memcpy(p, spaces, 8);
		p += (unsigned)width - n;
	}
	put_digits(p, v, n);
	return p + n;
}

/* printf("%*d"): a signed int right aligned in width <= 8. */
static char *put_int_w(char *p, int v, int width)
{
	unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
	unsigned n = ndigits(u) + (v < 0);

	if (n < (unsigned)width) {
		memcpy(p, spaces, 8);
		p += (unsigned)width - n;
	}
	if (v < 0)
		*p = '-';
	put_digits(p + (v < 0), u, n - (v < 0));
	return p + n;
}

/* printf("%*u") of a field (width <= 8) that mostly fits. */
static inline char *put_fit(char *p, uint32_t v, unsigned width)
{
	if (v >= pow10[width])
		return put_u64_w(p, v, (int)width, 0);
	if (v < 100) {
		memcpy(p, spaces, 8);
		if (v < 10)
			p[width - 1] = (char)('0' + v);
		else
			memcpy(p + width - 2, digits2 + 2 * v, 2);
		return p + width;
	}
	/* The bytes before the field go. */
	store8(p, spaced8(digits8(v)) >> (8 * (8 - width)));
	return p + width;
}

/* printf("%*d") of a field that mostly fits. */
static inline char *put_fit_int(char *p, int v, unsigned width)
{
	return v >= 0 ? put_fit(p, (uint32_t)v, width) : put_int_w(p, v, (int)width);
}

/* printf("%*s"), width <= 8, for the short strings of a line. */
static char *put_str_w(char *p, const char *s, int width)
{
	size_t n = 0;

	while (s[n])
		n++;

	if (n < (size_t)width) {
		memcpy(p, spaces, 8);
		p += (size_t)width - n;
	}
	memcpy(p, s, n);
	return p + n;
}

static char *put_hex32(char *p, uint32_t v)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[8];
	int n = 0;

	do {
		tmp[n++] = hex[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* ------------------------------------------------------------ payloads */

static uint64_t be64(const unsigned char *b)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

/*
 * blkparse reads these payloads without checking their length; a short
 * one prints 0 here instead of whatever followed the record in memory.
 * ZU always is one: the kernel gives it sector and bytes but no payload,
 * yet blkparse's v8 series prints a count after the name as for U.
 */
static uint64_t pdu_u64(const struct bt_event *e)
{
	return e->pdu && e->pdu_len >= 8 ? be64(e->pdu) : 0;
}

static void pdu_remap(const struct bt_event *e, struct bt_remap *r)
{
	if (bt_event_remap(e, r) < 0)
		memset(r, 0, sizeof(*r));
}

/*
 * blkparse's dump of a PC payload: hex bytes separated by spaces; at the
 * first zero byte after which everything is zero it stops with " ..".
 */
static char *put_pdu_dump(char *p, const unsigned char *b, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t last_nz = n;	/* one past the last non-zero byte */

	while (last_nz && !b[last_nz - 1])
		last_nz--;
	for (size_t i = 0; i < n; i++) {
		if (i)
			*p++ = ' ';
		*p++ = hex[b[i] >> 4];
		*p++ = hex[b[i] & 15];
		if (!b[i] && i >= last_nz) {
			memcpy(p, " ..", 3);
			return p + 3;
		}
	}
	return p;
}

/* ------------------------------------------------------------ the line */

/* v < 10^width (width <= 8) right-aligned in spaces, as store8() bytes. */
static inline uint64_t rj_word(uint32_t v, unsigned width)
{
	uint64_t d;

	if (v < 10)
		return (SPACES8 & ~(0xffull << (8 * (width - 1)))) |
		       (uint64_t)('0' + v) << (8 * (width - 1));
	if (v < 100) {
		uint16_t pair;

		memcpy(&pair, digits2 + 2 * v, 2);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		pair = __builtin_bswap16(pair);
#endif
		return (SPACES8 & ~(0xffffull << (8 * (width - 2)))) |
		       (uint64_t)pair << (8 * (width - 2));
	}
	if (v < 10000 && width >= 4) {
		/* Four digits in a 32-bit word, as digits8() does eight. */
		uint32_t h = v / 100, x = (v << 16) + h * (1 - (100u << 16));
		uint32_t d4, m4;

		h = ((x * 103) >> 10) & 0x000f000fu;
		d4 = ((x << 8) + h * (1 - (10u << 8))) | 0x30303030u;
		m4 = v < 1000 ? 0xffu : 0;
		d = (d4 & ~m4) | (0x20202020u & m4);
		return (SPACES8 & ~(0xffffffffull << (8 * (width - 4)))) |
		       d << (8 * (width - 4));
	}
	return spaced8(digits8(v)) >> (8 * (8 - width));
}

/* v < 1000 left-aligned in 3 spaces (and more after), as store8() bytes. */
static inline uint64_t lj3_word(uint32_t v)
{
	uint64_t d;
	unsigned z;

	if (v < 10)
		return (SPACES8 & ~0xffull) | (uint64_t)('0' + v);
	d = digits8(v);
	z = lead0(d);
	return (d | ZEROS8) >> (8 * z) | SPACES8 << (8 * (8 - z));
}

/*
 * The header when every field fits its width, as nearly always: each
 * field at a fixed offset, so the conversions do not wait on each other's
 * lengths.
 */
static inline char *put_header_fixed(char *p, uint32_t maj, uint32_t min,
				     uint32_t cpu, uint32_t seqno,
				     uint32_t sec, uint32_t ns, uint32_t pid)
{
	uint64_t w_seq = rj_word(seqno, 8);
	uint64_t w_sec = rj_word(sec, 5), w_ns = digits8(ns % 100000000) | ZEROS8;
	uint64_t w_pid = rj_word(pid, 5);

	if (maj < 10 && min < 10 && cpu < 10) {
		/* "  M,m    C ": the digits added into fixed words. */
		store8(p, 0x202020302c302020ull + ((uint64_t)maj << 16) +
		       ((uint64_t)min << 32));
		store8(p + 8, 0x2020202020203020ull + ((uint64_t)cpu << 8));
	} else {
		store8(p, rj_word(maj, 3));
		p[3] = ',';
		store8(p + 4, lj3_word(min));
		store8(p + 8, rj_word(cpu, 2));
		p[10] = ' ';
	}
	store8(p + 11, w_seq);
	p[19] = ' ';
	store8(p + 20, w_sec);
	p[25] = '.';
	p[26] = (char)('0' + ns / 100000000);
	store8(p + 27, w_ns);
	p[35] = ' ';
	store8(p + 36, w_pid);
	p[41] = ' ';
	return p + 42;
}

/* "%3d,%-3d %2d %8d %5d.%09lu %5u " up to the action. */
static char *put_header(char *p, uint32_t dev, uint32_t cpu, const char *seq,
			uint32_t seqno, uint64_t rel, uint32_t pid)
{
	uint32_t ns = (uint32_t)(rel % 1000000000u);
	uint64_t sec = rel / 1000000000u;

	if (!seq && BT_DEV_MAJOR(dev) < 1000 && BT_DEV_MINOR(dev) < 1000 &&
	    cpu < 100 && seqno < 100000000 && sec < 100000 && pid < 100000)
		return put_header_fixed(p, BT_DEV_MAJOR(dev), BT_DEV_MINOR(dev),
					cpu, seqno, (uint32_t)sec, ns, pid);

	p = put_fit(p, BT_DEV_MAJOR(dev), 3);
	*p++ = ',';
	p = put_u64_w(p, BT_DEV_MINOR(dev), 3, 1);
	*p++ = ' ';
	p = put_fit_int(p, (int)cpu, 2);
	*p++ = ' ';
	if (seq)
		p = put_str_w(p, seq, 8);
	else
		p = put_fit_int(p, (int)seqno, 8);
	*p++ = ' ';
	p = put_fit_int(p, (int)(rel / 1000000000u), 5);
	*p++ = '.';
	*p = (char)('0' + ns / 100000000);
	store8(p + 1, digits8(ns % 100000000) | ZEROS8);
	p += 9;
	*p++ = ' ';
	p = put_fit(p, pid, 5);
	*p++ = ' ';
	return p;
}

/* "%3s " of the rwbs string (1 to 8 letters), padded by shifting. */
static inline char *put_rwbs(char *p, const struct bt_event *e)
{
	static const uint64_t lead[4] = { 0, 0x20, 0x2020, 0x202020 };
	uint64_t w = bt_rwbs_word(e);
	/* Every letter is non-zero: the length is where the bytes end. */
	unsigned n = (unsigned)(71 - __builtin_clzll(w)) / 8;
	unsigned pad = n < 3 ? 3 - n : 0;

	store8(p, w << (8 * pad) | lead[pad]);
	p[pad + n] = ' ';
	return p + pad + n + 1;
}

/* The n <= 16 bytes at s, reading none past them, in at most 2 moves. */
static inline void copy_short(char *p, const char *s, size_t n)
{
	if (n >= 8) {
		memcpy(p, s, 8);
		memcpy(p + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(p, s, 4);
		memcpy(p + n - 4, s + n - 4, 4);
	} else if (n) {
		p[0] = s[0];
		p[n / 2] = s[n / 2];
		p[n - 1] = s[n - 1];
	}
}

/*
 * "[s]" with up to 16 bytes of s (a task name is at most 16 bytes,
 * TASK_COMM_LEN: the bound relies on it): one strnlen and fixed moves,
 * whose branches go by the length class, the same for most names.
 */
static inline char *put_bracket(char *p, const char *s)
{
	size_t n = strnlen(s, 16);

	*p++ = '[';
	copy_short(p, s, n);
	p[n] = ']';
	return p + n + 1;
}

static char *put_comm(char *p, const char *comm)
{
	return put_bracket(p, comm ? comm : "(null)");
}

/* "SECTOR + COUNT " or nothing for 0-byte events, then what follows. */
static inline char *put_range(char *p, const struct bt_event *e)
{
	p = put_u64(p, e->sector);
	memcpy(p, " + ", 3);
	p = put_count(p + 3, e->bytes >> 9);
	*p++ = ' ';
	return p;
}

static char *put_message(char *p, const struct bt_event *e, uint64_t rel)
{
	const char *text = (const char *)e->pdu;
	size_t n = e->pdu ? strnlen(text, e->pdu_len) : 0;

	/* 1.3.0: the record's pid and "ino,gen " of the cgroup before "m". */
	p = put_header(p, e->dev, e->cpu, "0", 0, rel,
		       e->has_cgroup ? e->pid : 0);
	if (e->has_cgroup) {
		p = put_hex32(p, (uint32_t)e->cgroup);
		*p++ = ',';
		p = put_hex32(p, (uint32_t)(e->cgroup >> 32));
		*p++ = ' ';
	}
	memcpy(p, " m   N ", 7);
	p += 7;
	memcpy(p, text, n);
	p += n;
	*p++ = '\n';
	return p;
}

/* A pass-through command's bytes in brackets: "(12 34 ...) ". */
static char *put_pc_pdu(char *p, const struct bt_event *e)
{
	*p++ = '(';
	p = put_pdu_dump(p, e->pdu, e->pdu_len);
	memcpy(p, ") ", 2);
	return p + 2;
}

/* A remap's origin as blkparse prints it: "<- (MAJ,MIN) SECTOR". */
static char *put_remap_from(char *p, const struct bt_remap *r)
{
	memcpy(p, "<- (", 4);
	p = put_int_w(p + 4, (int)BT_DEV_MAJOR(r->dev_from), 0);
	*p++ = ',';
	p = put_int_w(p, (int)BT_DEV_MINOR(r->dev_from), 0);
	*p++ = ')';
	*p++ = ' ';
	return put_u64(p, r->sector_from);
}

/*
 * A file system request's range, then its task or its error (C, R).  The
 * actions of interleaved streams come in no order a branch predictor
 * could learn: the task or error is a choice of string, not a branch.
 */
static inline __attribute__((always_inline))
char *put_range_tail(char *p, const struct bt_event *e, enum shape sh,
		     const char *comm)
{
	const char *br = comm ? comm : "(null)", *err = "0";
	char num[8];

	if (e->bytes >> 9) {
		p = put_range(p, e);
	} else if (sh == SH_DONE) {
		p = put_u64(p, e->sector);
		*p++ = ' ';
	}
	if (e->error) {
		*put_int_w(num, e->error, 0) = '\0';
		err = num;
	}
	return put_bracket(p, sh == SH_DONE ? err : br);
}

/* Any line: every action, field width and quirk. */
static size_t line_any(char *buf, const struct bt_event *e, uint64_t rel,
		       const char *comm, unsigned flags)
{
	enum shape sh = shape_of(e, flags);
	const struct act_info *a;
	struct bt_remap r;
	uint32_t dev = e->dev;
	int pc = (e->category & BT_TC_PC) != 0;
	char *p = buf;

	if (sh == SH_NONE || sh == SH_BAD)
		return 0;
	if (sh == SH_MSG)
		return (size_t)(put_message(p, e, rel) - buf);

	a = &acts[e->action];
	if (sh == SH_REMAP) {
		/* The line names the device the payload says it went to. */
		pdu_remap(e, &r);
		dev = r.dev_to;
	}
	p = put_header(p, dev, e->cpu, NULL, e->sequence, rel, e->pid);
	memcpy(p, a->letters, 2);
	p[2] = ' ';
	p = put_rwbs(p + 3, e);

	if (sh <= SH_MERGE && !pc) {
		p = put_range_tail(p, e, sh, comm);
		*p++ = '\n';
		return (size_t)(p - buf);
	}
	/* PC requests, and the actions that are not about a range. */
	switch (sh) {
	case SH_DONE:
		if (a->pc_pdu && e->pdu_len)
			p = put_pc_pdu(p, e);
		*p++ = '[';
		p = put_int_w(p, e->error, 0);
		*p++ = ']';
		break;
	case SH_QUEUE:
		p = put_u64(p, e->bytes);
		*p++ = ' ';
		if (a->pc_pdu && e->pdu_len)
			p = put_pc_pdu(p, e);
		p = put_comm(p, comm);
		break;
	case SH_MERGE:
		if (e->bytes >> 9)
			p = put_range(p, e);
		p = put_comm(p, comm);
		break;
	case SH_PLUG:
		p = put_comm(p, comm);
		break;
	case SH_UNPLUG:
		p = put_comm(p, comm);
		*p++ = ' ';
		p = put_u64(p, (uint32_t)pdu_u64(e));
		break;
	case SH_REMAP:
		/* Always "+ N" here, even for 0 bytes. */
		p = put_remap_from(put_range(p, e), &r);
		break;
	case SH_SPLIT:
		p = put_u64(p, e->sector);
		memcpy(p, " / ", 3);
		p = put_u64(p + 3, (uint32_t)pdu_u64(e));
		*p++ = ' ';
		p = put_comm(p, comm);
		break;
	default:
		break;
	}
	*p++ = '\n';
	return (size_t)(p - buf);
}

/*
 * Nearly every line: a file system request (D, I, Q, B, M, F, G, S, C,
 * R) whose header fields fit their widths.  Tested in one go and written
 * with no call but put_u64() for the sector and strnlen() for the name;
 * the rest goes to line_any().
 */
size_t bt_format_line(char *buf, const struct bt_event *e, uint64_t rel,
		      const char *comm, unsigned flags)
{
	uint32_t act = e->action, c = e->category, dev = e->dev;
	uint32_t maj = BT_DEV_MAJOR(dev), min = BT_DEV_MINOR(dev);
	const struct act_info *a = &acts[act < NACTS ? act : 0];
	unsigned sh = a->shape;
	char *p;

	if (!(act < NACTS && sh >= SH_DONE && sh <= SH_MERGE && c &&
	      !(c & (BT_TC_NOTIFY | BT_TC_PC)) &&
	      !(e->has_cgroup && (flags & BT_FMT_V120)) &&
	      (maj < 1000) & (min < 1000) & (e->cpu < 100) &
	      (e->sequence < 100000000) & (rel < 100000000000000ull) &
	      (e->pid < 100000)))
		return line_any(buf, e, rel, comm, flags);
	p = put_header_fixed(buf, maj, min, e->cpu, e->sequence,
			     (uint32_t)(rel / 1000000000u),
			     (uint32_t)(rel % 1000000000u), e->pid);
	memcpy(p, a->letters, 2);
	p[2] = ' ';
	p = put_rwbs(p + 3, e);
	p = put_range_tail(p, e, (enum shape)sh, comm);
	*p++ = '\n';
	return (size_t)(p - buf);
}

size_t bt_format_detail(char *buf, const struct bt_event *e)
{
	struct bt_remap r;
	char *p = buf;

	if (e->category & BT_TC_NOTIFY) {
		if (is_message(e) && e->pdu) {
			size_t n = strnlen((const char *)e->pdu, e->pdu_len);

			memcpy(p, e->pdu, n);
			p += n;
		}
		return (size_t)(p - buf);
	}
	if ((e->category & BT_TC_PC) && e->pdu_len)
		return (size_t)(put_pdu_dump(p, e->pdu, e->pdu_len) - buf);
	switch (e->action) {
	case BT_A_REMAP:
		pdu_remap(e, &r);
		p = put_remap_from(p, &r);
		break;
	case BT_A_SPLIT:
		memcpy(p, "/ ", 2);
		p = put_u64(p + 2, (uint32_t)pdu_u64(e));
		break;
	case BT_A_UNPLUG_IO:
	case BT_A_UNPLUG_TIMER:
	case BT_A_ZONE_UNPLUG:
		p = put_u64(p, (uint32_t)pdu_u64(e));
		break;
	default:
		break;
	}
	return (size_t)(p - buf);
}
