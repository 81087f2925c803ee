// SPDX-License-Identifier: MIT
/*
 * blkorder.c - the records of a trace in the order blkparse prints them,
 * with the names and time origin it prints them with, in bounded memory:
 *
 * - one input (a stream, `blkparse -q -i - < trace`): batches of 512
 *   events, each sorted by time, device and sequence (ties come out last
 *   read first); times relative to the smallest time of the first batch;
 * - several inputs (a per-CPU set, `blkparse -q -i NAME`): each read 512
 *   events ahead, merged through blkparse's list ordered by next time (on
 *   a tie the input just served stays first); times relative to the
 *   earliest first event.
 *
 * PROCESS notes are applied as they are read ahead, the first name of a
 * pid winning, so an event may take the name of a note that follows it.
 * blkparse's devices (-s) are kept too: device numbers in the order a
 * stream is read, or one per per-CPU set, with the stream's sequence gaps.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define BATCH		512		/* blkparse's rb_batch */
#define BATCH_MAX	8192		/* also cgroup messages, not counted */
#define ARENA_MAX	(4u << 20)	/* payload bytes held for one batch */
#define COMM_LEN	16		/* blkparse keeps 15 chars and a NUL */
#define COMM_HOT	64		/* names cached by pid, a power of two */

struct held {
	struct bt_event ev;
	size_t pdu_off;		/* payload copy in the arena */
	size_t order;		/* read order, for blkparse's tie breaking */
	size_t dev;		/* index in o->devs */
};

/* Records read ahead, with copies of their payloads. */
struct batch {
	struct held *h;		/* BATCH_MAX entries */
	size_t n, pos;		/* held, and next to hand out */
	unsigned char *arena;
	size_t len, cap;
	size_t order;
	uint64_t min;		/* earliest time but cgroup notes' (stream) */
};

/* One input of a merge, in blkparse's list of inputs by next time. */
struct stream {
	size_t in;		/* its index in the reader */
	struct batch b;
	struct stream *next;
	size_t dev;		/* its per-CPU set in o->devs */
	int done;
};

/* Sequence numbers per device and CPU, and blkparse's gaps ("skips"). */
struct skip {
	uint64_t start, end;
};

struct seq_slot {
	uint64_t last;		/* UINT64_MAX before the first record */
	uint32_t dev, cpu;
	struct skip *skips;
	size_t nskips, cap;
};

/*
 * One per device and CPU, in the order they came, indexed by (dev, cpu).
 * The records of a few CPUs alternate: hot keeps the slot (index + 1)
 * each met last, by CPU and device, so most records skip the map.
 */
#define SEQ_HOT		64

struct seqs {
	struct seq_slot *slot;
	size_t n, cap;
	struct bt_map idx;
	uint32_t hot[SEQ_HOT];
};

static inline size_t seq_hot(uint32_t dev, uint32_t cpu)
{
	return (cpu ^ dev ^ dev >> 20) & (SEQ_HOT - 1);
}

struct odev {
	uint32_t dev;
	char name[32];		/* "maj,min", or NAME of a per-CPU set */
};

struct bt_blkorder {
	unsigned flags;		/* BT_FMT_V120 */
	struct bt_reader *r;	/* the caller's reader, read once */
	struct batch b;		/* stream mode */
	int stalled, end;
	struct bt_reader *src;	/* stream mode: r, NULL after a stall */
	/*
	 * The rest of the stream, read at the stall: the reader's events as
	 * it gave them, each followed by its payload, read back through buf
	 * (pos to len holds what is not handed out yet).
	 */
	struct spool {
		FILE *f;
		unsigned char *buf;
		size_t pos, len;
		off_t left;	/* bytes in f not yet in buf */
	} spool;
	int spool_err;		/* r's error that ended the spool, reported after it */
	struct stream *s;	/* merge mode: one per input */
	size_t ns, init;	/* inputs, and inputs read ahead so far */
	struct stream *head, *cur;	/* cur: its event was handed out */
	uint64_t genesis;
	int have_genesis;
	const struct bt_reader *failed;
	struct bt_comm comm;	/* pid -> first name */
	/*
	 * Names by pid as met lately (pid + 1, 0: none), and the name of the
	 * event handed out last, looked up as it goes out: a printer asks
	 * for it once per line.  Any new name empties both (comm may move).
	 */
	struct hot_comm {
		uint64_t pid;
		const char *comm;
	} hot_comm[COMM_HOT];
	uint64_t out_pid;
	const char *out_comm;
	struct seqs seqs;
	struct odev *devs;
	size_t ndevs, devs_cap, last_dev;
	uint32_t *dslot;	/* stream mode: dev hash -> devs index + 1 */
	size_t dslots;
};

