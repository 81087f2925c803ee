/* SPDX-License-Identifier: MIT */
/*
 * diff_int.h - what btdiff's engine shares between its halves: diff.c
 * reads the recordings into groups and their statistics, diff_rows.c
 * turns those into cells, rows, the table and the verdict.
 */
#ifndef BTKIT_DIFF_INT_H
#define BTKIT_DIFF_INT_H

#include <stdint.h>
#include "internal.h"

#define ALL		0	/* group index of "all" */
#define NAME_LEN	48

struct gstat {
	uint8_t present;	/* the group had a sample in this recording */
	uint64_t ios, bytes;	/* completed R/W requests with data */
	uint64_t mq, md;	/* merges: bios queued, requests dispatched */
	uint64_t flush_sum;	/* ns, over the valid episodes */
	struct bt_dist fsync;	/* ns: valid episodes */
	struct bt_dist slice[2];	/* ns: uncensored waits by source */
	struct bt_dist q2c, d2c;	/* ns */
};

struct rec {
	char *label;
	uint64_t first, last;	/* ns: first and last non-note event */
	int has_messages;	/* every device dispatched to had queue messages */
	int has_cgroup;		/* some event carried a cgroup id */
	struct gstat *g;	/* by group index, ng of them */
	size_t ng;
};

struct dgroup {
	char name[NAME_LEN];
	uint64_t order;		/* pid or cgroup id: numeric order */
};

/* What lives only while one recording is read. */
struct pass {
	const struct bt_reader *r;
	struct bt_tracker *tr;
	struct bt_slice *sl;
	struct bt_sync *sy;
	struct bt_merge *mg_pid, *mg_dev;
	struct bt_map pid_cg;	/* pid -> group index + 1 (by cgroup) */
	struct bt_map devs;	/* devices dispatched to -> 1 */
	uint32_t *dev;		/* the same, listed */
	size_t ndev, capdev;
};

struct bt_diff {
	struct bt_diff_opts o;
	unsigned metric[BT_DIFF_NMETRICS];
	size_t nmetric;
	struct dgroup *grp;	/* ngrp; grp[ALL] is "all" */
	size_t ngrp, capgrp;
	struct bt_map idx;	/* group key -> index + 1 */
	struct rec *rec;
	size_t nrec, caprec;
	int active;		/* a recording is being read: rec[nrec - 1] */
	int err;		/* -ENOMEM met in a callback */
	struct pass p;
	/* rows being handed out */
	struct bt_diff_cell *cell;
	double *ratio;
};

#endif /* BTKIT_DIFF_INT_H */
