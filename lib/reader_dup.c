// SPDX-License-Identifier: MIT
/*
 * reader_dup.c - which records the reader drops as duplicates.  A
 * duplicate is a record equal in every field (payload included) to one
 * already read: the same trace given twice, or a dump holding every record
 * four times.  Separate recordings whose (device, cpu, sequence) keys
 * repeat are no duplicates.  Memory stays bounded: per device and CPU the
 * first and last sequenced records, and a window of recent notes and
 * sequence-less records by fingerprint.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "reader_int.h"

static inline uint64_t fp_mix(uint64_t h, uint64_t v, uint64_t k)
{
	h = (h ^ v) * k;
	return h << 31 | h >> 33;
}

/* Two lanes, so the multiplications of a long payload overlap. */
uint64_t bt_dup_fingerprint(const struct bt_event *e)
{
	const uint64_t k1 = 0x9e3779b97f4a7c15ull, k2 = 0xc2b2ae3d27d4eb4full;
	uint64_t a = e->time, b = e->sector, v, w;
	size_t i;

	a = fp_mix(a, (uint64_t)e->sequence << 32 | e->bytes, k1);
	b = fp_mix(b, (uint64_t)e->action << 32 | e->category, k2);
	a = fp_mix(a, (uint64_t)e->pid << 32 | e->dev, k2);
	b = fp_mix(b, (uint64_t)e->cpu << 32 | (uint64_t)e->error << 16 |
		   e->pdu_len, k1);
	a = fp_mix(a, e->cgroup ^ (uint64_t)e->has_cgroup << 63, k1);
	for (i = 0; i + 16 <= e->pdu_len; i += 16) {
		memcpy(&v, e->pdu + i, 8);
		memcpy(&w, e->pdu + i + 8, 8);
		a = fp_mix(a, v, k1);
		b = fp_mix(b, w, k2);
	}
	if (i < e->pdu_len) {
		unsigned char tail[16] = { 0 };

		memcpy(tail, e->pdu + i, e->pdu_len - i);
		memcpy(&v, tail, 8);
		memcpy(&w, tail + 8, 8);
		a = fp_mix(a, v, k2);
		b = fp_mix(b, w, k1);
	}
	a ^= b * k1;
	a ^= a >> 29;
	a *= 0xbf58476d1ce4e5b9ull;
	a ^= a >> 32;
	return a ? a : 1;
}

static struct seq_slot *seq_find(struct bt_reader *r, uint16_t rec,
				  uint32_t dev, uint32_t cpu, int insert)
{
	uint64_t key = ((uint64_t)dev << 32 | cpu) + 1;
	uint32_t i = bt_map_get(&r->seq_idx, key, rec);
	struct seq_slot *s;

	if (i)
		return &r->seq[i - 1];
	if (!insert || r->seq_used >= SEQ_MAX ||
	    bt_map_put(&r->seq_idx, key, rec, (uint32_t)(r->seq_used + 1)) < 0)
		return NULL;
	s = &r->seq[r->seq_used++];
	s->key = key;
	s->dc = bt_dup_dc(dev, cpu);
	s->rec = rec;
	return s;
}

/* seq_find() through the input's cache of recently used slots. */
static inline struct seq_slot *seq_get(struct bt_reader *r, struct input *in,
				       uint32_t dev, uint32_t cpu)
{
	uint64_t key = ((uint64_t)dev << 32 | cpu) + 1;
	struct seq_slot **hot = bt_dup_hot(in, bt_dup_dc(dev, cpu));
	struct seq_slot *s = *hot;

	if (s != &r->seq_none && s->key == key && s->rec == in->rec)
		return s;
	s = seq_find(r, in->rec, dev, cpu, 1);
	if (s)
		*hot = s;
	return s;
}

static void first_dup(struct bt_reader *r, const struct bt_event *e,
		      const struct where *orig)
{
	if (r->dup1.at.valid)
		return;
	r->dup1.at = where_of(e);
	if (orig)
		r->dup1.orig = *orig;
}

/*
 * A sequenced event: 1 when it is a copy of one already delivered.  Its
 * payload (a remap's, an unplug's) is not compared: with the same key,
 * time and every other field a different payload cannot happen.
 */