/* ------------------------------------------------------ pid -> comm */

const char *bt_blkorder_comm(const struct bt_blkorder *o, uint32_t pid)
{
	if (o->out_pid == (uint64_t)pid + 1)
		return o->out_comm;
	return bt_comm_get(&o->comm, pid);
}

/*
 * Multiplicative hashing of pid + 1 (0 would always land in slot 0):
 * pid 0, which completions carry, and neighbouring pids spread.
 */
static inline size_t comm_slot(uint32_t pid)
{
	return ((pid + 1) * 2654435761u) >> 26;	/* COMM_HOT = 2^6 slots */
}

static const char *comm_hot(struct bt_blkorder *o, uint32_t pid)
{
	struct hot_comm *h = &o->hot_comm[comm_slot(pid)];

	if (h->pid != (uint64_t)pid + 1) {
		h->pid = (uint64_t)pid + 1;
		h->comm = bt_comm_get(&o->comm, pid);
	}
	return h->comm;
}

/* blkparse keeps the first name a pid was given, 15 bytes of it. */
static int comm_set(struct bt_blkorder *o, uint32_t pid, const char *name,
		    size_t n)
{
	memset(o->hot_comm, 0, sizeof(o->hot_comm));
	o->out_pid = 0;
	return bt_comm_set(&o->comm, pid, name, n < COMM_LEN - 1 ? n :
			   COMM_LEN - 1, 1);
}

int bt_blkorder_name(struct bt_blkorder *o, uint32_t pid, const char *name)
{
	return comm_set(o, pid, name, COMM_LEN);
}

/* ------------------------------------------------------------ devices */

static int dev_add(struct bt_blkorder *o, uint32_t dev, const char *name,
		   size_t *idx)
{
	struct odev *d;

	if (bt_array_room(&o->devs, &o->devs_cap, o->ndevs, sizeof(*o->devs),
			  4) < 0)
		return -ENOMEM;
	d = &o->devs[o->ndevs];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	if (name)
		snprintf(d->name, sizeof(d->name), "%s", name);
	else
		snprintf(d->name, sizeof(d->name), "%u,%u", BT_DEV_MAJOR(dev),
			 BT_DEV_MINOR(dev));
	*idx = o->ndevs++;
	return 0;
}

/* A stream's device by number, added in the order they are read. */
static int dev_of(struct bt_blkorder *o, uint32_t dev, size_t *idx)
{
	size_t i, mask;

	if (o->ndevs && o->devs[o->last_dev].dev == dev) {
		*idx = o->last_dev;
		return 0;
	}
	if ((o->ndevs + 1) * 2 > o->dslots) {
		size_t slots = o->dslots ? o->dslots * 2 : 64;
		uint32_t *fresh = calloc(slots, sizeof(*fresh));

		if (!fresh)
			return -ENOMEM;
		free(o->dslot);
		o->dslot = fresh;
		o->dslots = slots;
		for (size_t k = 0; k < o->ndevs; k++) {
			for (i = (o->devs[k].dev * 2654435761u) & (slots - 1);
			     o->dslot[i]; i = (i + 1) & (slots - 1))
				;
			o->dslot[i] = (uint32_t)k + 1;
		}
	}
	mask = o->dslots - 1;
	for (i = (dev * 2654435761u) & mask; o->dslot[i]; i = (i + 1) & mask) {
		if (o->devs[o->dslot[i] - 1].dev == dev) {
			*idx = o->last_dev = o->dslot[i] - 1;
			return 0;
		}
	}
	if (dev_add(o, dev, NULL, idx) < 0)
		return -ENOMEM;
	o->dslot[i] = (uint32_t)*idx + 1;
	o->last_dev = *idx;
	return 0;
}

/* blkparse's file mode has a device per set, named by its NAME. */
static int set_dev(struct bt_blkorder *o, const char *path, size_t *idx)
{
	const char *base = strrchr(path, '/');
	char name[32];
	char *cut;

	snprintf(name, sizeof(name), "%s", base ? base + 1 : path);
	cut = strstr(name, ".blktrace.");
	if (cut)
		*cut = '\0';
	for (size_t i = o->ndevs; i-- > 0;) {
		if (!strcmp(o->devs[i].name, name)) {
			*idx = i;
			return 0;
		}
	}
	return dev_add(o, 0, name, idx);
}

