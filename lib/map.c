// SPDX-License-Identifier: MIT
/*
 * map.c - the library's one hash map: open addressing with linear probing
 * from a 128-bit key (two u64 words, e.g. device and sector, or device,
 * pid and a number) to a non-zero u32, in practice the index + 1 of an
 * entry in the caller's own dense array.  Keeping the entries dense and
 * the map small (24-byte slots, half full at most) keeps lookups to one
 * or two cache lines, and callers iterate their arrays, never the map.
 * Each slot keeps its key's hash, so deleting and growing hash nothing
 * again.
 * Deletion shifts the following run back, so no tombstones pile up in
 * tables with steady churn (requests in flight).  Lookups are inline in
 * internal.h; here is what allocates.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "internal.h"

#define MAP_MIN_CAP 16

void bt_map_init(struct bt_map *m)
{
	m->slot = NULL;
	m->mask = 0;
	m->n = 0;
}

void bt_map_free(struct bt_map *m)
{
	free(m->slot);
	bt_map_init(m);
}

void bt_map_clear(struct bt_map *m)
{
	if (m->slot)
		memset(m->slot, 0, (m->mask + 1) * sizeof(*m->slot));
	m->n = 0;
}

/* The slot holding the key, or the free slot that ends its probe run. */
static struct bt_map_slot *probe(const struct bt_map *m, uint64_t k0,
				 uint64_t k1, uint32_t h)
{
	size_t i = h & m->mask;

	while (m->slot[i].val && (m->slot[i].k0 != k0 || m->slot[i].k1 != k1))
		i = (i + 1) & m->mask;
	return &m->slot[i];
}

int bt_map_reserve(struct bt_map *m, size_t n)
{
	size_t cap = m->slot ? m->mask + 1 : MAP_MIN_CAP, oc;
	struct bt_map_slot *old = m->slot, *fresh;

	/* At most 2^32 slots: a slot's 32 hash bits then place it. */
	if (n > (1ull << 31) || n > SIZE_MAX / 4 / sizeof(*fresh))
		return -ENOMEM;
	while (n * 2 > cap)
		cap *= 2;
	if (old && cap == m->mask + 1)
		return 0;
	fresh = calloc(cap, sizeof(*fresh));
	if (!fresh)
		return -ENOMEM;
	oc = old ? m->mask + 1 : 0;
	m->slot = fresh;
	m->mask = cap - 1;
	/* Keys are distinct: each goes to the first free slot from home. */
	for (size_t i = 0; i < oc; i++) {
		size_t j;

		if (!old[i].val)
			continue;
		for (j = old[i].h & m->mask; fresh[j].val; j = (j + 1) & m->mask)
			;
		fresh[j] = old[i];
	}
	free(old);
	return 0;
}

int bt_map_swap(struct bt_map *m, uint64_t k0, uint64_t k1, uint32_t val,
		uint32_t *old)
{
	struct bt_map_slot *s;
	uint32_t h;
	int rc;

	if (!val)
		return -EINVAL;
	if (!m->slot || (m->n + 1) * 2 > m->mask + 1) {
		rc = bt_map_reserve(m, m->n + 1);
		if (rc < 0)
			return rc;
	}
	h = (uint32_t)bt_map_hash(k0, k1);
	s = probe(m, k0, k1, h);
	if (!s->val)
		m->n++;
	*old = s->val;
	s->k0 = k0;
	s->k1 = k1;
	s->h = h;
	s->val = val;
	return 0;
}

int bt_map_put(struct bt_map *m, uint64_t k0, uint64_t k1, uint32_t val)
{
	uint32_t old;

	return bt_map_swap(m, k0, k1, val, &old);
}

void bt_map_del_slot(struct bt_map *m, struct bt_map_slot *s)
{
	size_t i = (size_t)(s - m->slot), j;

	/*
	 * Backward-shift deletion: move each later member of the run whose
	 * home slot is not between the hole and itself into the hole.
	 */
	for (j = (i + 1) & m->mask; m->slot[j].val; j = (j + 1) & m->mask) {
		size_t home = m->slot[j].h & m->mask;

		if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
			m->slot[i] = m->slot[j];
			i = j;
		}
	}
	m->slot[i].val = 0;
	m->n--;
}

uint32_t bt_map_del(struct bt_map *m, uint64_t k0, uint64_t k1)
{
	struct bt_map_slot *s = bt_map_find(m, k0, k1);
	uint32_t val;

	if (!s)
		return 0;
	val = s->val;
	bt_map_del_slot(m, s);
	return val;
}
