/* SPDX-License-Identifier: MIT */
/*
 * event_fixture.h - a version-7 I/O event of the fields the tracker and
 * the analyses fed by it look at, time in microseconds (US: 1000 ns).
 */
#ifndef BTKIT_EVENT_FIXTURE_H
#define BTKIT_EVENT_FIXTURE_H

#include <stdint.h>
#include <string.h>
#include "btkit.h"

#define US	1000ull		/* ns */

static inline struct bt_event mk(uint32_t act, uint32_t cat, uint64_t t_us,
				 uint32_t dev, uint64_t sector, uint32_t bytes,
				 uint32_t pid)
{
	struct bt_event e;

	memset(&e, 0, sizeof(e));
	e.action = act;
	e.category = cat;
	e.time = t_us * US;
	e.dev = dev;
	e.sector = sector;
	e.bytes = bytes;
	e.pid = pid;
	e.version = 7;
	return e;
}

#endif /* BTKIT_EVENT_FIXTURE_H */