size_t bt_blkorder_devs(const struct bt_blkorder *o)
{
	return o->ndevs;
}

void bt_blkorder_dev(const struct bt_blkorder *o, size_t i,
		     struct bt_blkorder_dev *out)
{
	const struct odev *d = &o->devs[i];

	memset(out, 0, sizeof(*out));
	out->dev = d->dev;
	memcpy(out->name, d->name, sizeof(out->name));
	/* File mode checks no sequence: only a stream has gaps. */
	for (size_t k = 0; !o->s && k < o->seqs.n; k++) {
		const struct seq_slot *q = &o->seqs.slot[k];

		if (q->dev != d->dev)
			continue;
		out->gaps += q->nskips;
		for (size_t j = 0; j < q->nskips; j++)
			out->missing += q->skips[j].end - q->skips[j].start + 1;
	}
}

/* ------------------------------------------------------------ batches */

static int batch_init(struct batch *b)
{
	memset(b, 0, sizeof(*b));
	b->h = malloc(BATCH_MAX * sizeof(*b->h));
	return b->h ? 0 : -ENOMEM;
}

/*
 * Keep the event read into h->ev (read there in place: no copy of the
 * event), with a copy of its payload: the reader's window moves on.  1
 * when the arena moved (the payloads held before need batch_fix()).
 */
static inline int batch_hold(struct batch *b, struct held *h, size_t order,
			     size_t dev)
{
	struct bt_event *e = &h->ev;
	int moved = 0;

	h->order = order;
	h->dev = dev;
	if (!e->pdu_len) {
		e->pdu = NULL;
		return 0;
	}
	if (b->cap - b->len < e->pdu_len) {
		size_t cap = b->cap ? b->cap : 65536;
		unsigned char *a;

		while (cap - b->len < e->pdu_len)
			cap *= 2;
		a = realloc(b->arena, cap);
		if (!a)
			return -ENOMEM;
		moved = a != b->arena;
		b->arena = a;
		b->cap = cap;
	}
	memcpy(b->arena + b->len, e->pdu, e->pdu_len);
	e->pdu = b->arena + b->len;
	h->pdu_off = b->len;
	b->len += e->pdu_len;
	return moved;
}

/* Point the held events at their payload copies (the arena moved). */
static void batch_fix(struct batch *b)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->h[i].ev.pdu_len)
			b->h[i].ev.pdu = b->arena + b->h[i].pdu_off;
}

static void batch_free(struct batch *b)
{
	free(b->h);
	free(b->arena);
}

/*
 * What blkparse does with a record as it reads it: 0 consumed (a note:
 * PROCESS names its pid), 1 held and counted in the batch, 2 held but not
 * counted (cgroup-flagged messages, which 1.2.0 consumes unseen); -ENOMEM.
 */
static int take(struct bt_blkorder *o, const struct bt_event *e)
{
	if (!bt_event_is_note(e))
		return 1;
	/* 1.2.0 compares the whole action word, cgroup bit included. */
	if (e->category != BT_TC_NOTIFY ||
	    (e->has_cgroup && (o->flags & BT_FMT_V120)))
		return 0;
	if (e->action == BT_N_PROCESS)
		return comm_set(o, e->pid, e->pdu ? (const char *)e->pdu : "",
				e->pdu_len);
	if (e->action != BT_N_MESSAGE)
		return 0;
	return e->has_cgroup ? 2 : 1;
}

/*
 * The spool holds the events as the reader gave them, each followed by
 * its payload: nothing to decode, check for copies or order again when
 * they are read back.  Of struct bt_event it keeps the fields but offset
 * and pdu (the offset is not known after the stall: UINT64_MAX), in
 * SPOOL_EV bytes, 12 more than a record's header: 1.3 times the trace's
 * size at most.
 */
#define SPOOL_A		offsetof(struct bt_event, offset)	/* up to it */
#define SPOOL_B		offsetof(struct bt_event, sequence)	/* from it */
#define SPOOL_B_LEN	(offsetof(struct bt_event, input) + \
			 sizeof(((struct bt_event *)0)->input) - SPOOL_B)
#define SPOOL_EV	(SPOOL_A + SPOOL_B_LEN)
_Static_assert(SPOOL_EV == BT_HDR_V7 + 12, "the man page's spool size");
#define SPOOL_REC	(SPOOL_EV + UINT16_MAX)	/* the largest */
#define SPOOL_BUF	(1u << 20)

