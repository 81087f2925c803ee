// SPDX-License-Identifier: MIT
/*
 * fsync_count.c - an example program on libbtkit: count the fdatasync
 * episodes (btkit(7) "fdatasync episode") of each process in a trace, as
 * the first three columns of btsync(1) do.  It shows the reader, the
 * fdatasync analysis with its episode callback and a per-process group.
 * Build it on the installed library with
 *
 *   cc -o fsync_count fsync_count.c $(pkg-config --cflags --libs btkit)
 *
 * and run it as `fsync_count TRACE...`.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <btkit.h>

struct count {
	uint64_t episodes;	/* closed and valid */
};

/* Called by the analysis each time an episode ends. */
static void on_episode(const struct bt_sync_ep *ep, void *arg)
{
	struct bt_group *per_pid = arg;
	struct count *c;

	if (ep->flags & BT_SYNC_CENSORED)
		return;		/* never closed: no latency, not counted */
	c = bt_group_get(per_pid, 0, ep->pid, 0);
	if (c && !(ep->flags & BT_SYNC_INVALID))
		c->episodes++;
}

int main(int argc, char **argv)
{
	struct bt_reader *r;
	struct bt_group *per_pid;
	struct bt_sync *sync;
	struct bt_sync_opts so = { .episode = on_episode };
	struct bt_group_key key;
	struct bt_event ev;
	struct count *c;
	const char *file, *what, *comm;
	uint64_t off;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: %s TRACE...\n", argv[0]);
		return 2;
	}
	if (bt_reader_new(&r) < 0 ||
	    bt_group_new(&per_pid, sizeof(struct count)) < 0)
		return 1;
	so.arg = per_pid;
	if (bt_sync_new(&sync, &so) < 0)
		return 1;
	for (int i = 1; i < argc; i++) {
		rc = bt_reader_add(r, argv[i]);
		if (rc < 0) {
			fprintf(stderr, "%s: %s: %s\n", argv[0], argv[i],
				strerror(-rc));
			return 1;
		}
	}
	/* 1: an event, 0: the end, < 0: -errno with the place of the fault. */
	while ((rc = bt_reader_next(r, &ev)) == 1) {
		if (bt_event_is_note(&ev) || (ev.category & BT_TC_PC))
			continue;
		/* The name matters for queues: journal threads close episodes. */
		comm = ev.action == BT_A_QUEUE ? bt_reader_comm(r, ev.pid) : NULL;
		if (bt_sync_feed(sync, &ev, comm) < 0)
			return 1;
	}
	if (rc < 0) {
		what = bt_reader_error(r, &file, &off);
		fprintf(stderr, "%s: %s: offset %" PRIu64 ": %s\n", argv[0],
			file ? file : "-", off, what ? what : strerror(-rc));
	}
	bt_sync_finish(sync);
	bt_group_sort(per_pid, NULL);
	for (size_t i = 0; (c = bt_group_at(per_pid, i, &key)); i++) {
		comm = bt_reader_comm(r, key.pid);
		printf("%" PRIu32 "\t%s\t%" PRIu64 "\n", key.pid,
		       comm && *comm ? comm : "-", c->episodes);
	}
	bt_sync_free(sync);
	bt_group_free(per_pid);
	bt_reader_free(r);
	return rc < 0 || fflush(stdout) ? 1 : 0;
}
