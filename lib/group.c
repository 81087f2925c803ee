// SPDX-License-Identifier: MIT
/*
 * group.c - the rows of a report keyed by device, process and one more
 * number of the caller's (op, scheduler queue), each with a zeroed value
 * area of a size the caller gives.  The groups sit in one array in the
 * order they came, with an open-addressing index of their positions at
 * most half full beside it; both double as groups come, so memory follows
 * the number of groups, never the number of events.  Lookups cost a hash
 * and a short probe, or nothing when the key is the last one asked for
 * (tools call it once an event, and consecutive events mostly share a
 * device, process and op), or a look into a small direct-mapped cache of
 * entry numbers when a few processes' events interleave.
 */
#include <errno.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* The value starts after the key, aligned for any type. */
#define VALUE_OFF \
	((sizeof(struct bt_group_key) + alignof(max_align_t) - 1) / \
	 alignof(max_align_t) * alignof(max_align_t))

struct bt_group {
	unsigned char *ent;	/* count entries of stride bytes: key, value */
	size_t stride, count, cap;
	struct bt_map idx;	/* (dev, pid, sub) -> entry number + 1 */
	struct bt_group_key last;	/* the key last looked up and found */
	uint32_t last_i;	/* its entry number + 1, 0 = none */
	struct bt_map_hints hints;	/* in front of idx */
};

static struct bt_group_key *key_at(const struct bt_group *g, size_t i)
{
	return (struct bt_group_key *)(void *)(g->ent + i * g->stride);
}

/* The entry number + 1 the map's cache holds for the key, or 0. */
static inline uint32_t hinted(const struct bt_group *g, uint32_t dev,
			      uint32_t pid, uint32_t sub)
{
	return bt_map_hint_find(&g->hints, (uint64_t)dev << 32 | pid, sub);
}

static inline int is_last(const struct bt_group *g, uint32_t dev,
			  uint32_t pid, uint32_t sub)
{
	return g->last_i && g->last.dev == dev && g->last.pid == pid &&
	       g->last.sub == sub;
}

static uint32_t index_of(const struct bt_group *g, uint32_t dev, uint32_t pid,
			 uint32_t sub)
{
	uint32_t i;

	if (is_last(g, dev, pid, sub))
		return g->last_i;
	if ((i = hinted(g, dev, pid, sub)))
		return i;
	return bt_map_get(&g->idx, (uint64_t)dev << 32 | pid, sub);
}

static void remember(struct bt_group *g, uint32_t dev, uint32_t pid,
		     uint32_t sub, uint32_t i)
{
	g->last.dev = dev;
	g->last.pid = pid;
	g->last.sub = sub;
	g->last_i = i;
	bt_map_hint_note(&g->hints, (uint64_t)dev << 32 | pid, sub, i);
}

/* Entries move when sorted: index them again (room is there already). */
static void rebuild(struct bt_group *g)
{
	bt_map_clear(&g->idx);
	g->last_i = 0;
	memset(&g->hints, 0, sizeof(g->hints));
	for (size_t i = 0; i < g->count; i++) {
		const struct bt_group_key *k = key_at(g, i);

		bt_map_put(&g->idx, (uint64_t)k->dev << 32 | k->pid, k->sub,
			   (uint32_t)(i + 1));
	}
}

int bt_group_new(struct bt_group **out, size_t value_size)
{
	struct bt_group *g;
	size_t a = alignof(max_align_t);

	*out = NULL;
	if (value_size > SIZE_MAX / 4)
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->stride = (VALUE_OFF + value_size + a - 1) / a * a;
	*out = g;
	return 0;
}

void *bt_group_find(const struct bt_group *g, uint32_t dev, uint32_t pid,
		    uint32_t sub)
{
	uint32_t i = index_of(g, dev, pid, sub);

	return i ? (unsigned char *)key_at(g, i - 1) + VALUE_OFF : NULL;
}

/* The key is neither the last one nor cached: look it up, or add it. */
__attribute__((noinline))
static void *get_other(struct bt_group *g, uint32_t dev, uint32_t pid,
		       uint32_t sub)
{
	struct bt_group_key *k;
	uint32_t i = bt_map_get(&g->idx, (uint64_t)dev << 32 | pid, sub);

	if (i) {
		remember(g, dev, pid, sub, i);
		return (unsigned char *)key_at(g, i - 1) + VALUE_OFF;
	}
	if (g->count == UINT32_MAX - 1)
		return NULL;
	if (bt_array_room(&g->ent, &g->cap, g->count, g->stride, 16) < 0)
		return NULL;
	if (bt_map_put(&g->idx, (uint64_t)dev << 32 | pid, sub,
		       (uint32_t)(g->count + 1)) < 0)
		return NULL;
	k = key_at(g, g->count);
	memset(k, 0, g->stride);
	k->dev = dev;
	k->pid = pid;
	k->sub = sub;
	g->count++;
	remember(g, dev, pid, sub, (uint32_t)g->count);
	return (unsigned char *)k + VALUE_OFF;
}

void *bt_group_get(struct bt_group *g, uint32_t dev, uint32_t pid,
		   uint32_t sub)
{
	uint32_t i;

	if (is_last(g, dev, pid, sub))
		return (unsigned char *)key_at(g, g->last_i - 1) + VALUE_OFF;
	if ((i = hinted(g, dev, pid, sub))) {
		remember(g, dev, pid, sub, i);
		return (unsigned char *)key_at(g, i - 1) + VALUE_OFF;
	}
	return get_other(g, dev, pid, sub);
}

size_t bt_group_count(const struct bt_group *g)
{
	return g->count;
}

void *bt_group_at(const struct bt_group *g, size_t i, struct bt_group_key *k)
{
	if (i >= g->count)
		return NULL;
	if (k)
		*k = *key_at(g, i);
	return (unsigned char *)key_at(g, i) + VALUE_OFF;
}

static int cmp_key(const void *a, const void *b)
{
	const struct bt_group_key *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->sub > y->sub) - (x->sub < y->sub);
}

void bt_group_sort(struct bt_group *g, int (*cmp)(const void *, const void *))
{
	if (g->count < 2)
		return;
	qsort(g->ent, g->count, g->stride, cmp ? cmp : cmp_key);
	rebuild(g);
}

void bt_group_free(struct bt_group *g)
{
	if (!g)
		return;
	free(g->ent);
	bt_map_free(&g->idx);
	free(g);
}

void bt_group_free_dists(struct bt_group *g, size_t off)
{
	unsigned char *v;

	for (size_t i = 0; (v = bt_group_at(g, i, NULL)); i++)
		bt_dist_free((struct bt_dist *)(void *)(v + off));
	bt_group_free(g);
}
