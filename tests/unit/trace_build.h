/* SPDX-License-Identifier: MIT */
/*
 * trace_build.h - build traces in memory for the reader's tests: records
 * from bt_event_encode() in any layout and byte order, optionally behind
 * the 16-byte tracefs context prefix, appended to a growing buffer so a
 * test can then cut, corrupt or compress the bytes it asserts on.
 */
#ifndef TRACE_BUILD_H
#define TRACE_BUILD_H

#include <stdlib.h>
#include <string.h>
#include "btkit.h"

struct tb {
	unsigned char *buf;
	size_t len, cap;
	unsigned flags;		/* BT_ENC_* */
	int ctx;		/* tracefs context prefix before each record */
};

static inline void tb_init(struct tb *t, unsigned flags, int ctx)
{
	memset(t, 0, sizeof(*t));
	t->flags = flags;
	t->ctx = ctx;
}

static inline void tb_reserve(struct tb *t, size_t more)
{
	if (t->len + more > t->cap) {
		size_t cap = t->cap ? t->cap : 4096;

		while (cap < t->len + more)
			cap *= 2;
		t->buf = realloc(t->buf, cap);
		if (!t->buf)
			abort();
		t->cap = cap;
	}
}

static inline void tb_append(struct tb *t, const void *p, size_t n)
{
	tb_reserve(t, n);
	memcpy(t->buf + t->len, p, n);
	t->len += n;
}

/* An event with the defaults every test shares: 8,16 cpu 1 pid 1234. */
static inline struct bt_event tb_ev(uint64_t time, uint32_t seq,
				    uint32_t action, uint32_t category,
				    uint32_t bytes)
{
	struct bt_event e;

	memset(&e, 0, sizeof(e));
	e.time = time;
	e.sequence = seq;
	e.action = action;
	e.category = category;
	e.bytes = bytes;
	e.sector = 2048 + time;
	e.pid = 1234;
	e.dev = BT_DEV_MAKE(8u, 16u);
	e.cpu = 1;
	return e;
}

/* A PROCESS note naming pid (name must outlive the event). */
static inline struct bt_event tb_note(uint64_t time, uint32_t pid,
				      const char *name)
{
	struct bt_event e = tb_ev(time, 0, BT_N_PROCESS, BT_TC_NOTIFY, 0);

	e.pid = pid;
	e.pdu = (const unsigned char *)name;
	e.pdu_len = (uint32_t)strlen(name) + 1;
	return e;
}

/* Append one record; returns its offset. */
static inline size_t tb_add(struct tb *t, const struct bt_event *e)
{
	size_t at = t->len;
	int n;

	tb_reserve(t, 16 + 64 + 8 + e->pdu_len);
	if (t->ctx) {
		/* pid, cpu, ts: host order, as the kernel writes them */
		uint32_t pc[2] = { e->pid, e->cpu };

		memcpy(t->buf + t->len, pc, 8);
		memcpy(t->buf + t->len + 8, &e->time, 8);
		t->len += 16;
	}
	n = bt_event_encode(e, t->buf + t->len, t->cap - t->len, t->flags);
	if (n < 0)
		abort();
	t->len += (size_t)n;
	return at;
}

static inline void tb_free(struct tb *t)
{
	free(t->buf);
	memset(t, 0, sizeof(*t));
}

#endif /* TRACE_BUILD_H */
