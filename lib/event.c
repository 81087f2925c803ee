// SPDX-License-Identifier: MIT
/*
 * event.c - what one decoded record means: the action letters and rwbs
 * string exactly as blkparse prints them (with the zone actions and zone
 * operations of version 8), and the payloads of remap, split, unplug and
 * note records.  The reader has already put every
 * header field and the TIMESTAMP payload in host order; remap, split and
 * unplug payloads stay big-endian because the kernel writes them so.
 */
#include <errno.h>
#include <string.h>
#include "internal.h"

static const char *const act_letters[] = {
	[BT_A_QUEUE] = "Q",
	[BT_A_BACKMERGE] = "M",
	[BT_A_FRONTMERGE] = "F",
	[BT_A_GETRQ] = "G",
	[BT_A_SLEEPRQ] = "S",
	[BT_A_REQUEUE] = "R",
	[BT_A_ISSUE] = "D",
	[BT_A_COMPLETE] = "C",
	[BT_A_PLUG] = "P",
	[BT_A_UNPLUG_IO] = "U",
	[BT_A_UNPLUG_TIMER] = "UT",
	[BT_A_INSERT] = "I",
	[BT_A_SPLIT] = "X",
	[BT_A_BOUNCE] = "B",
	[BT_A_REMAP] = "A",
	/* blkparse prints neither; these names are ours. */
	[BT_A_ABORT] = "AB",
	[BT_A_DRV_DATA] = "DD",
	/* Zone write plugging (version 8): the labels of blkparse's v8 series. */
	[BT_A_ZONE_PLUG] = "ZP",
	[BT_A_ZONE_UNPLUG] = "ZU",
};

const char *bt_event_letters(const struct bt_event *e)
{
	if (bt_event_is_note(e)) {
		/* blkparse prints messages as "m"; the others are ours. */
		switch (e->action) {
		case BT_N_MESSAGE:
			return "m";
		case BT_N_PROCESS:
			return "NP";
		case BT_N_TIMESTAMP:
			return "NT";
		default:
			return "N?";
		}
	}
	if (e->action < sizeof(act_letters) / sizeof(act_letters[0]) &&
	    act_letters[e->action])
		return act_letters[e->action];
	return "?";
}

/*
 * blkparse's order: leading F for a flush, then one of D (discard wins
 * over write), a zone operation (version 8: ZA append, ZR reset, ZRA
 * reset all, ZF finish, ZO open, ZC close, tested in that order, before
 * W because a zone append is also a write), W, R (any bytes) or N, then F
 * for FUA, A readahead, S sync, M meta.  The READ category is not
 * consulted, as in blkparse.  The letters come from a table, without a
 * branch: the reads and writes of interleaved streams alternate
 * unpredictably, and btcat and the tracker ask for every event's letters.
 */
/*
 * Without zones the letters depend on 8 bits: flush, write, sync, ahead,
 * meta, discard, fua and whether there are bytes (bt_rwbs_word()'s
 * index).  The table holds the packed word of each combination, built by
 * the compiler.
 */
#define RW_BIT(i, b)	(((i) >> (b)) & 1ull)
#define RW_OP(i)	(RW_BIT(i, 5) ? 'D' : RW_BIT(i, 0) ? 'W' : \
			 RW_BIT(i, 7) ? 'R' : 'N')
#define RW_AT1(i)	(8 * RW_BIT(i, 1))
#define RW_AT2(i)	(RW_AT1(i) + 8)
#define RW_AT3(i)	(RW_AT2(i) + 8 * RW_BIT(i, 6))
#define RW_AT4(i)	(RW_AT3(i) + 8 * RW_BIT(i, 3))
#define RW_AT5(i)	(RW_AT4(i) + 8 * RW_BIT(i, 2))
#define RW(i)	(RW_BIT(i, 1) * 'F' | (uint64_t)RW_OP(i) << RW_AT1(i) | \
		 RW_BIT(i, 6) * 'F' << RW_AT2(i) | \
		 RW_BIT(i, 3) * 'A' << RW_AT3(i) | \
		 RW_BIT(i, 2) * 'S' << RW_AT4(i) | \
		 RW_BIT(i, 4) * 'M' << RW_AT5(i))
