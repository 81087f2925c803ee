// SPDX-License-Identifier: MIT
/*
 * btmerge - merge ratios per device and op (R, W, all), and with -P per
 * owner process: bios queued, back and front merges, requests dispatched,
 * bios per request, and the block counts of completions, computed as
 * btt's "Device Merge Information" by lib/merge.c (btkit(7) "Merge
 * ratio").  This file wires options, reader, tracker, analysis and table.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "common.h"

struct merge {
	struct tool_opts o;
	struct bt_merge_opts mo;
	struct bt_table *t;
};

static void usage(const char *prog)
{
	printf("Usage: %s [options] [TRACE...]\n"
	       "Merge ratios per device and op (R, W, all), computed as btt's\n"
	       "\"Device Merge Information\".  No TRACE or - reads stdin.\n\n"
	       "Options (-p PID selects the requests PID owns; implies -P):\n%s"
	       "  -P, --per-process      rows per owner process (pid of the\n"
	       "                         first bio of each request)\n",
	       prog, tool_common_usage);
}

static void parse_args(struct merge *m, int argc, char **argv)
{
	static const struct option longopts[] = {
		TOOL_LONGOPTS,
		{ "per-process", no_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	tool_opts_init(&m->o, argv[0]);
	while ((ch = tool_getopt(&m->o, argc, argv, TOOL_SHORTOPTS "P",
				 longopts, usage)) != -1)
		m->mo.per_pid = 1;	/* -P, the only option of its own */
	/* -p selects owners, not events: D and C run in other contexts. */
	m->mo.has_pid = tool_take_pid(&m->o, &m->mo.pid);
	if (m->mo.has_pid)
		m->mo.per_pid = 1;
}

int main(int argc, char **argv)
{
	static struct merge m;
	struct bt_tracker_opts to = { 0 };
	struct bt_tracker *tr;
	const struct bt_request *rq;
	struct bt_merge *mg;
	struct bt_reader *r;
	struct bt_event ev;
	uint64_t first = UINT64_MAX;
	uint32_t seen = 0;
	const uint32_t need = 1u << BT_A_QUEUE | 1u << BT_A_REMAP;
	bool filtered;
	int rc, status;

	parse_args(&m, argc, argv);
	/*
	 * No reader in to: the tracker's names of owners (rq->comm) are not
	 * used, the table names them from the reader at the end.
	 */
	r = tool_open(&m.o, argc, argv);
	if (bt_merge_new(&mg, &m.mo) < 0)
		tool_nomem(&m.o);
	bt_merge_attach(mg, &to);
	if (bt_tracker_new(&tr, &to) < 0)
		tool_nomem(&m.o);
	filtered = tool_filtered(&m.o);
	while ((rc = tool_next_as(filtered, &m.o, r, &ev, &first)) > 0) {
		if (!(seen & need))
			tool_seen(&seen, &ev);
		bt_tracker_feed(tr, &ev, &rq);
		if (bt_merge_feed(mg, &ev, rq) < 0)
			tool_nomem(&m.o);
	}
	bt_tracker_flush(tr);
	m.t = tool_table(&m.o, bt_merge_cols(mg));
	if (bt_merge_table(mg, m.t, r) < 0)
		tool_nomem(&m.o);
	tool_explain_empty(&m.o, r, seen, need, "btmerge", "merge ratios compare "
			   "the bios queued with the requests dispatched, "
			   "from a device's first Q or A as btt counts them");
	status = tool_done(&m.o, r, m.t, rc);
	bt_tracker_free(tr);
	bt_reader_free(r);
	bt_merge_free(mg);
	return status;
}
