// SPDX-License-Identifier: MIT
/*
 * writer.c - encode events back into blktrace records.  btcapture writes
 * its notes with it, the bench generator writes large traces with it, and
 * tests build malformed traces from it in memory, in either byte order and
 * either header layout, so every reader path can be exercised.
 */
#include <errno.h>
#include <string.h>
#include <byteswap.h>
#include "internal.h"

static void put16(unsigned char *p, uint16_t v, int swap)
{
	if (swap)
		v = bswap_16(v);
	memcpy(p, &v, 2);
}

static void put32(unsigned char *p, uint32_t v, int swap)
{
	if (swap)
		v = bswap_32(v);
	memcpy(p, &v, 4);
}

static void put64(unsigned char *p, uint64_t v, int swap)
{
	if (swap)
		v = bswap_64(v);
	memcpy(p, &v, 8);
}

int bt_event_encode(const struct bt_event *e, void *buf, size_t len,
		    unsigned flags)
{
	unsigned char *p = buf;
	int swap = (flags & BT_ENC_SWAP) != 0;
	int wide = (flags & (BT_ENC_V8 | BT_ENC_WIDE)) != 0;
	size_t hdr = wide ? BT_HDR_V8 : BT_HDR_V7;
	size_t cg = e->has_cgroup ? 8 : 0;
	size_t total = hdr + cg + e->pdu_len;
	uint32_t ver = (flags & BT_ENC_V8) ? BT_VERSION_8 : BT_VERSION_7;
	uint64_t action = (uint64_t)e->category << 16 | e->action |
			  (e->has_cgroup ? BT_A_CGROUP : 0);

	if (cg + e->pdu_len > UINT16_MAX)
		return -EINVAL;
	if (total > len)
		return -ENOSPC;
	memset(p, 0, hdr);
	put32(p + BT_OFF_MAGIC, BT_MAGIC | ver, swap);
	put32(p + BT_OFF_SEQUENCE, e->sequence, swap);
	put64(p + BT_OFF_TIME, e->time, swap);
	put64(p + BT_OFF_SECTOR, e->sector, swap);
	put32(p + BT_OFF_BYTES, e->bytes, swap);
	if (wide) {
		put32(p + BT_V8_PID, e->pid, swap);
		put64(p + BT_V8_ACTION, action, swap);
		put32(p + BT_V8_DEVICE, e->dev, swap);
		put32(p + BT_V8_CPU, e->cpu, swap);
		put16(p + BT_V8_ERROR, e->error, swap);
		put16(p + BT_V8_PDU_LEN, (uint16_t)(cg + e->pdu_len), swap);
	} else {
		put32(p + BT_V7_ACTION, (uint32_t)action, swap);
		put32(p + BT_V7_PID, e->pid, swap);
		put32(p + BT_V7_DEVICE, e->dev, swap);
		put32(p + BT_V7_CPU, e->cpu, swap);
		put16(p + BT_V7_ERROR, e->error, swap);
		put16(p + BT_V7_PDU_LEN, (uint16_t)(cg + e->pdu_len), swap);
	}
	if (cg)
		put64(p + hdr, e->cgroup, swap);
	if (e->pdu_len)
		memcpy(p + hdr + cg, e->pdu, e->pdu_len);
	return (int)total;
}