/* A failed write or read of the spool: -errno, or -EIO if it has none. */
static int spool_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}

/* n bytes of buf to the spool: 0 or -errno. */
static int spool_write(struct spool *sp, size_t n)
{
	errno = 0;
	if (fwrite(sp->buf, 1, n, sp->f) != n)
		return spool_errno();
	return 0;
}

static __attribute__((noinline)) int spool_fill(struct spool *sp)
{
	size_t rest = sp->len - sp->pos, want = SPOOL_BUF - rest;

	memmove(sp->buf, sp->buf + sp->pos, rest);
	sp->pos = 0;
	sp->len = rest;
	if ((off_t)want > sp->left)
		want = (size_t)sp->left;
	errno = 0;
	if (fread(sp->buf + rest, 1, want, sp->f) != want)
		return spool_errno();
	sp->len += want;
	sp->left -= (off_t)want;
	return 0;
}

/* The spool's next event into e: 1, 0 at its end, or -errno. */
static inline int spool_next(struct spool *sp, struct bt_event *e)
{
	int rc;

	if (sp->len - sp->pos < SPOOL_REC && sp->left &&
	    (rc = spool_fill(sp)) < 0)
		return rc;
	if (sp->pos == sp->len)
		return 0;
	if (sp->len - sp->pos < SPOOL_EV)
		return -EIO;
	memcpy(e, sp->buf + sp->pos, SPOOL_A);
	e->offset = UINT64_MAX;
	memcpy((unsigned char *)e + SPOOL_B, sp->buf + sp->pos + SPOOL_A,
	       SPOOL_B_LEN);
	sp->pos += SPOOL_EV;
	if (sp->len - sp->pos < e->pdu_len)
		return -EIO;
	e->pdu = e->pdu_len ? sp->buf + sp->pos : NULL;
	sp->pos += e->pdu_len;
	return 1;
}

/*
 * Read up to a batch: from the stream's source (in SIZE_MAX) or from input
 * in of the reader alone.  *err: 0, or the error that ended the read
 * (o->failed is the reader when it failed).  set: the device of a per-CPU
 * set's records, or SIZE_MAX to look each record's device up.  Inlined
 * in its two callers, each loop keeps only the tests of its own mode.
 */
static inline __attribute__((always_inline))
size_t batch_read(struct bt_blkorder *o, struct batch *b, size_t in,
		  size_t set, int *err)
{
	/* Kept in registers: the reader's calls could change any memory. */
	size_t counted = 0, dev = set, n = 0, order = b->order;
	struct bt_reader *src = o->src;
	int spooled = o->stalled, rc, k, moved = 0;
	uint32_t dev_num = o->ndevs ? o->devs[o->last_dev].dev : 0;
	int have_dev = o->ndevs != 0;
	uint64_t min = UINT64_MAX;

	*err = 0;
	b->pos = b->len = 0;
	if (set == SIZE_MAX && have_dev)
		dev = o->last_dev;
	for (;;) {
		struct held *h = &b->h[n];
		struct bt_event *e = &h->ev;

		if (in != SIZE_MAX)
			rc = bt_reader_next_input(o->r, in, e);
		else if (spooled)
			rc = spool_next(&o->spool, e);
		else
			rc = src ? bt_reader_next(src, e) : 0;
		if (!rc && in == SIZE_MAX && o->spool_err) {
			rc = o->spool_err;	/* r failed after what was spooled */
			o->spool_err = 0;
		} else if (rc < 0 && in == SIZE_MAX && spooled) {
			o->failed = NULL;	/* the spool's own read */
			*err = rc;
			break;
		}
		if (!rc)
			break;
		if (rc < 0) {
			o->failed = o->r;
			*err = rc;
			break;
		}
		k = 1;
		if (bt_event_is_note(e)) {
			k = take(o, e);
			if (!k)
				continue;
		}
		if (k > 0 && set == SIZE_MAX &&
		    !(have_dev && dev_num == e->dev)) {
			k = dev_of(o, e->dev, &dev) < 0 ? -ENOMEM : k;
			dev_num = e->dev;
			have_dev = 1;
		}
		if (k > 0) {
			/* Cgroup notes do not move the origin. */
			if (!(bt_event_is_note(e) && e->has_cgroup) &&
			    e->time < min)
				min = e->time;
			rc = batch_hold(b, h, order, dev);
			if (rc < 0)
				k = rc;
			else
				moved |= rc;
		}
		if (k < 0) {
			o->failed = NULL;
			*err = k;
			break;
		}
		n++;
		order++;
		counted += k == 1;
		if (counted == BATCH || n == BATCH_MAX || b->len > ARENA_MAX)
			break;
	}
	b->n = n;
	b->order = order;
	b->min = min;
	if (moved)
		batch_fix(b);
	return n;
}

