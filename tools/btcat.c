// SPDX-License-Identifier: MIT
/*
 * btcat - decode blktrace traces to the event lines `blkparse -q` prints,
 * or to one CSV row per event.  To be byte-identical with blkparse reading
 * a stream (`blkparse -q -i - < trace`) it processes records the way
 * blkparse does: in batches of 512 events, each sorted by time, device and
 * sequence (ties come out last read first); times relative to the smallest
 * time of the first batch; PROCESS notes applied when read, the first name
 * of a pid winning, so an event may take the name of a note that follows
 * it in the same batch.  Memory stays bounded by the batch.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"

#define BATCH		512		/* blkparse's rb_batch */
#define BATCH_MAX	8192		/* also cgroup messages, not counted */
#define ARENA_MAX	(4u << 20)	/* payload bytes held for one batch */
#define OUT_SIZE	(1u << 20)
#define COMM_LEN	16		/* blkparse keeps 15 chars and a NUL */

struct held {
	struct bt_event ev;
	size_t pdu_off;		/* payload copy in the arena */
	size_t order;		/* read order, for blkparse's tie breaking */
};

struct comm_slot {
	uint32_t pid;
	uint8_t used;
	char comm[COMM_LEN];
};

struct cat {
	struct bt_opts o;
	unsigned fmt_flags;
	struct held *batch;
	size_t nbatch;
	unsigned char *arena;
	size_t arena_len, arena_cap;
	uint64_t genesis;
	int have_genesis;
	struct comm_slot *comm;
	size_t comm_slots, comm_used;
	char *out;
	size_t out_len;
	struct bt_table *table;
	char *detail;		/* CSV detail cell, grown to the largest */
	size_t detail_cap;
	uint64_t skipped;	/* records blkparse complains about */
	int write_err;
};

static const char *const csv_cols[] = {
	"time_s", "dev", "cpu", "seq", "pid", "comm", "action", "rwbs",
	"sector", "bytes", "error", "detail",
};

static void die_nomem(const struct cat *c)
{
	fprintf(stderr, "%s: %s\n", c->o.prog, strerror(ENOMEM));
	exit(BT_EXIT_DATA);
}

/* ------------------------------------------------------ pid -> comm */

static struct comm_slot *comm_find(const struct cat *c, uint32_t pid)
{
	size_t mask = c->comm_slots - 1;
	size_t i = (pid * 2654435761u) & mask;

	while (c->comm[i].used && c->comm[i].pid != pid)
		i = (i + 1) & mask;
	return &c->comm[i];
}

static const char *comm_get(const struct cat *c, uint32_t pid)
{
	const struct comm_slot *s;

	if (!c->comm_used)
		return NULL;
	s = comm_find(c, pid);
	return s->used ? s->comm : NULL;
}

/* blkparse keeps the first name a pid was given. */
static void comm_note(struct cat *c, const struct bt_event *e)
{
	struct comm_slot *s, *old = c->comm;
	size_t oslots = c->comm_slots, n;

	if ((c->comm_used + 1) * 2 > c->comm_slots) {
		c->comm_slots = oslots ? oslots * 2 : 1024;
		c->comm = calloc(c->comm_slots, sizeof(*c->comm));
		if (!c->comm)
			die_nomem(c);
		for (size_t i = 0; i < oslots; i++)
			if (old[i].used)
				*comm_find(c, old[i].pid) = old[i];
		free(old);
	}
	s = comm_find(c, e->pid);
	if (s->used)
		return;
	n = e->pdu ? strnlen((const char *)e->pdu, e->pdu_len) : 0;
	if (n > COMM_LEN - 1)
		n = COMM_LEN - 1;
	memcpy(s->comm, e->pdu, n);
	s->comm[n] = '\0';
	s->pid = e->pid;
	s->used = 1;
	c->comm_used++;
}

/* ------------------------------------------------------------ output */

static void out_flush(struct cat *c)
{
	if (c->out_len && fwrite(c->out, 1, c->out_len, stdout) != c->out_len)
		c->write_err = 1;
	c->out_len = 0;
}

static void print_text(struct cat *c, const struct bt_event *e, uint64_t rel)
{
	size_t need = bt_format_bound(e);

	if (OUT_SIZE - c->out_len < need)
		out_flush(c);
	if (need > OUT_SIZE) {	/* a huge PC dump: format it apart */
		char *big = malloc(need);

		if (!big)
			die_nomem(c);
		size_t n = bt_format_line(big, e, rel, comm_get(c, e->pid),
					  c->fmt_flags);
		if (fwrite(big, 1, n, stdout) != n)
			c->write_err = 1;
		free(big);
		return;
	}
	c->out_len += bt_format_line(c->out + c->out_len, e, rel,
				     comm_get(c, e->pid), c->fmt_flags);
}