#define RW4(i)	RW(i), RW((i) + 1), RW((i) + 2), RW((i) + 3)
#define RW16(i)	RW4(i), RW4((i) + 4), RW4((i) + 8), RW4((i) + 12)
#define RW64(i)	RW16(i), RW16((i) + 16), RW16((i) + 32), RW16((i) + 48)
const uint64_t bt_rwbs_words[256] = {
	RW64(0), RW64(64), RW64(128), RW64(192),
};

uint64_t bt_rwbs_zoned(const struct bt_event *e, uint64_t w)
{
	static const struct {
		uint32_t cat;
		char label[4];
	} zone[] = {
		{ BT_TC_ZONE_APPEND, "ZA" },
		{ BT_TC_ZONE_RESET, "ZR" },
		{ BT_TC_ZONE_RESET_ALL, "ZRA" },
		{ BT_TC_ZONE_FINISH, "ZF" },
		{ BT_TC_ZONE_OPEN, "ZO" },
		{ BT_TC_ZONE_CLOSE, "ZC" },
	};
	uint32_t c = e->category;
	uint64_t head, tail;
	const char *zl = "";
	unsigned at;

	/* A discard is "D" whatever its zone bits. */
	if (c & BT_TC_DISCARD)
		return w;
	/* The first operation in blkparse's order. */
	for (size_t z = 0; z < sizeof(zone) / sizeof(zone[0]); z++) {
		if (c & zone[z].cat) {
			zl = zone[z].label;
			break;
		}
	}
	/* Its letters take the place of the W, R or N. */
	at = c & BT_TC_FLUSH ? 8 : 0;
	head = w & ((1ull << at) - 1);
	tail = w >> (at + 8);
	w = head;
	for (; *zl; zl++, at += 8)
		w |= (uint64_t)(unsigned char)*zl << at;
	return w | tail << at;
}

char *bt_event_rwbs(const struct bt_event *e, char *buf)
{
	return bt_rwbs_put(e, buf);
}

int bt_event_remap(const struct bt_event *e, struct bt_remap *out)
{
	if (!e->pdu || e->pdu_len < 16)
		return -EBADMSG;
	out->dev_from = bt_be32(e->pdu);
	out->dev_to = bt_be32(e->pdu + 4);
	out->sector_from = bt_be64(e->pdu + 8);
	return 0;
}

int bt_event_split(const struct bt_event *e, uint64_t *new_sector)
{
	if (!e->pdu || e->pdu_len < 8)
		return -EBADMSG;
	*new_sector = bt_be64(e->pdu);
	return 0;
}

int bt_event_unplug(const struct bt_event *e, uint64_t *nr_requests)
{
	if (!e->pdu || e->pdu_len < 8)
		return -EBADMSG;
	*nr_requests = bt_be64(e->pdu);
	return 0;
}

/* The comm is at most 16 bytes, NUL padded (TASK_COMM_LEN). */
int bt_event_process(const struct bt_event *e, char *comm, size_t len)
{
	size_t n;

	if (!len)
		return -EINVAL;
	if (!e->pdu || e->pdu_len == 0) {
		comm[0] = '\0';
		return -EBADMSG;
	}
	n = e->pdu_len < 16 ? e->pdu_len : 16;
	n = strnlen((const char *)e->pdu, n);
	if (n > len - 1)
		n = len - 1;
	memcpy(comm, e->pdu, n);
	comm[n] = '\0';
	return 0;
}

/* The reader has converted the two u32s to host order. */
int bt_event_timestamp(const struct bt_event *e, uint32_t *sec,
		       uint32_t *nsec)
{
	if (!e->pdu || e->pdu_len < 8)
		return -EBADMSG;
	*sec = bt_ld32(e->pdu, 0);
	*nsec = bt_ld32(e->pdu + 4, 0);
	return 0;
}

int bt_event_message(const struct bt_event *e, const char **text,
		     size_t *len)
{
	if (!e->pdu && e->pdu_len)
		return -EBADMSG;
	*text = e->pdu ? (const char *)e->pdu : "";
	/* Stop at a NUL as blkparse's "%.*s" does; some kernels pad. */
	*len = e->pdu ? strnlen(*text, e->pdu_len) : 0;
	return 0;
}