static int before(const struct held *a, const struct held *b)
{
	if (a->ev.time != b->ev.time)
		return a->ev.time < b->ev.time;
	if (a->ev.dev != b->ev.dev)
		return a->ev.dev < b->ev.dev;
	if (a->ev.sequence != b->ev.sequence)
		return a->ev.sequence < b->ev.sequence;
	return a->order > b->order;
}

/* Insertion sort: batches are nearly always in order already. */
static void sort_batch(struct held *h, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct held x;
		size_t j = i;

		if (!before(&h[i], &h[i - 1]))
			continue;
		x = h[i];
		while (j && before(&x, &h[j - 1])) {
			h[j] = h[j - 1];
			j--;
		}
		h[j] = x;
	}
}

/* ------------------------------------------------- stream's sequences */

/*
 * blkparse reading a stream prints a record only when it is the next in
 * its device and CPU's sequence (any number for the first).  At the first
 * record that is not, it stops printing until the end of the input, then
 * prints the rest with every note of the trace known, noting the gaps in
 * the sequence as "skips" (-s).  seq_check() follows it: 0 when e stalls
 * the stream; once stalled (force), it records the gaps as blkparse does,
 * quirks included.
 */
static struct seq_slot *seq_slot(struct seqs *t, const struct bt_event *e)
{
	uint32_t *hot = &t->hot[seq_hot(e->dev, e->cpu)];
	uint32_t i = *hot;
	struct seq_slot *q;

	if (i && t->slot[i - 1].dev == e->dev && t->slot[i - 1].cpu == e->cpu)
		return &t->slot[i - 1];
	i = bt_map_get(&t->idx, e->dev, e->cpu);
	if (i) {
		*hot = i;
		return &t->slot[i - 1];
	}
	if (bt_array_room(&t->slot, &t->cap, t->n, sizeof(*t->slot), 16) < 0 ||
	    bt_map_put(&t->idx, e->dev, e->cpu, (uint32_t)(t->n + 1)) < 0)
		return NULL;
	q = &t->slot[t->n++];
	memset(q, 0, sizeof(*q));
	q->last = UINT64_MAX;
	q->dev = e->dev;
	q->cpu = e->cpu;
	*hot = (uint32_t)t->n;
	return q;
}

/* insert_skip(): grow a neighbouring gap or note a new one. */
static int skip_add(struct seq_slot *s, uint64_t start, uint64_t end)
{
	for (size_t k = s->nskips; k-- > 0;) {
		if (end == s->skips[k].start - 1) {
			s->skips[k].start = start;
			return 0;
		}
		if (start == s->skips[k].end + 1) {
			s->skips[k].end = end;
			return 0;
		}
	}
	if (bt_array_room(&s->skips, &s->cap, s->nskips, sizeof(*s->skips),
			  8) < 0)
		return -ENOMEM;
	s->skips[s->nskips].start = start;
	s->skips[s->nskips++].end = end;
	return 0;
}

/* check_current_skips(): a late record fills part of a gap (1), or not. */
static int skip_fill(struct seq_slot *s, uint64_t seq)
{
	for (size_t k = s->nskips; k-- > 0;) {
		struct skip *p = &s->skips[k];

		if (seq < p->start || seq > p->end)
			continue;
		if (p->start == seq && p->end == seq) {
			memmove(p, p + 1, (s->nskips - k - 1) * sizeof(*p));
			s->nskips--;
		} else if (p->start == seq) {
			p->start++;
		} else if (p->end == seq) {
			p->end--;
		} else {
			/* blkparse passes the end it just cut: start > end. */
			p->end = seq - 1;
			return skip_add(s, seq + 1, p->end) < 0 ? -ENOMEM : 1;
		}
		return 1;
	}
	return 0;
}