static void print_csv(struct cat *c, const struct bt_event *e, uint64_t rel)
{
	struct bt_table *t = c->table;
	char rwbs[8];
	size_t need = bt_format_bound(e) + 1, n;

	if (c->detail_cap < need) {
		free(c->detail);
		c->detail = malloc(need);
		if (!c->detail)
			die_nomem(c);
		c->detail_cap = need;
	}
	n = bt_format_detail(c->detail, e);
	c->detail[n] = '\0';
	bt_table_s(t, rel);
	bt_table_dev(t, e->dev);
	bt_table_u64(t, e->cpu);
	bt_table_u64(t, e->sequence);
	bt_table_u64(t, e->pid);
	bt_table_str(t, comm_get(c, e->pid));
	bt_table_str(t, bt_event_letters(e));
	bt_table_str(t, bt_event_is_note(e) ? "N" : bt_event_rwbs(e, rwbs));
	bt_table_u64(t, e->sector);
	bt_table_u64(t, e->bytes);
	bt_table_i64(t, (int16_t)e->error);
	bt_table_str(t, c->detail);
	bt_table_end_row(t);
}

static void print_event(struct cat *c, const struct bt_event *e)
{
	const struct bt_opts *o = &c->o;
	uint64_t rel = e->time - c->genesis;
	int kind = bt_format_kind(e, c->fmt_flags);

	if (kind <= 0) {
		c->skipped += kind < 0;
		return;
	}
	/*
	 * A cgroup message before the first event (1.2.0 does not count
	 * them, so they cannot move the origin) prints at time 0.
	 */
	if (bt_event_is_note(e) && e->has_cgroup && e->time < c->genesis)
		rel = 0;
	if ((o->has_dev && e->dev != o->dev) ||
	    (o->has_pid && e->pid != o->pid) ||
	    (o->has_window && (rel < o->win_start || rel >= o->win_end)))
		return;
	if (c->table)
		print_csv(c, e, rel);
	else
		print_text(c, e, rel);
}

/* ------------------------------------------------------------ batches */

static int before(const struct held *a, const struct held *b)
{
	if (a->ev.time != b->ev.time)
		return a->ev.time < b->ev.time;
	if (a->ev.dev != b->ev.dev)
		return a->ev.dev < b->ev.dev;
	if (a->ev.sequence != b->ev.sequence)
		return a->ev.sequence < b->ev.sequence;
	return a->order > b->order;
}

/* Insertion sort: batches are nearly always in order already. */
static void sort_batch(struct held *h, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct held x;
		size_t j = i;

		if (!before(&h[i], &h[i - 1]))
			continue;
		x = h[i];

		while (j && before(&x, &h[j - 1])) {
			h[j] = h[j - 1];
			j--;
		}
		h[j] = x;
	}
}

static void flush_batch(struct cat *c)
{
	uint64_t min = UINT64_MAX;

	for (size_t i = 0; i < c->nbatch; i++) {
		struct held *h = &c->batch[i];

		h->ev.pdu = h->ev.pdu_len ? c->arena + h->pdu_off : NULL;
		if (!(bt_event_is_note(&h->ev) && h->ev.has_cgroup) &&
		    h->ev.time < min)
			min = h->ev.time;
	}
	/* blkparse looks for its origin again while it is still 0. */
	if (!c->genesis && min != UINT64_MAX)
		c->genesis = min;
	sort_batch(c->batch, c->nbatch);
	for (size_t i = 0; i < c->nbatch; i++)
		print_event(c, &c->batch[i].ev);
	c->nbatch = 0;
	c->arena_len = 0;
}

static void hold(struct cat *c, const struct bt_event *e, size_t order)
{
	struct held *h = &c->batch[c->nbatch++];

	if (c->arena_cap - c->arena_len < e->pdu_len) {
		size_t cap = c->arena_cap ? c->arena_cap : 65536;
		unsigned char *a;

		while (cap - c->arena_len < e->pdu_len)
			cap *= 2;
		a = realloc(c->arena, cap);
		if (!a)
			die_nomem(c);
		c->arena = a;
		c->arena_cap = cap;
	}
	h->ev = *e;
	h->pdu_off = c->arena_len;
	h->order = order;
	if (e->pdu_len)
		memcpy(c->arena + c->arena_len, e->pdu, e->pdu_len);
	c->arena_len += e->pdu_len;
}

/*
 * Read every input, batch by batch.  Returns BT_EXIT_DATA after a bad
 * record (what came before it still printed), else BT_EXIT_OK.
 */
