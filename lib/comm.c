// SPDX-License-Identifier: MIT
/*
 * comm.c - the one pid -> comm map of the library: names in an array
 * indexed by the library's hash map (lib/map.c), growing up to a limit the
 * owner chooses, so a trace with endless pids costs bounded memory.  The reader keeps the
 * latest name of a pid (a pid renamed by exec), blkorder the first (as
 * blkparse does), so the caller says which.  A lookup is asked once an
 * event by some callers: the pids set last are answered from the map's
 * small cache (struct bt_map_hints) before the map.
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

int bt_comm_set(struct bt_comm *m, uint32_t pid, const char *name, size_t len,
		int keep_first)
{
	uint32_t i = bt_map_get(&m->idx, pid, 0);
	struct bt_comm_ent *e;
	int rc;

	if (!i) {
		if (m->used >= m->max_pids)
			return -ENOSPC;
		rc = bt_array_room(&m->ent, &m->cap, m->used, sizeof(*m->ent),
				   64);
		if (!rc)
			rc = bt_map_put(&m->idx, pid, 0, (uint32_t)(m->used + 1));
		if (rc)
			return rc;
		e = &m->ent[m->used++];
		e->pid = pid;
		i = (uint32_t)m->used;
	} else if (keep_first) {
		return 0;
	} else {
		e = &m->ent[i - 1];
	}
	bt_map_hint_note(&m->hints, pid, 0, i);
	if (len > BT_COMM_MAX)
		len = BT_COMM_MAX;
	len = strnlen(name, len);
	memcpy(e->comm, name, len);
	e->comm[len] = '\0';
	return 0;
}

const char *bt_comm_get(const struct bt_comm *m, uint32_t pid)
{
	uint32_t i = bt_map_hint_find(&m->hints, pid, 0);

	if (!i)
		i = bt_map_get(&m->idx, pid, 0);

	return i ? m->ent[i - 1].comm : NULL;
}

void bt_comm_free(struct bt_comm *m)
{
	free(m->ent);
	bt_map_free(&m->idx);
	memset(m, 0, sizeof(*m));
}