/* 1 in sequence (or forced), 0 when e stalls the stream, -ENOMEM. */
static int seq_check_any(struct seqs *t, const struct bt_event *e, int force)
{
	struct seq_slot *s = seq_slot(t, e);
	uint64_t expected, seq = e->sequence;
	int rc;

	if (!s)
		return -ENOMEM;
	expected = s->last + 1;
	if (expected && seq != expected) {
		if (!force)
			return 0;
		rc = skip_fill(s, seq);
		if (rc < 0 || (!rc && expected < seq &&
			       skip_add(s, expected, seq - 1) < 0))
			return -ENOMEM;
	}
	s->last = seq;
	return 1;
}

/* seq_check_any(), inline for the next record of a hot slot. */
static inline int seq_check(struct seqs *t, const struct bt_event *e,
			    int force)
{
	uint32_t i = t->hot[seq_hot(e->dev, e->cpu)];

	if (i) {
		struct seq_slot *s = &t->slot[i - 1];

		if (s->dev == e->dev && s->cpu == e->cpu &&
		    (s->last + 1 == 0 || e->sequence == s->last + 1)) {
			s->last = e->sequence;
			return 1;
		}
	}
	return seq_check_any(t, e, force);
}

/*
 * blkparse stalled: the rest prints with the names of every PROCESS note
 * in the trace.  The first name wins, so reading them all now gives those
 * names.  The input is read once (it may be stdin or a FIFO): the rest of
 * its records go to a temporary file as they are read, and the stream
 * goes on from there.  An error that ended the input follows them.
 * The events gather in the spool's buffer, written SPOOL_BUF bytes at a
 * time (a call of fwrite() a record cost as much as encoding it did),
 * and the same buffer reads them back.  0, or -errno of the memory or
 * the temporary file (bt_blkorder_failed() then NULL).
 */
static int spool_rest(struct bt_blkorder *o)
{
	struct spool *sp = &o->spool;
	struct bt_event e;
	size_t used = 0;
	off_t len = 0;
	int rc, wr;

	sp->buf = malloc(SPOOL_BUF);
	if (!sp->buf)
		return -ENOMEM;
	errno = 0;
	sp->f = tmpfile();
	if (!sp->f)
		return spool_errno();
	while ((rc = bt_reader_next(o->r, &e)) > 0) {
		/* names its pid if PROCESS */
		if (bt_event_is_note(&e) && take(o, &e) < 0)
			return -ENOMEM;
		if (SPOOL_BUF - used < SPOOL_REC) {
			if ((wr = spool_write(sp, used)) < 0)
				return wr;
			used = 0;
		}
		memcpy(sp->buf + used, &e, SPOOL_A);
		memcpy(sp->buf + used + SPOOL_A, (unsigned char *)&e + SPOOL_B,
		       SPOOL_B_LEN);
		if (e.pdu_len)
			memcpy(sp->buf + used + SPOOL_EV, e.pdu, e.pdu_len);
		used += SPOOL_EV + e.pdu_len;
		len += (off_t)(SPOOL_EV + e.pdu_len);
	}
	if (used && (wr = spool_write(sp, used)) < 0)
		return wr;
	o->spool_err = rc;	/* the reader's own error, or 0 */
	o->src = NULL;
	sp->pos = sp->len = 0;
	sp->left = len;
	errno = 0;
	if (fflush(sp->f) || fseeko(sp->f, 0, SEEK_SET) < 0)
		return spool_errno();
	return 0;
}

/* ------------------------------------------------------------ handing out */

static inline void hand_out(struct bt_blkorder *o, const struct held *h,
			    struct bt_event *ev, uint64_t *rel, size_t *dev)
{
	*ev = h->ev;
	o->out_comm = comm_hot(o, ev->pid);
	o->out_pid = (uint64_t)ev->pid + 1;
	*rel = ev->time - o->genesis;
	/*
	 * A cgroup message before the first event (1.2.0 does not count
	 * them, so they cannot move the origin) prints at time 0.
	 */
	if (bt_event_is_note(ev) && ev->has_cgroup && ev->time < o->genesis)
		*rel = 0;
	*dev = h->dev;
}

/*
 * A stream's next batch, read and sorted: 1 when it has records, 0 at
 * the end, or the error that ended it (the records read before it are
 * in the batch and follow).
 */