static int run(struct cat *c, struct bt_reader *r)
{
	struct bt_opts raw = c->o;
	struct bt_event e;
	uint64_t first = UINT64_MAX;
	size_t counted = 0, order = 0;
	int rc, v120 = (c->fmt_flags & BT_FMT_V120) != 0;

	/* Filters apply at print time: the origin is the whole trace's. */
	raw.has_dev = raw.has_pid = raw.has_window = false;
	while ((rc = bt_tool_next(&raw, r, &e, &first)) > 0) {
		if (bt_event_is_note(&e)) {
			if (e.category != BT_TC_NOTIFY ||
			    (e.has_cgroup && v120))
				continue;	/* 1.2.0 matches the whole word */
			if (e.action == BT_N_PROCESS) {
				comm_note(c, &e);
				continue;
			}
			if (e.action != BT_N_MESSAGE)
				continue;
			counted += !e.has_cgroup;
		} else {
			counted++;
		}
		hold(c, &e, order++);
		if (counted == BATCH || c->nbatch == BATCH_MAX ||
		    c->arena_len > ARENA_MAX) {
			flush_batch(c);
			counted = 0;
		}
	}
	flush_batch(c);
	return rc < 0 ? BT_EXIT_DATA : BT_EXIT_OK;
}

/* ------------------------------------------------------------ main */

static void usage(const char *prog)
{
	printf("Usage: %s [options] [TRACE...]\n"
	       "Print the events of blktrace traces as `blkparse -q` prints\n"
	       "them, or with -c one CSV row per event (-H: no header row).\n"
	       "No TRACE or - reads stdin.\n\n"
	       "Options:\n%s"
	       "      --blkparse=VER     1.3 (default) or 1.2: as Debian's\n"
	       "                         blkparse 1.2.0, no line for\n"
	       "                         cgroup-flagged records\n",
	       prog, bt_common_usage);
}

static void parse_args(struct cat *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		BT_COMMON_LONGOPTS,
		{ "blkparse", required_argument, NULL, 'B' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	bt_opts_init(&c->o, argv[0]);
	opterr = 0;	/* our messages name the program without its path */
	while ((ch = getopt_long(argc, argv, BT_COMMON_SHORTOPTS, longopts,
				 NULL)) != -1) {
		if (bt_opts_common(&c->o, ch, optarg))
			continue;
		if (ch == 'h') {
			usage(c->o.prog);
			exit(BT_EXIT_OK);
		} else if (ch == 'B' && !strcmp(optarg, "1.2")) {
			c->fmt_flags |= BT_FMT_V120;
		} else if (ch == 'B' && !strcmp(optarg, "1.3")) {
			c->fmt_flags &= ~BT_FMT_V120;
		} else if (ch == 'B') {
			bt_usage_error(&c->o, "bad blkparse version '%s' (want 1.2 or 1.3)",
				       optarg);
		} else if (optopt && !strncmp(argv[optind - 1], "--", 2)) {
			bt_usage_error(&c->o, "option '%s' requires an argument",
				       argv[optind - 1]);
		} else if (optopt && strchr("dpw", optopt)) {
			bt_usage_error(&c->o, "option requires an argument -- '%c'",
				       optopt);
		} else if (optopt) {
			bt_usage_error(&c->o, "invalid option -- '%c'", optopt);
		} else {
			bt_usage_error(&c->o, "unrecognized option '%s'",
				       argv[optind - 1]);
		}
	}
}

int main(int argc, char **argv)
{
	static struct cat c;
	struct bt_reader *r;
	int rc;

	parse_args(&c, argc, argv);
	r = bt_tool_open(&c.o, argc, argv);
	c.batch = malloc(BATCH_MAX * sizeof(*c.batch));
	c.out = malloc(OUT_SIZE);
	if (!c.batch || !c.out)
		die_nomem(&c);
	if (c.o.csv)
		c.table = bt_tool_table(&c.o, csv_cols, 12);
	rc = run(&c, r);
	if (c.table && bt_tool_table_done(&c.o, c.table))
		rc = BT_EXIT_DATA;
	out_flush(&c);
	if (fflush(stdout) || c.write_err) {
		fprintf(stderr, "%s: write error: %s\n", c.o.prog, strerror(errno));
		rc = BT_EXIT_DATA;
	}
	if (c.skipped)
		fprintf(stderr, "%s: warning: %" PRIu64
			" records with an action blkparse does not print\n",
			c.o.prog, c.skipped);
	bt_tool_warnings(&c.o, r);
	bt_reader_free(r);
	free(c.batch);
	free(c.out);
	free(c.arena);
	free(c.comm);
	free(c.detail);
	return rc;
}
