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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"

#define MAX_JOURNAL	64

struct row {
	uint64_t self, journal, fua, noflush, invalid;
	uint64_t data, flush;	/* ns, sums over valid episodes */
	struct bt_dist lat;	/* ns */
};

struct syncer {
	struct bt_opts o;
	bool per_episode;
	bool has_pid;
	uint32_t want_pid;
	uint32_t journal[MAX_JOURNAL];
	size_t njournal;
	bool any_flush;
	uint64_t first;		/* ns: first event, for start_s */
	struct bt_group *rows;	/* struct row by pid */
	struct bt_reader *r;
	struct bt_table *t;	/* -e: episodes as they end */
};

static const char *kind(uint32_t f)
{
	static const char *const names[2][5] = {
		{ "self", "journal", "fua", "noflush", "censored" },
		{ "self+invalid", "journal+invalid", "fua+invalid",
		  "noflush+invalid", "censored+invalid" },
	};
	int inv = (f & BT_SYNC_INVALID) != 0;

	if (f & BT_SYNC_CENSORED)
		return names[inv][4];
	if (f & BT_SYNC_NOFLUSH)
		return names[inv][3];
	if (f & BT_SYNC_FUA)
		return names[inv][2];
	if (f & BT_SYNC_JOURNAL)
		return names[inv][1];
	return names[inv][0];
}

static void on_episode(const struct bt_sync_ep *ep, void *arg)
{
	struct syncer *s = arg;
	struct row *r;

	if (ep->flags & BT_SYNC_CENSORED)
		return;		/* never closed: no latency to report */
	if (s->has_pid && ep->pid != s->want_pid)
		return;
	if (s->t) {
		bt_table_s(s->t, ep->open > s->first ? ep->open - s->first : 0);
		bt_table_u64(s->t, ep->pid);
		bt_table_str(s->t, bt_tool_comm(s->r, ep->pid));
		bt_table_us(s->t, ep->lat);
		bt_table_us(s->t, ep->data);
		bt_table_us(s->t, ep->flush);
		bt_table_u64(s->t, ep->data_bytes);
		bt_table_str(s->t, kind(ep->flags));
		bt_table_end_row(s->t);
		return;
	}
	r = bt_group_get(s->rows, 0, ep->pid, 0);
	if (!r)
		bt_tool_nomem(&s->o);
	if (ep->flags & BT_SYNC_INVALID) {
		r->invalid++;
		return;
	}
	if (ep->flags & BT_SYNC_NOFLUSH)
		r->noflush++;
	else if (ep->flags & BT_SYNC_FUA)
		r->fua++;
	else if (ep->flags & BT_SYNC_JOURNAL)
		r->journal++;
	else
		r->self++;
	r->data += ep->data;
	r->flush += ep->flush;
	if (bt_dist_add(&r->lat, ep->lat) < 0)
		bt_tool_nomem(&s->o);
}

static void print(struct syncer *s, struct bt_table *t)
{
	struct bt_group_key k;
	struct row *r;

	bt_group_sort(s->rows, NULL);
	for (size_t i = 0; (r = bt_group_at(s->rows, i, &k)); i++) {
		uint64_t ep = r->lat.n;

		bt_table_u64(t, k.pid);
		bt_table_str(t, bt_tool_comm(s->r, k.pid));
		bt_table_u64(t, ep);
		tool_put_dist(t, &r->lat);
		if (ep) {
			bt_table_double(t, (double)r->data / (double)ep / 1000.0, 3);
			bt_table_double(t, (double)r->flush / (double)ep / 1000.0, 3);
		} else {
			tool_put_empty(t, 2);
		}
		bt_table_u64(t, r->self);
		bt_table_u64(t, r->journal);
		bt_table_u64(t, r->fua);
		bt_table_u64(t, r->noflush);
		bt_table_u64(t, r->invalid);
		bt_table_end_row(t);
	}
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
	       prog, bt_common_usage);
}

static void parse_args(struct syncer *s, int argc, char **argv)
{
	static const struct option longopts[] = {
		BT_COMMON_LONGOPTS,
		{ "episodes", no_argument, NULL, 'e' },
		{ "journal-pid", required_argument, NULL, 'J' },
		{ "any-flush", no_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	unsigned long v;
	int ch;

	bt_opts_init(&s->o, argv[0]);
	while ((ch = tool_getopt(&s->o, argc, argv, BT_COMMON_SHORTOPTS "eJ:A",
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
				bt_usage_error(&s->o, "--journal-pid: '%s' is "
					       "not a pid", optarg);
			if (s->njournal == MAX_JOURNAL)
				bt_usage_error(&s->o, "--journal-pid: at most "
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
	s->has_pid = bt_opts_take_pid(&s->o, &s->want_pid);
}

int main(int argc, char **argv)
{
	static const char *const cols[] = {
		"pid", "comm", "episodes", "lat_mean_us", "lat_p50_us",
		"lat_p95_us", "lat_p99_us", "lat_max_us", "data_mean_us",
		"flush_mean_us", "self", "journal", "fua", "noflush", "invalid",
	};
	static const char *const ecols[] = {
		"start_s", "pid", "comm", "lat_us", "data_us", "flush_us",
		"data_bytes", "kind",
	};
	static struct syncer s;
	struct bt_sync_opts so = { 0 };
	struct bt_sync *sy;
	struct bt_event ev;
	uint32_t seen = 0;
	int rc, status;

	parse_args(&s, argc, argv);
	s.r = bt_tool_open(&s.o, argc, argv);
	s.first = UINT64_MAX;
	so.any_flush = s.any_flush;
	so.journal_pids = s.journal;
	so.njournal = s.njournal;
	so.episode = on_episode;
	so.arg = &s;
	if (bt_sync_new(&sy, &so) < 0 ||
	    bt_group_new(&s.rows, sizeof(struct row)) < 0)
		bt_tool_nomem(&s.o);
	if (s.per_episode)
		s.t = bt_tool_table(&s.o, ecols, BT_NCOLS(ecols));
	while ((rc = bt_tool_next(&s.o, s.r, &ev, &s.first)) > 0) {
		tool_seen(&seen, &ev);
		if (bt_event_is_note(&ev) || (ev.category & BT_TC_PC))
			continue;
		if (bt_sync_feed(sy, &ev, ev.action == BT_A_QUEUE ?
				 bt_reader_comm(s.r, ev.pid) : NULL) < 0)
			bt_tool_nomem(&s.o);
	}
	bt_sync_finish(sy);
	if (!s.per_episode) {
		s.t = bt_tool_table(&s.o, cols, BT_NCOLS(cols));
		print(&s, s.t);
	}
	if (!tool_explain_empty(&s.o, seen, 1u << BT_A_QUEUE, "btsync",
				"an episode opens at the Q of a sync write or "
				"flush"))
		tool_explain_empty(&s.o, seen, 1u << BT_A_COMPLETE, "btsync",
				   "an episode closes at the completion of its "
				   "flush");
	status = tool_done(&s.o, s.r, s.t, rc);
	tool_free_rows(s.rows, offsetof(struct row, lat));
	bt_sync_free(sy);
	bt_reader_free(s.r);
	return status;
}
