// SPDX-License-Identifier: MIT
/*
 * comm.c - the one pid -> comm map of the library: an open-addressing
 * table that grows by doubling up to a limit the owner chooses, so a
 * trace with endless pids costs bounded memory.  The reader keeps the
 * latest name of a pid (a pid renamed by exec), blkorder the first (as
 * blkparse does), so the caller says which.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

void bt_comm_init(struct bt_comm *m, size_t max_pids)
{
	memset(m, 0, sizeof(*m));
	m->max_pids = max_pids;
}

static struct bt_comm_slot *slot_of(const struct bt_comm *m, uint32_t pid)
{
	size_t mask = m->slots - 1;
	size_t i = (pid * 0x9e3779b1u) & mask;

	while (m->slot[i].used && m->slot[i].pid != pid)
		i = (i + 1) & mask;
	return &m->slot[i];
}

static int grow(struct bt_comm *m)
{
	size_t slots = m->slots ? m->slots * 2 : 256;
	struct bt_comm_slot *old = m->slot, *fresh;
	size_t oslots = m->slots;

	fresh = calloc(slots, sizeof(*fresh));
	if (!fresh)
		return -ENOMEM;
	m->slot = fresh;
	m->slots = slots;
	for (size_t i = 0; i < oslots; i++)
		if (old[i].used)
			*slot_of(m, old[i].pid) = old[i];
	free(old);
	return 0;
}

int bt_comm_set(struct bt_comm *m, uint32_t pid, const char *name, size_t len,
		int keep_first)
{
	struct bt_comm_slot *s = m->slots ? slot_of(m, pid) : NULL;
	int rc;

	if (!s || !s->used) {
		if (m->used >= m->max_pids)
			return -ENOSPC;
		if ((m->used + 1) * 2 > m->slots) {
			rc = grow(m);
			if (rc)
				return rc;
		}
		s = slot_of(m, pid);
		s->used = 1;
		s->pid = pid;
		m->used++;
	} else if (keep_first) {
		return 0;
	}
	if (len > BT_COMM_MAX)
		len = BT_COMM_MAX;
	len = strnlen(name, len);
	memcpy(s->comm, name, len);
	s->comm[len] = '\0';
	return 0;
}

const char *bt_comm_get(const struct bt_comm *m, uint32_t pid)
{
	const struct bt_comm_slot *s;

	if (!m->used)
		return NULL;
	s = slot_of(m, pid);
	return s->used ? s->comm : NULL;
}

void bt_comm_free(struct bt_comm *m)
{
	free(m->slot);
	memset(m, 0, sizeof(*m));
}
