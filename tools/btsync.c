// SPDX-License-Identifier: MIT
/*
 * btsync - fdatasync/fsync latency per process: episodes from the first
 * sync write (or flush) to the completion of the flush that made the data
 * durable, whether the process flushed itself, wrote with FUA, or a journal
 * thread (jbd2, kjournald) committed for it.  Each episode is split into a
 * data phase and a flush phase.  Definitions: btsync(1) and btkit(7)
 * "fdatasync episode".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"

#define MAX_JOURNAL	64

struct syncer {
	struct tool_opts o;
	bool per_episode;
	bool has_pid;
	uint32_t want_pid;
	uint32_t journal[MAX_JOURNAL];
	size_t njournal;
	bool any_flush;
	uint64_t first;		/* ns: first event, for start_s */
	struct bt_sync_sum *sum;	/* the per-process rows */
	struct bt_reader *r;
	struct bt_table *t;	/* -e: episodes as they end */
};

static void on_episode(const struct bt_sync_ep *ep, void *arg)
{
	struct syncer *s = arg;

	if (ep->flags & BT_SYNC_CENSORED)
		return;		/* never closed: no latency to report */
	if (s->has_pid && ep->pid != s->want_pid)
		return;
	if (s->t)
		bt_sync_ep_row(s->t, ep, s->first, s->r);
	else if (bt_sync_sum_add(s->sum, ep) < 0)
		tool_nomem(&s->o);
}

static void usage(const char *prog)
{
	printf("Usage: %s [options] [TRACE...]\n"
	       "fdatasync/fsync latency episodes per process.  No TRACE or -\n"
	       "reads stdin.\n\n"
	       "Options:\n%s"
	       "  -e, --episodes         one line per episode instead of per process\n"
	       "  -J, --journal-pid PID  PID is a journal thread, as jbd2/* and\n"
	       "                         kjournald* are: its flushes close others'\n"
	       "                         episodes, its commits are its own (repeatable)\n"
	       "  -A, --any-flush        any process's flush closes others' episodes\n",
	       prog, tool_common_usage);
}

static void parse_args(struct syncer *s, int argc, char **argv)
{
	static const struct option longopts[] = {
		TOOL_LONGOPTS,
		{ "episodes", no_argument, NULL, 'e' },
		{ "journal-pid", required_argument, NULL, 'J' },
		{ "any-flush", no_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	unsigned long v;
	int ch;

	tool_opts_init(&s->o, argv[0]);
	while ((ch = tool_getopt(&s->o, argc, argv, TOOL_SHORTOPTS "eJ:A",
				 longopts, usage)) != -1) {
		switch (ch) {
		case 'e':
			s->per_episode = true;
			break;
		case 'J':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || *optarg == '-' ||
			    v > UINT32_MAX)
				tool_usage_error(&s->o, "--journal-pid: '%s' is "
					       "not a pid", optarg);
			if (s->njournal == MAX_JOURNAL)
				tool_usage_error(&s->o, "--journal-pid: at most "
					       "%d", MAX_JOURNAL);
			s->journal[s->njournal++] = (uint32_t)v;
			break;
		case 'A':
			s->any_flush = true;
			break;
		}
	}
	/* -p selects episodes, not events: C runs in interrupt context and
	 * journal threads close other processes' episodes. */
	s->has_pid = tool_take_pid(&s->o, &s->want_pid);
}

int main(int argc, char **argv)
{
	static struct syncer s;
	struct bt_sync_opts so = { 0 };
	struct bt_sync *sy;
	struct bt_event ev;
	uint32_t seen = 0;
	bool filtered;
	int rc, status;

	parse_args(&s, argc, argv);
	s.r = tool_open(&s.o, argc, argv);
	s.first = UINT64_MAX;
	so.any_flush = s.any_flush;
	so.journal_pids = s.journal;
	so.njournal = s.njournal;
	so.episode = on_episode;
	so.arg = &s;
	/*
	 * Not with -d or -w, which pass events by more than action: sync
	 * must see the times of what they pass, and a message on what the
	 * trace lacks names the actions they passed.
	 */
	filtered = tool_filtered(&s.o);
	so.follow = filtered ? NULL : s.r;
	if (bt_sync_new(&sy, &so) < 0 || bt_sync_sum_new(&s.sum) < 0)
		tool_nomem(&s.o);
	if (s.per_episode)
		s.t = tool_table(&s.o, bt_sync_ep_cols());
	while ((rc = tool_next_as(filtered, &s.o, s.r, &ev, &s.first)) > 0) {
		tool_seen(&seen, &ev);
		if (bt_event_is_note(&ev) || (ev.category & BT_TC_PC))
			continue;
		if (bt_sync_feed(sy, &ev, bt_sync_wants_comm(&ev) ?
				 bt_reader_comm(s.r, ev.pid) : NULL) < 0)
			tool_nomem(&s.o);
	}
	bt_sync_finish(sy);
	if (!s.per_episode) {
		s.t = tool_table(&s.o, bt_sync_sum_cols());
		bt_sync_sum_table(s.sum, s.t, s.r);
	}
	if (!tool_explain_empty(&s.o, s.r, seen, 1u << BT_A_QUEUE, "btsync",
				"an episode opens at the Q of a sync write or "
				"flush"))
		tool_explain_empty(&s.o, s.r, seen, 1u << BT_A_COMPLETE,
				   "btsync", "an episode closes at the "
				   "completion of its flush");
	status = tool_done(&s.o, s.r, s.t, rc);
	bt_sync_sum_free(s.sum);
	bt_sync_free(sy);
	bt_reader_free(s.r);
	return status;
}
