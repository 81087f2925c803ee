// SPDX-License-Identifier: MIT
/*
 * reader.c - stream blktrace records from any number of inputs (input.c
 * supplies their bytes) and merge them by time.  The format is decided per
 * input at its first record: byte order from the magic, the 64-byte
 * header of version 8 (or of newer `blkparse -d` dumps behind a version-7
 * magic), and the 16-byte context prefix of tracefs captures.  Records are
 * checked before their lengths are trusted; the first bad one stops the
 * reader with its input, offset and a message.  Records that copy one
 * already read are dropped (reader_dup.c decides which), inputs of
 * separate recordings are told apart at the start (reader_rec.c), and
 * PROCESS notes fill a pid -> comm table.  Records of actions the caller
 * set aside (bt_reader_set_actions()) are read and checked the same way,
 * but not decoded or delivered.  The common records take short paths
 * (fast_as(), unsequenced_as()); everything else the general one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "reader_int.h"

/* ------------------------------------------------------------- errors */

static int bt_reader_fail(struct bt_reader *r, struct input *in,
			  uint64_t off, int err, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int bt_reader_fail(struct bt_reader *r, struct input *in,
			  uint64_t off, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	r->err = err;
	r->alone = r->lone = r->merged = NULL;
	r->err_in = in;
	r->err_off = off;
	return err;
}

/* The input's error (input.c says where and what) becomes the reader's. */
static ssize_t fill_slow(struct bt_reader *r, struct input *in, size_t need,
			 int soft)
{
	ssize_t n = bt_input_fill_slow(in, need, soft, r->nin);

	if (n < 0)
		return bt_reader_fail(r, in, in->eoff, (int)n, "%s", in->imsg);
	return n;
}

/* The common case inline: the bytes are there already. */
static inline ssize_t fill(struct bt_reader *r, struct input *in, size_t need)
{
	if (in->end - in->pos >= need && in->started)
		return (ssize_t)(in->end - in->pos);
	return fill_slow(r, in, need, 0);
}

/* ------------------------------------------------------------- reader */

int bt_reader_new(struct bt_reader **out)
{
	struct bt_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	bt_comm_init(&r->comm, COMM_MAX_PIDS);
	*out = r;
	return 0;
}

/* ------------------------------------------------------------ records */

static inline int plausible(uint32_t act, uint32_t cat)
{
	uint32_t a = act & ~BT_A_CGROUP;

	if (cat & BT_TC_NOTIFY)
		return a <= BT_N_MESSAGE;
	return a >= BT_A_QUEUE && a <= BT_A_DRV_DATA;
}

/*
 * How many records in a row (up to 16) read well with a 48-byte or a
 * 64-byte header behind a v7 magic: a sane action, and a pdu_len that
 * lands on the next magic.  Reaching the exact end of the input counts
 * as a long chain.
 */
static int chain(const struct input *in, const unsigned char *p, size_t avail,
		 int wide)
{
	size_t off = 0, hdr = wide ? BT_HDR_V8 : BT_HDR_V7, next;
	int n = 0;

	while (n < 16) {
		const unsigned char *h = p + off + in->ctx;
		uint32_t m, act, cat, plen;

		if (off + in->ctx + hdr > avail)
			break;
		m = bt_ld32(h, in->swap);
		if (!magic_ok(m) || (m & 0xff) != BT_VERSION_7)
			break;
		if (wide) {
			uint64_t a = bt_ld64(h + BT_V8_ACTION, in->swap);

			act = (uint32_t)(a & 0xffff);
			cat = (uint32_t)(a >> 16);
			plen = bt_ld16(h + BT_V8_PDU_LEN, in->swap);
		} else {
			uint32_t a = bt_ld32(h + BT_V7_ACTION, in->swap);

			act = a & 0xffff;
			cat = a >> 16;
			plen = bt_ld16(h + BT_V7_PDU_LEN, in->swap);
		}
		if (!plausible(act, cat))
			break;
		n++;
		next = off + in->ctx + hdr + plen;
		if (next == avail && in->eof)
			return n + 16;
		off = next;
	}
	return n;
}

/* blkparse's default line: "%3d,%-3d %2d %8d %5d.%09lu %5u ..." */
static int blkparse_line(const unsigned char *p, size_t n)
{
	size_t i = 0;
	int field;

	for (field = 0; field < 5; field++) {
		size_t d;

		while (i < n && p[i] == ' ')
			i++;
		for (d = i; i < n && p[i] >= '0' && p[i] <= '9'; i++)
			;
		if (i == d || i >= n)
			return 0;
		if (field == 0 && p[i++] != ',')
			return 0;
		if (field == 4)
			return p[i] == '.';
		if (field > 0 && p[i] != ' ')
			return 0;
	}
	return 0;
}

/*
 * What the first bytes of an input are when they are no trace: blkparse's
 * text output, or a compressor's magic (only gzip is read in place).
 */
static const char *not_a_trace(const unsigned char *p, size_t n)
{
	static const struct {
		const char *magic;
		size_t len;
		const char *what;
	} z[] = {
		{ "\xfd" "7zXZ\0", 6, "xz-compressed data: decompress it "
		  "first (xz -d); only gzip is read as it is" },
		{ "\x28\xb5\x2f\xfd", 4, "zstd-compressed data: decompress "
		  "it first (zstd -d); only gzip is read as it is" },
		{ "\x04\x22\x4d\x18", 4, "lz4-compressed data: decompress it "
		  "first (lz4 -d); only gzip is read as it is" },
		{ "BZh", 3, "bzip2-compressed data: decompress it first "
		  "(bzip2 -d); only gzip is read as it is" },
	};

	for (size_t i = 0; i < sizeof(z) / sizeof(z[0]); i++)
		if (n >= z[i].len && !memcmp(p, z[i].magic, z[i].len))
			return z[i].what;
	if (blkparse_line(p, n < 256 ? n : 256))
		return "this is blkparse text output; btkit reads the binary "
		       "trace, e.g. the per-CPU files blktrace wrote";
	return NULL;
}

/* Byte order, prefix and header size from the first record. */
static int detect(struct bt_reader *r, struct input *in)
{
	const unsigned char *p;
	ssize_t avail;
	size_t need, n46, n50, a;
	uint32_t m;

	avail = fill_slow(r, in, CTX_LEN + BT_HDR_V8 + 4, 1);
	if (avail < 0)
		return (int)avail;
	if (!avail) {
		if (in->ierr)
			return bt_reader_fail(r, in, in->base, in->ierr, "%s", in->imsg);
		return 0;	/* empty input: prime() decides */
	}
	p = in->data + in->pos;
	a = (size_t)avail;
	if (a < 4)
		return bt_reader_fail(r, in, in->base + in->pos, -ENODATA,
			    "truncated record: %zu bytes", a);
	m = bt_ld32(p, 0);
	if (magic_ok(m)) {
		in->ctx = 0;
	} else if (magic_ok(__builtin_bswap32(m))) {
		in->ctx = 0;
		in->swap = 1;
	} else if (a >= CTX_LEN + 4 && magic_ok(bt_ld32(p + CTX_LEN, 0))) {
		in->ctx = CTX_LEN;
	} else if (a >= CTX_LEN + 4 &&
		   magic_ok(bt_ld32(p + CTX_LEN, 1))) {
		in->ctx = CTX_LEN;
		in->swap = 1;
	} else {
		const char *what = not_a_trace(p, a);

		return bt_reader_fail(r, in, in->base + in->pos, -EBADMSG,
			    "bad magic 0x%08x%s%s", m, what ? ": " : "",
			    what ? what : "");
	}
	in->detected = 1;
	m = bt_ld32(p + in->ctx, in->swap);
	if ((m & 0xff) != BT_VERSION_7)
		return 0;	/* v8 is always wide; others fail in parse */
	if (a < in->ctx + BT_HDR_V8)
		return 0;	/* too short to be wide; parse decides */
	/*
	 * Newer blkparse -d writes the 64-byte layout behind a v7 magic.  The
	 * pdu_len at 46 (48-byte layout) or at 50 (64-byte layout) must lead
	 * from record to record; the longer run of sane records wins, ties
	 * go to the classic layout.
	 */
	n46 = bt_ld16(p + in->ctx + BT_V7_PDU_LEN, in->swap);
	n50 = bt_ld16(p + in->ctx + BT_V8_PDU_LEN, in->swap);
	need = 2 * in->ctx + BT_HDR_V8 + (n46 > n50 ? n46 : n50) + 4;
	avail = fill_slow(r, in, need, 1);
	if (avail < 0)
		return (int)avail;
	p = in->data + in->pos;
	a = (size_t)avail;
	if (chain(in, p, a, 1) > chain(in, p, a, 0))
		in->wide7 = 1;
	return 0;
}

/*
 * What every record gets once its header is decoded at p (past any
 * prefix) and its total bytes from start are in the window.
 */
static inline __attribute__((always_inline)) int
finish(struct bt_reader *r, struct input *in, struct bt_event *e,
       const unsigned char *p, size_t start, size_t hdr, size_t total,
       uint32_t ver)
{

	e->time += in->shift;
	e->version = (uint8_t)ver;
	e->offset = in->base + start;
	e->input = in->index;
	bt_rec_payload(e, p + (hdr - in->ctx), in->swap);
	in->pos = start + total;
	r->st.bytes += total;
	if (e->category & BT_TC_NOTIFY) {
		if (e->action == BT_N_PROCESS && e->pdu_len)
			/* Full (COMM_MAX_PIDS): later pids go unnamed. */
			(void)bt_comm_set(&r->comm, e->pid,
					  (const char *)e->pdu, e->pdu_len, 0);
		else if (e->action == BT_N_TIMESTAMP && e->pdu_len >= 8 &&
			 in->swap) {
			uint32_t sec = bt_ld32(e->pdu, 1);
			uint32_t nsec = bt_ld32(e->pdu + 4, 1);

			memcpy(in->scratch, &sec, 4);
			memcpy(in->scratch + 4, &nsec, 4);
			e->pdu = in->scratch;
			e->pdu_len = 8;
		}
	}
	return 1;
}

static void choose_step(struct input *in, const unsigned char *p, uint32_t ver,
			int wide);

/*
 * Read the input's next record into e (in->ev, or the caller's event when
 * the input is read alone).  1: a record, 0: the end of the input, < 0:
 * error (recorded in r).
 */
static int advance(struct bt_reader *r, struct input *in, struct bt_event *e)
{
	const unsigned char *p;
	ssize_t avail;
	size_t hdr, total, start;
	uint32_t m, ver;
	int wide;

	if (!in->detected) {
		int rc = detect(r, in);

		if (rc < 0)
			return rc;
		if (!in->detected) {
			if (in->gz_trunc)
				return bt_reader_fail(r, in, in->base + in->pos, -ENODATA,
					    "truncated gzip data");
			return 0;
		}
	}
	avail = fill(r, in, in->ctx + BT_HDR_V7);
	if (avail < 0)
		return (int)avail;
	start = in->pos;
	if (!avail) {
		if (in->gz_trunc)
			return bt_reader_fail(r, in, in->base + start, -ENODATA,
				    "truncated gzip data");
		return 0;
	}
	p = in->data + start;
	if ((size_t)avail < in->ctx + 4)
		goto truncated;
	m = bt_ld32(p + in->ctx, in->swap);
	if (!magic_ok(m))
		return bt_reader_fail(r, in, in->base + start, -EBADMSG,
			    "bad magic 0x%08x", m);
	ver = m & 0xff;
	if (ver == BT_VERSION_8)
		wide = 1;
	else if (ver == BT_VERSION_7)
		wide = in->wide7;
	else
		return bt_reader_fail(r, in, in->base + start, -EPROTONOSUPPORT,
			    "unsupported version %u", ver);
	hdr = in->ctx + (wide ? BT_HDR_V8 : BT_HDR_V7);
	if ((size_t)avail < hdr) {
		avail = fill(r, in, hdr);
		if (avail < 0)
			return (int)avail;
		start = in->pos;
		p = in->data + start;
		if ((size_t)avail < hdr)
			goto truncated;
	}
	p += in->ctx;
	if (in->swap) {
		if (wide)
			decode(e, p, 1, 1);
		else
			decode(e, p, 1, 0);
	} else {
		if (wide)
			decode(e, p, 0, 1);
		else
			decode(e, p, 0, 0);
	}
	total = hdr + e->pdu_len;
	if ((size_t)avail < total) {
		avail = fill(r, in, total);
		if (avail < 0)
			return (int)avail;
		start = in->pos;	/* the fill may have slid the buffer */
		if ((size_t)avail < total) {
			if (in->gz_trunc)
				return bt_reader_fail(r, in, in->base + start, -ENODATA,
					    "truncated gzip data");
			return bt_reader_fail(r, in, in->base + start, -ENODATA,
				    "pdu_len %u runs past the end",
				    (unsigned)e->pdu_len);
		}
		p = in->data + start + in->ctx;
	}
	if (in->layout < 0)
		choose_step(in, p, ver, wide);
	return finish(r, in, e, p, start, hdr, total, ver);

truncated:
	if (in->gz_trunc)
		return bt_reader_fail(r, in, in->base + start, -ENODATA,
			    "truncated gzip data");
	return bt_reader_fail(r, in, in->base + start, -ENODATA,
		    "truncated record: %zu bytes", (size_t)avail);
}

/*
 * The input's records as its first one was: one layout and byte order,
 * decided once per input, with the magic compared as raw bytes.  Anything
 * else (a partial record at the window's end, another version, damage)
 * takes advance(), which decides record by record and reports errors.
 */
static inline __attribute__((always_inline)) int
step_as(struct bt_reader *r, struct input *in, struct bt_event *e, int swap,
	int wide)
{
	size_t start = in->pos, avail = in->end - start;
	size_t hdr = in->ctx + (wide ? BT_HDR_V8 : BT_HDR_V7), total;
	const unsigned char *p = in->data + start + in->ctx;
	uint32_t m;

	if (avail < hdr)
		return advance(r, in, e);
	memcpy(&m, p, 4);
	if (m != in->magic_raw)
		return advance(r, in, e);
	decode(e, p, swap, wide);
	total = hdr + e->pdu_len;
	if (avail < total)
		return advance(r, in, e);
	return finish(r, in, e, p, start, hdr, total, in->magic_ver);
}

/*
 * The layout of the input's records from its first one on: its magic as
 * stored (magic_raw, of version magic_ver), and step_as()'s constants as
 * a code, swap * 2 + wide.
 */
static void choose_step(struct input *in, const unsigned char *p, uint32_t ver,
			int wide)
{
	struct bt_event t = { .version = (uint8_t)ver, .input = in->index };

	memcpy(&in->magic_raw, p, 4);
	in->magic_ver = ver;
	in->layout = (int8_t)(in->swap * 2 + wide);
	memcpy(in->ev_tail, &t.has_cgroup, sizeof(in->ev_tail));
	in->fast = !in->swap && !in->ctx;
}

/* The next record of the input into e: 1, 0 at its end, < 0 on error. */
static inline __attribute__((always_inline)) int
next_record(struct bt_reader *r, struct input *in, struct bt_event *e)
{
	switch (in->layout) {
	case 0: return step_as(r, in, e, 0, 0);
	case 1: return step_as(r, in, e, 0, 1);
	case 2: return step_as(r, in, e, 1, 0);
	case 3: return step_as(r, in, e, 1, 1);
	default: return advance(r, in, e);
	}
}

/* --------------------------------------------------------- pid -> comm */

const char *bt_reader_comm(const struct bt_reader *r, uint32_t pid)
{
	return bt_comm_get(&r->comm, pid);
}

/* -------------------------------------------------------------- merge */

static inline int before(const struct input *a, const struct input *b)
{
	if (a->ev.time != b->ev.time)
		return a->ev.time < b->ev.time;
	return a->index < b->index;
}

static inline __attribute__((always_inline)) void
sift_down(struct bt_reader *r, size_t i)
{
	struct input **h = r->heap, *x = h[i];
	size_t n = r->nheap;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && before(h[c + 1], h[c]))
			c++;
		if (!before(h[c], x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

/*
 * sift_down(r, 0) of a heap of two or more that returns the new first:
 * the input that was first when it stays so (the common case, one record
 * of a CPU's run after another), without storing and loading it again.
 */
static inline __attribute__((always_inline)) struct input *
sift_top(struct bt_reader *r)
{
	struct input **h = r->heap, *x = h[0];
	size_t c = 2 < r->nheap && before(h[2], h[1]) ? 2 : 1;

	if (!before(h[c], x))
		return x;
	h[0] = h[c];
	h[c] = x;
	sift_down(r, c);
	return h[0];
}

/* --------------------------------------------------------- recordings */

/* One after the other: the next recording's inputs join the merge. */
static int next_recording(struct bt_reader *r)
{
	uint64_t first = UINT64_MAX, shift = 0;
	size_t i;

	if (r->rec_abs || r->cur_rec + 1 >= r->nrec)
		return 0;
	r->cur_rec++;
	for (i = 0; i < r->nin; i++)
		if (r->in[i]->pending && r->in[i]->rec == r->cur_rec &&
		    r->in[i]->ev.time < first)
			first = r->in[i]->ev.time;
	if (r->have_time && first != UINT64_MAX && first <= r->max_time)
		shift = r->max_time + 1 - first;
	if (shift > r->rec_shift_ns)
		r->rec_shift_ns = shift;
	for (i = 0; i < r->nin; i++) {
		struct input *in = r->in[i];

		if (in->pending && in->rec == r->cur_rec) {
			in->pending = 0;
			shift_input(in, shift);
			r->heap[r->nheap++] = in;
		}
	}
	for (i = r->nheap / 2; i-- > 0;)
		sift_down(r, i);
	return 1;
}

/* -------------------------------------------------------------- start */

static int prime(struct bt_reader *r)
{
	struct rec_head *heads = NULL;
	int *live = NULL;
	size_t i;
	int rc;

	r->started = 1;
	if (r->nin > 1) {
		heads = calloc(r->nin, sizeof(*heads));
		live = calloc(r->nin, sizeof(*live));
		if (!heads || !live) {
			free(heads);
			free(live);
			return bt_reader_fail(r, r->in[0], 0, -ENOMEM,
					      "out of memory");
		}
	}
	for (i = 0; i < r->nin; i++)
		bt_dup_hot_init(r, r->in[i]);
	for (i = 0; i < r->nin; i++) {
		rc = advance(r, r->in[i], &r->in[i]->ev);
		if (rc < 0)
			goto out;
		if (rc && heads) {
			bt_rec_scan_head(r->in[i], &heads[i]);
			live[i] = 1;
		}
		r->in[i]->pending = rc > 0;
	}
	rc = heads ? bt_rec_group(r, heads, live) : 0;
	if (rc < 0) {
		rc = bt_reader_fail(r, r->in[0], 0, rc, "out of memory");
		goto out;
	}
	for (i = 0; i < r->nin; i++) {
		struct input *in = r->in[i];

		if (in->pending && (r->rec_abs || in->rec == 0)) {
			in->pending = 0;
			r->heap[r->nheap++] = in;
		}
	}
	/*
	 * A CPU that did nothing leaves an empty NAME.blktrace.N, so one
	 * empty input is normal; no bytes in any input is bad input.
	 */
	if (!r->nheap && r->nin) {
		r->empty = 1;
		rc = bt_reader_fail(r, r->in[0], 0, -ENODATA, "empty trace");
		goto out;
	}
	for (i = r->nheap / 2; i-- > 0;)
		sift_down(r, i);
	rc = 0;
out:
	free(heads);
	free(live);
	return rc;
}

/*
 * What every record read goes through: 1 when it is a duplicate (to be
 * skipped), 0 when it is delivered, -ENOMEM.  *newest: the latest event
 * time delivered, to count time going backwards.  The common record, the
 * next in sequence of the (device, CPU) met last at its cache slot, is
 * settled here without a call (bt_dup_next()).
 */
static inline __attribute__((always_inline)) int
take_record(struct bt_reader *r, struct input *in, const struct bt_event *e,
	    uint64_t *newest, int *have)
{
	int rc;

	if (bt_event_is_note(e)) {
		rc = bt_dup_unsequenced(r, in, e);
		if (rc < 0)
			return bt_reader_fail(r, in, e->offset, rc,
					      "out of memory");
		if (rc)
			r->st.duplicates++;
		return rc;
	}
	if (e->sequence && bt_dup_next(in, e))
		rc = 0;
	else if (e->sequence)
		rc = bt_dup_sequenced(r, in, e);
	else if ((rc = bt_dup_unsequenced(r, in, e)) < 0)
		return bt_reader_fail(r, in, e->offset, rc, "out of memory");
	if (rc) {
		r->st.duplicates++;
		return 1;
	}
	if (*have && e->time < *newest) {
		if (!r->st.backwards++) {
			r->back1.at = where_of(e);
			r->back1.delta = *newest - e->time;
		}
	} else {
		*newest = e->time;
	}
	*have = 1;
	return 0;
}

/*
 * The one input left in the merge (a merged trace, or the last file of a
 * set): nothing to order, so its records decode straight into the
 * caller's event, without the copy out of in->ev, which goes stale until
 * the input ends.  0: it ended and left the merge.
 */
static int next_alone(struct bt_reader *r, struct input *in,
		      struct bt_event *ev)
{
	int rc;

	for (;;) {
		rc = next_record(r, in, ev);
		if (rc <= 0) {
			if (!rc)
				r->nheap = 0;
			return rc;
		}
		rc = take_record(r, in, ev, &r->max_time, &r->have_time);
		if (rc < 0)
			return rc;
		if (!rc)
			break;
	}
	r->last = in;
	if (r->have_time && in->fast) {
		if (r->aside)
			r->lone = in;
		else
			r->alone = in;
	}
	r->st.events++;
	return 1;
}

/*
 * Whether a record of action word act (category << 16 | action) is set
 * aside (r->aside, r->cats), its action and time then noted.
 */
static inline int set_aside(struct bt_reader *r, uint32_t act, uint64_t time)
{
	uint32_t a = act & 0xffff;

	if (a >= 32 || !(r->aside >> a & 1) || (act >> 16 & r->cats[a]))
		return 0;
	r->aside_seen |= 1u << a;
	if (time > r->aside_time)
		r->aside_time = time;
	return 1;
}

/* The same of a decoded record: notes are always delivered. */
static inline int ev_aside(struct bt_reader *r, const struct bt_event *e)
{
	return r->aside && !bt_event_is_note(e) &&
	       set_aside(r, e->category << 16 | e->action, e->time);
}

/*
 * In a merge, whether the first input (in, delivered last) stays first
 * with a record of that time: what sift_down(r, 0) would leave.  Its
 * children's records are fresh (only the first input's waits to advance).
 */
static inline int stays_first(const struct bt_reader *r,
			      const struct input *in, uint64_t time)
{
	const struct input *c;

	for (size_t k = 1; k <= 2 && k < r->nheap; k++) {
		c = r->heap[k];
		if (c->ev.time < time ||
		    (c->ev.time == time && c->index < in->index))
			return 0;
	}
	return 1;
}

/* has_cgroup (0), version and input: what fast_as() stores as one. */
_Static_assert(offsetof(struct bt_event, version) ==
	       offsetof(struct bt_event, has_cgroup) + 1 &&
	       offsetof(struct bt_event, input) ==
	       offsetof(struct bt_event, has_cgroup) + 2 &&
	       sizeof(((struct bt_event *)0)->input) == 2, "event's tail");

/* A record's header as the short paths test it, read from its bytes. */
struct head {
	const unsigned char *p;
	size_t start, total;
	uint64_t time, dc;
	uint32_t act, seq;
};

/*
 * The next record of in when it is a whole event of its layout's (wide)
 * constant without cgroup id, and, with merge, stays first in the heap;
 * 0 for anything else.  The checks read the record's bytes, not e's
 * fields: a load of fields just stored apart (action and category) waits
 * for them.
 */
static inline __attribute__((always_inline)) int
head_of(const struct bt_reader *r, const struct input *in, int wide,
	int merge, struct head *h)
{
	size_t avail = in->end - in->pos;
	size_t hdr = wide ? BT_HDR_V8 : BT_HDR_V7;
	uint32_t m;

	h->start = in->pos;
	h->p = in->data + h->start;
	if (avail < hdr)
		return 0;
	h->time = bt_ld64(h->p + BT_OFF_TIME, 0) + in->shift;
	if (merge && !stays_first(r, in, h->time))
		return 0;
	memcpy(&m, h->p, 4);
	h->act = wide ? (uint32_t)bt_ld64(h->p + BT_V8_ACTION, 0) :
			bt_ld32(h->p + BT_V7_ACTION, 0);
	h->seq = bt_ld32(h->p + BT_OFF_SEQUENCE, 0);
	h->total = hdr + bt_ld16(h->p + (wide ? BT_V8_PDU_LEN :
						 BT_V7_PDU_LEN), 0);
	if (m != in->magic_raw ||
	    (h->act & (BT_TC_NOTIFY << 16 | BT_A_CGROUP)) || avail < h->total)
		return 0;
	memcpy(&h->dc, h->p + (wide ? BT_V8_DEVICE : BT_V7_DEVICE), 8);
	return 1;
}

/* A record head_of() passed is taken: delivered or set aside. */
static inline __attribute__((always_inline)) void
take_as(struct bt_reader *restrict r, struct input *restrict in,
	const struct head *h)
{
	in->pos = h->start + h->total;
	r->st.bytes += h->total;
	r->max_time = h->time;
	r->st.events++;
}

/* The event of a record head_of() passed, at input offset off. */
static inline __attribute__((always_inline)) void
decode_as(struct bt_event *restrict e, const struct input *restrict in,
	  const struct head *h, uint64_t off, int wide)
{
	decode(e, h->p, 0, wide);
	e->time = h->time;
	e->offset = off;
	e->pdu = e->pdu_len ? h->p + (wide ? BT_HDR_V8 : BT_HDR_V7) : NULL;
	e->cgroup = 0;
	memcpy(&e->has_cgroup, in->ev_tail, sizeof(in->ev_tail));
}

/*
 * The common record of the input read alone (r->alone), its layout's
 * (wide) constant: a whole sequenced event, no cgroup id, the next in
 * sequence of the slot its (device, CPU) has in the input's cache, no
 * older than the newest delivered.  It decodes into e and does what
 * step_as(), finish() and take_record() would, all decided before any
 * state changes; 0 for anything else, which the general path reads again
 * from the same bytes.  restrict: e is the caller's, no part of r or in.
 * merge: in is r->merged instead, its record taken only when it stays
 * first in the heap.  aside: r->aside is set (a constant, so that the
 * common run tests nothing for it); 2: the record was taken, but its
 * action is set aside and e holds nothing to deliver.
 */
static inline __attribute__((always_inline)) int
fast_as(struct bt_reader *restrict r, struct input *restrict in,
	struct bt_event *restrict e, int wide, int merge, int aside)
{
	struct seq_slot *s;
	struct head h;
	uint64_t off;

	if (!head_of(r, in, wide, merge, &h) || !h.seq)
		return 0;
	s = *bt_dup_hot(in, h.dc);
	if (s->dc != h.dc || h.seq != s->expect || h.time < r->max_time)
		return 0;
	off = in->base + h.start;
	if (!wide) {
		bt_dup_remember_v7(s, h.p, h.seq, h.time, off, in->index);
		/* Set aside: taken as a delivery takes it, not decoded. */
		if (aside && set_aside(r, h.act, h.time)) {
			take_as(r, in, &h);
			return 2;
		}
	}
	decode_as(e, in, &h, off, wide);
	take_as(r, in, &h);
	if (wide) {
		/*
		 * The slot's copy loads e's fields again (forwarded from the
		 * stores above): kept in registers across those stores, GCC
		 * spilled them, with three more registers saved and restored.
		 */
		__asm__ volatile("" ::: "memory");
		bt_dup_remember(s, e);
	}
	return wide && aside && set_aside(r, h.act, h.time) ? 2 : 1;
}

/*
 * fast_as() of a sequence-less record (what tracefs captures hold):
 * taken when it is newer than what its slot and the reader delivered, so
 * no copy (bt_dup_unsequenced() would search the window for none), and
 * the window is there to remember it in.  Its own path, tried after
 * fast_as(): a branch for it there cost the sequenced run 7 instructions
 * a record in the registers GCC gave it.
 */
static inline __attribute__((always_inline)) int
unsequenced_as(struct bt_reader *restrict r, struct input *restrict in,
	       struct bt_event *restrict e, int wide, int merge, int aside)
{
	struct seq_slot *s;
	struct head h;

	if (!head_of(r, in, wide, merge, &h) || h.seq || !r->win)
		return 0;
	s = *bt_dup_hot(in, h.dc);
	if (s == &r->seq_none || s->dc != h.dc || h.time <= s->max_time ||
	    h.time < r->max_time)
		return 0;
	decode_as(e, in, &h, in->base + h.start, wide);
	bt_dup_unsequenced_newer(r, in, s, e);
	take_as(r, in, &h);
	return aside && set_aside(r, h.act, h.time) ? 2 : 1;
}

/*
 * The next record of r->merged (the input delivered last, in a merge of
 * several), of its layout's (wide) constant, decoded into in->ev when it
 * is a whole event without cgroup id: what step_as() and finish() would
 * do, decided on the record's bytes before anything changes.  0 for
 * anything else, which next_record() reads again from the same bytes.
 */
static inline __attribute__((always_inline)) int
merge_decode(struct bt_reader *restrict r, struct input *restrict in, int wide)
{
	size_t start = in->pos, avail = in->end - start;
	size_t hdr = wide ? BT_HDR_V8 : BT_HDR_V7, total;
	const unsigned char *p = in->data + start;
	struct bt_event *e = &in->ev;
	uint32_t m, act;

	if (avail < hdr)
		return 0;
	memcpy(&m, p, 4);
	act = wide ? (uint32_t)bt_ld64(p + BT_V8_ACTION, 0) :
		     bt_ld32(p + BT_V7_ACTION, 0);
	total = hdr + bt_ld16(p + (wide ? BT_V8_PDU_LEN : BT_V7_PDU_LEN), 0);
	if (m != in->magic_raw || (act & (BT_TC_NOTIFY << 16 | BT_A_CGROUP)) ||
	    avail < total)
		return 0;
	decode(e, p, 0, wide);
	e->time += in->shift;
	e->offset = in->base + start;
	e->pdu = e->pdu_len ? p + hdr : NULL;
	e->cgroup = 0;
	memcpy(&e->has_cgroup, in->ev_tail, sizeof(in->ev_tail));
	in->pos = start + total;
	r->st.bytes += total;
	return 1;
}

/*
 * take_record() of the merge's first record, in->ev, when it is the
 * common one: sequenced, the next of its slot in the input's cache, no
 * older than the newest (a time was delivered: r->merged is set only
 * then).  1 when delivered so; 0, nothing changed, for take_record().
 */
static inline __attribute__((always_inline)) int
merge_take(struct bt_reader *restrict r, struct input *restrict in)
{
	const struct bt_event *e = &in->ev;
	struct seq_slot *s;
	uint64_t dc;

	if (bt_event_is_note(e) || !e->sequence)
		return 0;
	dc = bt_dup_dc_of(e);
	s = *bt_dup_hot(in, dc);
	if (s->dc != dc || e->sequence != s->expect || e->time < r->max_time)
		return 0;
	bt_dup_remember(s, e);
	r->max_time = e->time;
	return 1;
}

static int next_slow(struct bt_reader *r, struct bt_event *ev);

/*
 * Past an input read alone: the merge's common step (the input delivered
 * last advances the short way, the heap is sifted, its first record is
 * the common one), else next_slow().
 */
static inline __attribute__((always_inline)) int
merge_step(struct bt_reader *r, struct bt_event *ev, int aside)
{
	struct input *in = r->merged;
	int rc;

	if (!in)
		goto slow;
	/*
	 * Its next record first still: straight into ev as fast_as() does
	 * for an input alone; in->ev waits, stale, as it is r->last.
	 */
	rc = !in->layout ? fast_as(r, in, ev, 0, 1, aside) :
			   fast_as(r, in, ev, 1, 1, aside);
	if (!rc)
		rc = !in->layout ? unsequenced_as(r, in, ev, 0, 1, aside) :
				   unsequenced_as(r, in, ev, 1, 1, aside);
	if (rc)
		return rc;
	if (!in->layout ? merge_decode(r, in, 0) : merge_decode(r, in, 1)) {
		/* As next_slow()'s advance: its loop goes on from here. */
		r->last = r->merged = NULL;
		in = sift_top(r);
		if (merge_take(r, in)) {
			*ev = in->ev;
			r->last = in;
			if (in->fast)
				r->merged = in;	/* no input left the merge */
			r->st.events++;
			return aside && ev_aside(r, ev) ? 2 : 1;
		}
	}
slow:
	rc = next_slow(r, ev);
	return aside && rc > 0 && ev_aside(r, ev) ? 2 : rc;
}

/*
 * bt_reader_next() while actions are set aside: the same paths, on to a
 * record delivered (2 from either is one set aside), with the input read
 * alone in r->lone, not r->alone, which would take the paths that look
 * at no action.
 */
/*
 * After fast_as() of the input read alone (in, or NULL) did not take its
 * record: the sequence-less short path, then the merge's.
 */
static inline __attribute__((always_inline)) int
after_fast(struct bt_reader *r, struct input *in, struct bt_event *ev,
	   int aside)
{
	int rc;

	if (in && (rc = !in->layout ? unsequenced_as(r, in, ev, 0, 0, aside) :
				     unsequenced_as(r, in, ev, 1, 0, aside)))
		return rc;
	return merge_step(r, ev, aside);
}

static __attribute__((noinline)) int merge_aside(struct bt_reader *r,
						 struct bt_event *ev)
{
	return after_fast(r, r->lone, ev, 1);
}

static __attribute__((noinline)) int next_aside(struct bt_reader *r,
						struct bt_event *ev)
{
	struct input *in;
	int rc;

	do {
		in = r->lone;
		if (in && (rc = !in->layout ? fast_as(r, in, ev, 0, 0, 1) :
					     fast_as(r, in, ev, 1, 0, 1)))
			continue;
		rc = merge_aside(r, ev);
	} while (rc == 2);
	return rc;
}

static __attribute__((noinline)) int next_merge(struct bt_reader *r,
						struct bt_event *ev)
{
	return after_fast(r, r->alone, ev, 0);
}

int bt_reader_next(struct bt_reader *r, struct bt_event *ev)
{
	struct input *in = r->alone;

	if (in && (!in->layout ? fast_as(r, in, ev, 0, 0, 0) :
		   fast_as(r, in, ev, 1, 0, 0)))
		return 1;
	return r->aside ? next_aside(r, ev) : next_merge(r, ev);
}

/* What the short paths leave: the start, the end of inputs, notes, errors. */
static __attribute__((noinline)) int next_slow(struct bt_reader *r,
					       struct bt_event *ev)
{
	struct input *in;
	int rc;

	r->alone = r->lone = r->merged = NULL;
	if (r->err)
		return r->err;
	if (!r->started) {
		rc = prime(r);
		if (rc < 0)
			return rc;
	} else if (r->last) {
		in = r->last;
		r->last = NULL;
		if (r->nheap == 1) {
			rc = next_alone(r, in, ev);
			if (rc)
				return rc;
		} else {
			goto advance;
		}
	}
	for (;;) {
		if (!r->nheap && !next_recording(r))
			return 0;
		in = r->heap[0];
		rc = take_record(r, in, &in->ev, &r->max_time, &r->have_time);
		if (rc < 0)
			return rc;
		if (rc)
			goto advance;
		*ev = in->ev;
		r->last = in;
		if (r->have_time && in->fast && r->nheap > 1)
			r->merged = in;
		r->st.events++;
		return 1;
advance:
		rc = next_record(r, in, &in->ev);
		if (rc < 0)
			return rc;
		if (!rc)
			r->heap[0] = r->heap[--r->nheap];
		if (r->nheap > 1)
			sift_down(r, 0);
	}
}

/* ---------------------------------------------------- input by input */

int bt_reader_next_input(struct bt_reader *r, size_t i, struct bt_event *ev)
{
	struct input *in;
	int rc;

	if (i >= r->nin)
		return -EINVAL;
	/* Its times are the input's, not r->max_time. */
	r->alone = r->lone = r->merged = NULL;
	in = r->in[i];
	if (!r->started) {
		/*
		 * As blkparse's file mode, which drops nothing: copies are
		 * looked for within each input, as if each had a reader.
		 */
		for (size_t k = 0; k < r->nin; k++) {
			r->in[k]->rec = (uint16_t)k;
			bt_dup_hot_init(r, r->in[k]);
		}
		r->started = 1;
	}
	if (in->dead)
		return in->dead;
	for (;;) {
		rc = next_record(r, in, ev);
		if (rc <= 0) {
			in->dead = rc;	/* the end, or the error, stays */
			return rc;
		}
		rc = take_record(r, in, ev, &in->newest, &in->have_time);
		if (rc < 0) {
			in->dead = rc;
			return rc;
		}
		if (rc)
			continue;
		r->st.events++;
		if (!ev_aside(r, ev))
			return 1;
	}
}

int bt_reader_all_empty(struct bt_reader *r)
{
	for (size_t i = 0; i < r->nin; i++)
		if (r->in[i]->base + r->in[i]->end)
			return 0;
	if (!r->nin)
		return 0;
	r->empty = 1;
	return bt_reader_fail(r, r->in[0], 0, -ENODATA, "empty trace");
}

/* ------------------------------------------------------------- queries */

const char *bt_reader_error(const struct bt_reader *r, const char **file,
			    uint64_t *offset)
{
	if (file)
		*file = r->err && r->err_in ? r->err_in->name : NULL;
	if (offset)
		*offset = r->err ? r->err_off : 0;
	return r->err ? r->msg : NULL;
}

int bt_reader_empty(const struct bt_reader *r)
{
	return r->empty;
}

/* r->aside changed: the input read alone goes to the paths for it. */
static void aside_changed(struct bt_reader *r)
{
	struct input *in = r->alone ? r->alone : r->lone;

	r->alone = r->aside ? NULL : in;
	r->lone = r->aside ? in : NULL;
}

void bt_reader_set_actions(struct bt_reader *r, uint32_t mask)
{
	r->aside = ~mask;
	memset(r->cats, 0, sizeof(r->cats));
	aside_changed(r);
}

int bt_reader_set_action(struct bt_reader *r, uint32_t action, uint32_t cats)
{
	if (action >= 32)
		return -EINVAL;
	if (cats == ~0u) {
		r->aside &= ~(1u << action);
	} else {
		r->aside |= 1u << action;
		r->cats[action] = cats;
	}
	aside_changed(r);
	return 0;
}

uint32_t bt_reader_aside_actions(const struct bt_reader *r)
{
	return r->aside_seen;
}

uint64_t bt_reader_aside_time(const struct bt_reader *r)
{
	return r->aside_time;
}

void bt_reader_get_stats(const struct bt_reader *r, struct bt_reader_stats *st)
{
	*st = r->st;
	st->repeats = r->repeats;
	st->recordings = r->nrec > 1 ? r->nrec : 0;
}

/* --------------------------------------------------------- warnings */

static const char *in_name(const struct bt_reader *r, const struct where *w)
{
	return w->input < r->nin ? r->in[w->input]->name : "-";
}

static void warn_recordings(const struct bt_reader *r, char *buf, size_t len)
{
	const char *a = r->in[r->rec_in[0]]->name;
	const char *b = r->in[r->rec_in[1]]->name;
	char more[48] = "";

	if (r->nrec > 2)
		snprintf(more, sizeof(more), " and %u more", r->nrec - 2u);
	if (r->rec_abs)
		snprintf(buf, len, "%s and %s%s are separate recordings, not "
			 "copies: analysed together, merged by the absolute "
			 "time of their TIMESTAMP notes", a, b, more);
	else
		snprintf(buf, len, "%s and %s%s are separate recordings, not "
			 "copies: analysed together, one after the other%s", a,
			 b, more, r->rec_shift_ns ? " (later ones moved in time "
			 "to follow the earlier)" : "");
}

static void warn_dups(const struct bt_reader *r, char *buf, size_t len)
{
	const struct first_seen *f = &r->dup1;
	char orig[200] = "an earlier record";

	if (f->orig.valid)
		snprintf(orig, sizeof(orig), "the record at %s: offset %" PRIu64,
			 in_name(r, &f->orig), f->orig.off);
	snprintf(buf, len, "%" PRIu64 " duplicated records dropped, the first "
		 "at %s: offset %" PRIu64 " (a copy of %s); results are those "
		 "of the trace without the copies", r->st.duplicates,
		 in_name(r, &f->at), f->at.off, orig);
}

const char *bt_reader_warning(const struct bt_reader *r, size_t i, char *buf,
			      size_t len)
{
	const struct first_seen *f;

	if (!len)
		return NULL;
	if (r->nrec > 1 && !i--) {
		warn_recordings(r, buf, len);
		return buf;
	}
	if (r->st.duplicates && !i--) {
		warn_dups(r, buf, len);
		return buf;
	}
	if (r->repeats && r->nrec < 2 && !i--) {
		f = &r->rep1;
		snprintf(buf, len, "%" PRIu64 " records repeat a sequence number "
			 "without being copies, the first at %s: offset %" PRIu64
			 " (cpu %u sequence %u after %u): kept, as a second "
			 "recording or a restarted trace", r->repeats,
			 in_name(r, &f->at), f->at.off, f->cpu, f->seq, f->prev);
		return buf;
	}
	if (r->st.gaps && !i--) {
		f = &r->gap1;
		snprintf(buf, len, "%" PRIu64 " records missing in %" PRIu64
			 " sequence gaps, the first at %s: offset %" PRIu64
			 " (cpu %u sequence %u after %u): not in the input; "
			 "requests with missing events are incomplete",
			 r->st.missing, r->st.gaps, in_name(r, &f->at),
			 f->at.off, f->cpu, f->seq, f->prev);
		return buf;
	}
	if (r->st.backwards && !i--) {
		f = &r->back1;
		snprintf(buf, len, "time went backwards %" PRIu64 " times, the "
			 "first at %s: offset %" PRIu64 " (%" PRIu64 ".%03u us "
			 "before a record read earlier); records are used in "
			 "input order, so intervals across it are off by up to "
			 "that much", r->st.backwards, in_name(r, &f->at),
			 f->at.off, f->delta / 1000, (unsigned)(f->delta % 1000));
		return buf;
	}
	return NULL;
}

void bt_reader_free(struct bt_reader *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nin; i++)
		bt_input_free(r->in[i]);
	free(r->in);
	free(r->heap);
	bt_comm_free(&r->comm);
	bt_map_free(&r->seq_idx);
	free(r->win);
	free(r->win_at);
	free(r);
}
