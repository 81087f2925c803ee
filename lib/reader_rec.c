// SPDX-License-Identifier: MIT
/*
 * reader_rec.c - which inputs given together are one recording (a per-CPU
 * set, copies of one trace) and which are separate ones, decided once at
 * the start from what the head of each input says: its TIMESTAMP note
 * and its first event.  Separate recordings are put on one clock by their
 * TIMESTAMP notes when all have one, else read one after the other
 * (reader.c's next_recording()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "reader_int.h"

/* Decode the whole record at pos of the window, as advance() would. */
static int peek_record(const struct input *in, size_t pos, struct bt_event *e)
{
	const unsigned char *p = in->data + pos + in->ctx;
	size_t avail = in->end - pos, hdr;
	uint32_t m;
	int wide;

	if (avail < in->ctx + BT_HDR_V7)
		return 0;
	m = bt_ld32(p, in->swap);
	if (!magic_ok(m))
		return 0;
	wide = (m & 0xff) == BT_VERSION_8 || in->wide7;
	hdr = in->ctx + (wide ? BT_HDR_V8 : BT_HDR_V7);
	if (avail < hdr)
		return 0;
	decode(e, p, in->swap, wide);
	if (avail < hdr + e->pdu_len)
		return 0;
	bt_rec_payload(e, p + (hdr - in->ctx), in->swap);
	return (int)(hdr + e->pdu_len);
}

/* Look at the records already in the input's window, consuming none. */
void bt_rec_scan_head(const struct input *in, struct rec_head *h)
{
	struct bt_event t;
	const struct bt_event *e = &in->ev;
	size_t pos = in->pos;
	int swap = 0;		/* in->ev's TIMESTAMP is in host order */

	memset(h, 0, sizeof(*h));
	for (int n = 0; n < 4096; n++) {
		if (!bt_event_is_note(e)) {
			h->has_ev = 1;
			h->ev_fp = bt_dup_fingerprint(e);
			h->ev_time = e->time;
			h->ev_dev = e->dev;
			h->ev_cpu = e->cpu;
			return;
		}
		if (e->action == BT_N_TIMESTAMP && e->pdu_len >= 8 &&
		    !h->has_ts) {
			h->has_ts = 1;
			h->ts_time = e->time;
			h->ts_sec = bt_ld32(e->pdu, swap);
			h->ts_nsec = bt_ld32(e->pdu + 4, swap);
		}
		int len = peek_record(in, pos, &t);

		if (!len)
			return;
		pos += (size_t)len;
		e = &t;
		swap = in->swap;
	}
}

/* 1: separate recordings, 0: the same one (copies), -1: cannot tell. */
static int separate(const struct rec_head *a, const struct rec_head *b)
{
	if (a->has_ts && b->has_ts)
		return a->ts_time != b->ts_time || a->ts_sec != b->ts_sec ||
		       a->ts_nsec != b->ts_nsec;
	if (a->has_ev && b->has_ev) {
		if (a->ev_fp == b->ev_fp)
			return 0;
		/* Per-CPU files of one recording start on different CPUs. */
		if (a->ev_dev == b->ev_dev && a->ev_cpu == b->ev_cpu)
			return 1;
	}
	return -1;
}

/*
 * Inputs given together are one recording (a per-CPU set, copies), or
 * several.  Separate recordings are merged by absolute time when each
 * carries a TIMESTAMP note, else read one after the other.  Inputs with
 * no record are left out (heads[i].has_ev and has_ts both 0).
 */
int bt_rec_group(struct bt_reader *r, const struct rec_head *heads,
		 const int *live)
{
	uint16_t *rep = calloc(r->nin, sizeof(*rep));
	const struct rec_head **ts = calloc(r->nin, sizeof(*ts));
	uint16_t n = 0, k;
	int all_ts = 1;
	int64_t base = INT64_MAX, *abs_ns;

	if (!rep || !ts) {
		free(rep);
		free(ts);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->nin; i++) {
		struct input *in = r->in[i];

		size_t j = i;

		if (!live[i])
			continue;
		/* A per-CPU set's files are added together: look back. */
		while (j-- > 0 && r->in[j]->set == in->set && !live[j])
			;
		if (j < i && r->in[j]->set == in->set && live[j]) {
			in->rec = r->in[j]->rec;
		} else {
			for (k = 0; k < n; k++)
				if (separate(&heads[rep[k]], &heads[i]) != 1)
					break;
			if (k == n && n < UINT16_MAX) {
				rep[n++] = (uint16_t)i;
				if (n <= 3)
					r->rec_in[n - 1] = (uint16_t)i;
			}
			in->rec = k < n ? k : 0;
		}
		if (heads[i].has_ts && !ts[in->rec])
			ts[in->rec] = &heads[i];
	}
	r->nrec = n;
	for (k = 0; k < n; k++)
		all_ts &= ts[k] != NULL;
	abs_ns = n > 1 && all_ts ? calloc(n, sizeof(*abs_ns)) : NULL;
	if (abs_ns) {
		r->rec_abs = 1;
		for (k = 0; k < n; k++) {
			abs_ns[k] = (int64_t)ts[k]->ts_sec * 1000000000 +
				    ts[k]->ts_nsec - (int64_t)ts[k]->ts_time;
			if (abs_ns[k] < base)
				base = abs_ns[k];
		}
		for (size_t i = 0; i < r->nin; i++)
			if (live[i])
				shift_input(r->in[i],
					    (uint64_t)(abs_ns[r->in[i]->rec] - base));
	} else if (n > 1 && all_ts) {
		free(rep);
		free(ts);
		return -ENOMEM;
	}
	free(abs_ns);
	free(rep);
	free(ts);
	return 0;
}
