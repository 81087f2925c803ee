// SPDX-License-Identifier: MIT
/*
 * slowest.c - an example program on libbtkit: the 10 requests with the
 * longest queue-to-completion time (btkit(7) "Latency") in a trace, slowest
 * first, ties in the order they were queued.  It shows the reader feeding
 * the request tracker and the tracker's done callback.  Build it on the
 * installed library with
 *
 *   cc -o slowest slowest.c $(pkg-config --cflags --libs btkit)
 *
 * and run it as `slowest TRACE...`.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <btkit.h>

#define TOP 10

struct slow {
	uint64_t q2c;		/* ns */
	uint64_t q;		/* ns: first Q, breaks ties */
	struct bt_request rq;
};

struct top {
	struct slow s[TOP];
	size_t n;
};

static int slower(const struct slow *a, const struct slow *b)
{
	return a->q2c > b->q2c || (a->q2c == b->q2c && a->q < b->q);
}

/* Every finished request: keep it if it is among the TOP slowest. */
static void on_done(const struct bt_request *rq, void *arg)
{
	struct top *t = arg;
	struct slow cand;
	size_t i;

	if (rq->flags & (BT_RQ_EXPIRED | BT_RQ_OPEN))
		return;		/* never completed */
	if (rq->q == BT_TIME_NONE || rq->c == BT_TIME_NONE)
		return;		/* queued before the trace began */
	cand.q2c = rq->c > rq->q ? rq->c - rq->q : 0;
	cand.q = rq->q;
	if (t->n == TOP && !slower(&cand, &t->s[TOP - 1]))
		return;
	cand.rq = *rq;		/* rq is valid only during the callback */
	i = t->n < TOP ? t->n++ : TOP - 1;
	for (; i > 0 && slower(&cand, &t->s[i - 1]); i--)
		t->s[i] = t->s[i - 1];
	t->s[i] = cand;
}

int main(int argc, char **argv)
{
	static struct top top;
	struct bt_tracker_opts to = { .done = on_done, .arg = &top };
	struct bt_tracker *tr;
	struct bt_reader *r;
	struct bt_event ev;
	const char *file, *what;
	uint64_t off;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: %s TRACE...\n", argv[0]);
		return 2;
	}
	if (bt_reader_new(&r) < 0)
		return 1;
	for (int i = 1; i < argc; i++) {
		rc = bt_reader_add(r, argv[i]);
		if (rc < 0) {
			fprintf(stderr, "%s: %s: %s\n", argv[0], argv[i],
				strerror(-rc));
			return 1;
		}
	}
	to.reader = r;		/* names each request's owner */
	if (bt_tracker_new(&tr, &to) < 0)
		return 1;
	while ((rc = bt_reader_next(r, &ev)) == 1)
		bt_tracker_feed(tr, &ev, NULL);
	if (rc < 0) {
		what = bt_reader_error(r, &file, &off);
		fprintf(stderr, "%s: %s: offset %" PRIu64 ": %s\n", argv[0],
			file ? file : "-", off, what ? what : strerror(-rc));
	}
	bt_tracker_flush(tr);
	printf("pid\tcomm\top\tsector\tbytes\tq2c_us\n");
	for (size_t i = 0; i < top.n; i++) {
		const struct bt_request *q = &top.s[i].rq;

		printf("%" PRIu32 "\t%s\t%c\t%" PRIu64 "\t%" PRIu32 "\t%"
		       PRIu64 ".%03" PRIu64 "\n", q->pid,
		       q->comm[0] ? q->comm : "-", q->op, q->sector, q->bytes,
		       top.s[i].q2c / 1000, top.s[i].q2c % 1000);
	}
	bt_tracker_free(tr);
	bt_reader_free(r);
	return rc < 0 || fflush(stdout) ? 1 : 0;
}