int bt_dup_sequenced(struct bt_reader *r, struct input *in,
		     const struct bt_event *e)
{
	struct seq_slot *s = seq_get(r, in, e->dev, e->cpu);

	if (!s)
		return 0;
	if (!s->last || e->sequence > s->last) {
		if (s->last && e->sequence != s->last + 1 && !s->replay &&
		    !r->gap1.at.valid) {
			r->gap1.at = where_of(e);
			r->gap1.seq = e->sequence;
			r->gap1.prev = s->last;
			r->gap1.cpu = e->cpu;
		}
		if (s->last && e->sequence != s->last + 1)
			r->st.gaps++, r->st.missing += e->sequence - s->last - 1;
		if (!s->last) {
			s->first = e->sequence;
			bt_rec_id_of(&s->first_id, e);
			s->first_at = where_of(e);
		}
		bt_dup_remember(s, e);
		return 0;
	}
	/* The sequence was seen: a copy only when the record is the same. */
	if (e->sequence == s->last && bt_rec_id_eq(&s->last_id, e)) {
		s->last_at.valid = 1;
		first_dup(r, e, &s->last_at);
		return 1;
	}
	/*
	 * A copy of the whole trace read after it: its first record equals
	 * the original's first, and the copy then runs in sequence.
	 */
	if (s->replay && e->sequence > s->replay_seq) {
		s->replay_seq = e->sequence;
		return 1;
	}
	if (e->sequence == s->first && bt_rec_id_eq(&s->first_id, e)) {
		s->replay = 1;
		s->replay_seq = e->sequence;
		first_dup(r, e, &s->first_at);
		return 1;
	}
	s->replay = 0;
	r->repeats++;
	if (!r->rep1.at.valid) {
		r->rep1.at = where_of(e);
		r->rep1.seq = e->sequence;
		r->rep1.prev = s->last;
		r->rep1.cpu = e->cpu;
	}
	return 0;
}

/* The fingerprint's place in the window, or NULL. */
static const uint64_t *win_find(const struct bt_reader *r, uint64_t fp)
{
	for (unsigned g = 0; g < 2; g++) {
		const uint64_t *t = r->win + g * WIN_SLOTS;

		for (size_t i = fp & (WIN_SLOTS - 1); t[i];
		     i = (i + 1) & (WIN_SLOTS - 1))
			if (t[i] == fp)
				return &t[i];
	}
	return NULL;
}

static void win_insert(struct bt_reader *r, uint64_t fp,
		       const struct bt_event *e)
{
	uint64_t *t;
	size_t i;

	if (r->win_n == WIN_GEN) {
		/* The older generation goes; the current one becomes it. */
		r->win_cur ^= 1;
		memset(r->win + r->win_cur * WIN_SLOTS, 0,
		       WIN_SLOTS * sizeof(*r->win));
		r->win_n = 0;
	}
	t = r->win + r->win_cur * WIN_SLOTS;
	for (i = fp & (WIN_SLOTS - 1); t[i]; i = (i + 1) & (WIN_SLOTS - 1))
		;
	t[i] = fp;
	r->win_at[t + i - r->win] = e->offset << 16 | e->input;
	r->win_n++;
}

/* Records of separate recordings are never copies of each other. */
static inline uint64_t fp_of(const struct input *in, const struct bt_event *e)
{
	uint64_t fp = bt_dup_fingerprint(e) ^
		      (uint64_t)in->rec * 0x9e3779b97f4a7c15ull;

	return fp + !fp;
}

void bt_dup_unsequenced_newer(struct bt_reader *r, struct input *in,
			      struct seq_slot *s, const struct bt_event *e)
{
	s->max_time = e->time;
	win_insert(r, fp_of(in, e), e);
}

/*
 * A note or a sequence-less record (tracefs): 1 when it equals one of
 * the recent window.  A copy is never newer than what its device and CPU
 * delivered already (its original came first), so a newer record skips
 * the search.  A note met while its CPU's events are a copy being
 * replayed, and no newer than what that CPU delivered, belongs to the
 * copy too: its original is further back than the window reaches.
 * (blkparse -d dumps keep raw note times, larger than the relative event
 * times: those notes are only ever dropped by the window.)
 */
int bt_dup_unsequenced(struct bt_reader *r, struct input *in,
		       const struct bt_event *e)
{
	struct seq_slot *s;
	const uint64_t *w;
	uint64_t fp;

	if (!r->win) {
		r->win = calloc(2 * WIN_SLOTS, sizeof(*r->win));
		r->win_at = malloc(2 * WIN_SLOTS * sizeof(*r->win_at));
		if (!r->win || !r->win_at) {
			free(r->win);
			free(r->win_at);
			r->win = r->win_at = NULL;
			return -ENOMEM;
		}
	}
	s = seq_get(r, in, e->dev, e->cpu);
	fp = fp_of(in, e);
	if (!s || e->time <= s->max_time) {
		if ((w = win_find(r, fp))) {
			if (!r->dup1.at.valid) {
				uint64_t at = r->win_at[w - r->win];
				struct where orig = { at >> 16, (uint16_t)at, 1 };

				first_dup(r, e, &orig);
			}
			return 1;
		}
		if (s && s->replay && bt_event_is_note(e)) {
			first_dup(r, e, NULL);
			return 1;
		}
	} else {
		s->max_time = e->time;
	}
	win_insert(r, fp, e);
	return 0;
}