static __attribute__((noinline)) int stream_refill(struct bt_blkorder *o)
{
	struct batch *b = &o->b;
	int err = 0;

	if (o->end)
		return 0;
	if (!batch_read(o, b, SIZE_MAX, SIZE_MAX, &err))
		o->end = 1;
	if (err) {
		o->end = 1;
		if (err == -ENOMEM)
			return err;
	}
	/*
	 * blkparse looks for its origin again while it is 0, so a
	 * `blkparse -d` dump (events from time 0) restarts at 0 every
	 * batch; only --blkparse=1.2 copies that.
	 */
	if (b->min != UINT64_MAX && (!o->have_genesis ||
	    (!o->genesis && (o->flags & BT_FMT_V120)))) {
		o->genesis = b->min;
		o->have_genesis = 1;
	}
	sort_batch(b->h, b->n);
	if (err)
		return err;
	return b->n != 0;
}

/* e is not next in its sequence (rc 0) or there was no memory (< 0). */
static __attribute__((noinline))
int stream_stall(struct bt_blkorder *o, const struct bt_event *e, int rc)
{
	if (!rc) {
		o->stalled = 1;
		rc = spool_rest(o);
		if (!rc)
			rc = seq_check(&o->seqs, e, 1);
	}
	if (rc < 0)
		o->failed = NULL;
	return rc;
}

/* One input: blkparse's pipe mode, batches read and stalls handled apart. */
static inline int next_stream(struct bt_blkorder *o, struct bt_event *ev,
			      uint64_t *rel, size_t *dev)
{
	struct batch *b = &o->b;
	const struct held *h;
	int rc;

	if (b->pos == b->n && (rc = stream_refill(o)) <= 0)
		return rc;
	h = &b->h[b->pos];
	if (!bt_event_is_note(&h->ev) &&
	    (rc = seq_check(&o->seqs, &h->ev, o->stalled)) != 1 &&
	    (rc = stream_stall(o, &h->ev, rc)) < 0)
		return rc;
	b->pos++;
	hand_out(o, h, ev, rel, dev);
	return 1;
}

static uint64_t peek(const struct stream *s)
{
	return s->b.h[s->b.pos].ev.time;
}

/* Insert s before the first input whose next event is not earlier. */
static void ms_insert(struct stream **head, struct stream *s)
{
	struct stream *p = *head;

	if (!p || peek(s) < peek(p)) {
		s->next = p;
		*head = s;
		return;
	}
	while (p->next && peek(p->next) < peek(s))
		p = p->next;
	s->next = p->next;
	p->next = s;
}

/* 1 while s has records; *err as batch_read's. */
static int ms_fill(struct bt_blkorder *o, struct stream *s, int *err)
{
	*err = 0;
	if (!s->done && !batch_read(o, &s->b, s->in, s->dev, err))
		s->done = 1;
	return !s->done;
}

/* Several inputs: blkparse's file mode (`blkparse -i NAME`). */
static __attribute__((noinline))
int next_merge(struct bt_blkorder *o, struct bt_event *ev, uint64_t *rel,
	       size_t *dev)
{
	struct stream *x = o->cur;
	int err = 0, priming = o->init < o->ns;

	/* The record handed out last is done with: its input moves on. */
	if (x) {
		o->cur = NULL;
		if (++x->b.pos == x->b.n && !ms_fill(o, x, &err)) {
			o->head = x->next;
		} else if (x->next && peek(x) > peek(x->next)) {
			o->head = x->next;
			ms_insert(&o->head, x);
		}
		if (err)
			return err;
	}
	while (o->init < o->ns) {
		x = &o->s[o->init++];
		if (ms_fill(o, x, &err))
			ms_insert(&o->head, x);
		if (o->init == o->ns && o->head)
			o->genesis = peek(o->head);
		if (err)
			return err;
	}
	/* An idle CPU's empty file ends at once; all empty is an error. */
	if (priming && !o->head && bt_reader_all_empty(o->r) < 0) {
		o->failed = o->r;
		return -ENODATA;
	}
	if (!(x = o->head))
		return 0;
	o->cur = x;
	hand_out(o, &x->b.h[x->b.pos], ev, rel, dev);
	return 1;
}

/* ------------------------------------------------------------ object */

int bt_blkorder_new(struct bt_blkorder **out, struct bt_reader *r,
		    unsigned flags, const char **bad_input)
{
	struct bt_blkorder *o = calloc(1, sizeof(*o));
	size_t n = bt_reader_inputs(r);
	int rc = 0;

	*out = NULL;
	*bad_input = NULL;
	if (!o)
		return -ENOMEM;
	o->flags = flags;
	o->r = o->src = r;
	bt_comm_init(&o->comm, SIZE_MAX);	/* as blkparse: every pid */
	if (n <= 1) {
		rc = batch_init(&o->b);
		goto done;
	}
	o->s = calloc(n, sizeof(*o->s));
	if (!o->s) {
		rc = -ENOMEM;
		goto done;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		struct stream *s = &o->s[o->ns++];

		s->in = i;
		rc = batch_init(&s->b);
		if (!rc)
			rc = set_dev(o, bt_reader_input_name(r, i), &s->dev);
	}
done:
	if (rc < 0) {
		bt_blkorder_free(o);
		return rc;
	}
	*out = o;
	return 0;
}

