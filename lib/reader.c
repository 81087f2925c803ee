// SPDX-License-Identifier: MIT
/*
 * reader.c - stream blktrace records from any number of inputs (input.c
 * supplies their bytes) and merge them by time.  The format is decided per
 * input at its first record: byte order from the magic, the 64-byte
 * header of version 8 (or of newer `blkparse -d` dumps behind a version-7
 * magic), and the 16-byte context prefix of tracefs captures.  Records are
 * checked before their lengths are trusted; the first bad one stops the
 * reader with its input, offset and a message.  Repeated records (the same
 * trace given twice) are dropped, and PROCESS notes fill a pid -> comm table.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "reader_int.h"

/* ------------------------------------------------------------- errors */

int bt_reader_fail(struct bt_reader *r, struct input *in, uint64_t off,
		   int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	r->err = err;
	r->err_in = in;
	r->err_off = off;
	return err;
}

/* ------------------------------------------------------------- reader */

int bt_reader_new(struct bt_reader **out)
{
	struct bt_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	*out = r;
	return 0;
}

/* ------------------------------------------------------------ records */

static inline int magic_ok(uint32_t m)
{
	return (m & BT_MAGIC_MASK) == BT_MAGIC;
}

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
			uint64_t a = bt_ld64(h + 32, in->swap);

			act = (uint32_t)(a & 0xffff);
			cat = (uint32_t)(a >> 16);
			plen = bt_ld16(h + 50, in->swap);
		} else {
			uint32_t a = bt_ld32(h + 28, in->swap);

			act = a & 0xffff;
			cat = a >> 16;
			plen = bt_ld16(h + 46, in->swap);
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

/* Byte order, prefix and header size from the first record. */
static int detect(struct bt_reader *r, struct input *in)
{
	const unsigned char *p;
	ssize_t avail;
	size_t need, n46, n50, a;
	uint32_t m;

	avail = bt_input_fill_slow(r, in, CTX_LEN + BT_HDR_V8 + 4, 1);
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
		return bt_reader_fail(r, in, in->base + in->pos, -EBADMSG,
			    "bad magic 0x%08x", m);
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
	n46 = bt_ld16(p + in->ctx + 46, in->swap);
	n50 = bt_ld16(p + in->ctx + 50, in->swap);
	need = 2 * in->ctx + BT_HDR_V8 + (n46 > n50 ? n46 : n50) + 4;
	avail = bt_input_fill_slow(r, in, need, 1);
	if (avail < 0)
		return (int)avail;
	p = in->data + in->pos;
	a = (size_t)avail;
	if (chain(in, p, a, 1) > chain(in, p, a, 0))
		in->wide7 = 1;
	return 0;
}

static void comm_set(struct bt_reader *r, uint32_t pid, const unsigned char *s,
		     size_t len);

/*
 * Decode the header at p (past any prefix).  swap and wide are constants
 * at each call site so the compiler makes one straight path per layout.
 */
static inline __attribute__((always_inline)) void
decode(struct bt_event *e, const unsigned char *p, int swap, int wide)
{
	e->sequence = bt_ld32(p + 4, swap);
	e->time = bt_ld64(p + 8, swap);
	e->sector = bt_ld64(p + 16, swap);
	e->bytes = bt_ld32(p + 24, swap);
	if (wide) {
		uint64_t act = bt_ld64(p + 32, swap);

		e->pid = bt_ld32(p + 28, swap);
		e->action = (uint32_t)(act & 0xffff);
		e->category = (uint32_t)(act >> 16);
		e->dev = bt_ld32(p + 40, swap);
		e->cpu = bt_ld32(p + 44, swap);
		e->error = bt_ld16(p + 48, swap);
		e->pdu_len = bt_ld16(p + 50, swap);
	} else {
		uint32_t act = bt_ld32(p + 28, swap);

		e->action = act & 0xffff;
		e->category = act >> 16;
		e->pid = bt_ld32(p + 32, swap);
		e->dev = bt_ld32(p + 36, swap);
		e->cpu = bt_ld32(p + 40, swap);
		e->error = bt_ld16(p + 44, swap);
		e->pdu_len = bt_ld16(p + 46, swap);
	}
}

/*
 * Read the input's next record into in->ev.  1: a record, 0: the end of
 * the input, < 0: error (recorded in r).
 */
static int advance(struct bt_reader *r, struct input *in)
{
	struct bt_event *e = &in->ev;
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
	avail = bt_input_fill(r, in, in->ctx + BT_HDR_V7);
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
		avail = bt_input_fill(r, in, hdr);
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
		avail = bt_input_fill(r, in, total);
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
	e->version = (uint8_t)ver;
	e->offset = in->base + start;
	e->input = in->index;
	e->pdu = e->pdu_len ? p + (hdr - in->ctx) : NULL;
	e->has_cgroup = 0;
	e->cgroup = 0;
	if (e->action & BT_A_CGROUP) {
		e->action &= ~BT_A_CGROUP;
		if (e->pdu_len >= 8) {
			e->cgroup = bt_ld64(e->pdu, in->swap);
			e->has_cgroup = 1;
			e->pdu_len -= 8;
			e->pdu = e->pdu_len ? e->pdu + 8 : NULL;
		}
	}
	in->pos = start + total;
	r->st.bytes += total;
	if (e->category & BT_TC_NOTIFY) {
		if (e->action == BT_N_PROCESS && e->pdu_len)
			comm_set(r, e->pid, e->pdu, e->pdu_len);
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

truncated:
	if (in->gz_trunc)
		return bt_reader_fail(r, in, in->base + start, -ENODATA,
			    "truncated gzip data");
	return bt_reader_fail(r, in, in->base + start, -ENODATA,
		    "truncated record: %zu bytes", (size_t)avail);
}

/* --------------------------------------------------------- pid -> comm */

static inline size_t pid_hash(uint32_t pid, size_t slots)
{
	return (size_t)((pid * 0x9e3779b1u) & (slots - 1));
}

static struct comm_slot *comm_find(const struct bt_reader *r, uint32_t pid)
{
	size_t i;

	if (!r->comm)
		return NULL;
	for (i = pid_hash(pid, r->comm_slots);; i = (i + 1) & (r->comm_slots - 1)) {
		struct comm_slot *s = &r->comm[i];

		if (!s->used || s->pid == pid)
			return s;
	}
}

static int comm_grow(struct bt_reader *r)
{
	size_t slots = r->comm_slots ? r->comm_slots * 2 : 256, i;
	struct comm_slot *old = r->comm, *s;
	size_t oslots = r->comm_slots;

	if (slots > COMM_MAX_SLOTS)
		return -ENOSPC;
	r->comm = calloc(slots, sizeof(*r->comm));
	if (!r->comm) {
		r->comm = old;
		return -ENOMEM;
	}
	r->comm_slots = slots;
	for (i = 0; i < oslots; i++) {
		if (!old[i].used)
			continue;
		s = comm_find(r, old[i].pid);
		*s = old[i];
	}
	free(old);
	return 0;
}

/*
 * At most COMM_MAX_SLOTS / 2 distinct pids are remembered; later new pids
 * go unnamed rather than growing memory with the trace.
 */
static void comm_set(struct bt_reader *r, uint32_t pid, const unsigned char *s,
		     size_t len)
{
	struct comm_slot *c;
	size_t n;

	if ((r->comm_used + 1) * 2 > r->comm_slots) {
		c = comm_find(r, pid);
		if (!c || !c->used) {
			if (comm_grow(r))
				return;
		}
	}
	c = comm_find(r, pid);
	if (!c->used) {
		c->used = 1;
		c->pid = pid;
		r->comm_used++;
	}
	n = len < 16 ? len : 16;
	n = strnlen((const char *)s, n);
	memcpy(c->comm, s, n);
	c->comm[n] = '\0';
}

const char *bt_reader_comm(const struct bt_reader *r, uint32_t pid)
{
	const struct comm_slot *c = comm_find(r, pid);

	return c && c->used ? c->comm : NULL;
}

/* --------------------------------------------------------- duplicates */

static struct seq_slot *seq_find(struct bt_reader *r, uint32_t dev,
				  uint32_t cpu, int insert)
{
	uint64_t key = ((uint64_t)dev << 32 | cpu) + 1;
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 54) & (SEQ_SLOTS - 1);

	if (!key)
		return NULL;	/* the one key that would read as empty */
	for (;; i = (i + 1) & (SEQ_SLOTS - 1)) {
		struct seq_slot *s = &r->seq[i];

		if (s->key == key)
			return s;
		if (!s->key) {
			if (!insert || r->seq_used * 4 >= SEQ_SLOTS * 3)
				return NULL;
			s->key = key;
			r->seq_used++;
			return s;
		}
	}
}

/*
 * Sequences count up per device and CPU; a repeated or older one means
 * the same records were given twice.  Keys past the table's capacity are
 * not checked.
 */
static int is_duplicate(struct bt_reader *r, const struct bt_event *e)
{
	struct seq_slot *s = r->seq_hot;

	/* Runs of one device and CPU are the rule: skip the hash then. */
	if (!s || s->key != (((uint64_t)e->dev << 32 | e->cpu) + 1)) {
		s = seq_find(r, e->dev, e->cpu, 1);
		if (!s)
			return 0;
		r->seq_hot = s;
	}
	if (e->sequence <= s->last) {
		s->dup_run = 1;
		return 1;
	}
	s->last = e->sequence;
	s->dup_run = 0;
	if (e->time > s->max_time)
		s->max_time = e->time;
	return 0;
}

/*
 * Notes have no sequence of their own.  One met while its CPU's events
 * are being dropped as repeats, and no newer than what that CPU already
 * delivered (events and notes), belongs to the repeated copy.  (blkparse -d dumps keep raw
 * note times, larger than the relative event times: never dropped.)
 */
static int note_is_duplicate(struct bt_reader *r, const struct bt_event *e)
{
	struct seq_slot *s = seq_find(r, e->dev, e->cpu, 0);

	if (!s)
		return 0;
	if (s->dup_run && e->time <= s->max_time)
		return 1;
	if (e->time > s->max_time)
		s->max_time = e->time;
	return 0;
}

/*
 * Records without a sequence (tracefs captures) can only be recognised
 * as repeated when they follow each other: everything equal, to the ns.
 */
static int same_as_prev(struct bt_reader *r, const struct bt_event *e)
{
	struct prev_ev *p = &r->prev;

	if (p->valid && p->time == e->time && p->sector == e->sector &&
	    p->bytes == e->bytes && p->action == e->action &&
	    p->category == e->category && p->pid == e->pid &&
	    p->dev == e->dev && p->cpu == e->cpu)
		return 1;
	p->valid = 1;
	p->time = e->time;
	p->sector = e->sector;
	p->bytes = e->bytes;
	p->action = e->action;
	p->category = e->category;
	p->pid = e->pid;
	p->dev = e->dev;
	p->cpu = e->cpu;
	return 0;
}

/* -------------------------------------------------------------- merge */

static inline int before(const struct input *a, const struct input *b)
{
	if (a->ev.time != b->ev.time)
		return a->ev.time < b->ev.time;
	return a->index < b->index;
}

static void sift_down(struct bt_reader *r, size_t i)
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

static int prime(struct bt_reader *r)
{
	size_t i;
	int rc;

	r->started = 1;
	for (i = 0; i < r->nin; i++) {
		rc = advance(r, r->in[i]);
		if (rc < 0)
			return rc;
		if (rc)
			r->heap[r->nheap++] = r->in[i];
	}
	/*
	 * A CPU that did nothing leaves an empty NAME.blktrace.N, so one
	 * empty input is normal; no bytes in any input is bad input.
	 */
	if (!r->nheap && r->nin) {
		r->empty = 1;
		return bt_reader_fail(r, r->in[0], 0, -ENODATA, "empty trace");
	}
	for (i = r->nheap / 2; i-- > 0;)
		sift_down(r, i);
	return 0;
}

int bt_reader_next(struct bt_reader *r, struct bt_event *ev)
{
	struct input *in;
	int rc;

	if (r->err)
		return r->err;
	if (!r->started) {
		rc = prime(r);
		if (rc < 0)
			return rc;
	} else if (r->last) {
		in = r->last;
		r->last = NULL;
		goto advance;
	}
	for (;;) {
		if (!r->nheap)
			return 0;
		in = r->heap[0];
		if (in->ev.category & BT_TC_NOTIFY) {
			if (note_is_duplicate(r, &in->ev)) {
				r->st.duplicates++;
				goto advance;
			}
		} else {
			const struct bt_event *e = &in->ev;

			if (e->sequence ? is_duplicate(r, e) : same_as_prev(r, e)) {
				r->st.duplicates++;
				goto advance;
			}
			if (r->have_time && e->time < r->max_time)
				r->st.backwards++;
			else
				r->max_time = e->time;
			r->have_time = 1;
		}
		*ev = in->ev;
		r->last = in;
		r->st.events++;
		return 1;
advance:
		rc = advance(r, in);
		if (rc < 0)
			return rc;
		if (!rc)
			r->heap[0] = r->heap[--r->nheap];
		if (r->nheap > 1)
			sift_down(r, 0);
	}
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

void bt_reader_get_stats(const struct bt_reader *r, struct bt_reader_stats *st)
{
	*st = r->st;
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
	free(r->comm);
	free(r);
}