static __attribute__((noinline))
int next_any(struct bt_blkorder *o, struct bt_event *ev, uint64_t *rel,
	     size_t *dev)
{
	return o->s ? next_merge(o, ev, rel, dev) : next_stream(o, ev, rel, dev);
}

/*
 * A merge's next record when the input served last has it and it is no
 * later than the next input's: that input stays first.  Else, or for a
 * note or a pid not in the hot name cache, next_merge() from the start.
 */
static __attribute__((noinline))
int next_merge_fast(struct bt_blkorder *o, struct bt_event *ev, uint64_t *rel,
		    size_t *dev)
{
	struct stream *x = o->cur;
	const struct held *h;
	const struct hot_comm *c;
	uint32_t pid;

	if (!x || o->init < o->ns || x->b.pos + 1 >= x->b.n)
		return next_merge(o, ev, rel, dev);
	h = &x->b.h[x->b.pos + 1];
	pid = h->ev.pid;
	c = &o->hot_comm[comm_slot(pid)];
	if ((x->next && h->ev.time > peek(x->next)) ||
	    bt_event_is_note(&h->ev) || c->pid != (uint64_t)pid + 1)
		return next_merge(o, ev, rel, dev);
	x->b.pos++;
	*ev = h->ev;
	o->out_comm = c->comm;
	o->out_pid = (uint64_t)pid + 1;
	*rel = h->ev.time - o->genesis;
	*dev = h->dev;
	return 1;
}

/*
 * A stream's next record when it is plainly next: held, next in its hot
 * sequence slot, its pid's name in the hot cache, not a note.  Nothing
 * is changed until all of that is known, so anything else goes to
 * next_any() from the start; without calls, this path saves no
 * registers.
 */
int bt_blkorder_next(struct bt_blkorder *o, struct bt_event *ev,
		     uint64_t *rel, size_t *dev)
{
	struct batch *b = &o->b;
	const struct held *h;
	const struct hot_comm *c;
	struct seq_slot *s;
	uint32_t i, pid;

	o->failed = NULL;
	if (o->s)
		return next_merge_fast(o, ev, rel, dev);
	if (b->pos == b->n)
		return next_any(o, ev, rel, dev);
	h = &b->h[b->pos];
	pid = h->ev.pid;
	i = o->seqs.hot[seq_hot(h->ev.dev, h->ev.cpu)];
	c = &o->hot_comm[comm_slot(pid)];
	if (bt_event_is_note(&h->ev) || !i || c->pid != (uint64_t)pid + 1)
		return next_any(o, ev, rel, dev);
	s = &o->seqs.slot[i - 1];
	if (s->dev != h->ev.dev || s->cpu != h->ev.cpu ||
	    (s->last + 1 != 0 && h->ev.sequence != s->last + 1))
		return next_any(o, ev, rel, dev);
	s->last = h->ev.sequence;
	b->pos++;
	*ev = h->ev;
	o->out_comm = c->comm;
	o->out_pid = (uint64_t)pid + 1;
	*rel = h->ev.time - o->genesis;
	*dev = h->dev;
	return 1;
}

const struct bt_reader *bt_blkorder_failed(const struct bt_blkorder *o)
{
	return o->failed;
}

void bt_blkorder_get_stats(const struct bt_blkorder *o,
			   struct bt_reader_stats *st)
{
	bt_reader_get_stats(o->r, st);
}

void bt_blkorder_free(struct bt_blkorder *o)
{
	if (!o)
		return;
	batch_free(&o->b);
	for (size_t i = 0; i < o->ns; i++)
		batch_free(&o->s[i].b);
	free(o->spool.buf);
	if (o->spool.f)
		fclose(o->spool.f);
	free(o->s);
	for (size_t i = 0; i < o->seqs.n; i++)
		free(o->seqs.slot[i].skips);
	free(o->seqs.slot);
	bt_map_free(&o->seqs.idx);
	bt_comm_free(&o->comm);
	free(o->devs);
	free(o->dslot);
	free(o);
}
