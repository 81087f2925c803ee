// SPDX-License-Identifier: MIT
/*
 * btcat - decode blktrace traces to the event lines `blkparse -q` prints,
 * or to one CSV row per event.  To be byte-identical with blkparse it
 * processes records in blkparse's order, with bounded memory:
 *
 * - one input (a stream, `blkparse -q -i - < trace`): batches of 512
 *   events, each sorted by time, device and sequence (ties come out last
 *   read first); times relative to the smallest time of the first batch;
 * - several inputs (a per-CPU set, `blkparse -q -i NAME`): each read 512
 *   events ahead, merged through blkparse's list ordered by next time (on
 *   a tie the input just served stays first); times relative to the
 *   earliest first event.
 *
 * PROCESS notes are applied as they are read ahead, the first name of a
 * pid winning, so an event may take the name of a note that follows it.
 */
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
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

/* Records read ahead, with copies of their payloads. */
struct batch {
	struct held *h;		/* BATCH_MAX entries */
	size_t n, pos;		/* held, and next to print (merge mode) */
	unsigned char *arena;
	size_t len, cap;
	size_t order;
};

/* blkparse's counters, per device and CPU and per process (-s). */
struct io_stats {
	uint64_t q[2], q_kb[2], q_b[2];		/* [0] reads, [1] writes */
	uint64_t m[2], m_kb[2], m_b[2];
	uint64_t i[2], i_kb[2], i_b[2];
	uint64_t c[2], c_kb[2], c_b[2];
	uint64_t rq[2];
	uint64_t q_pc[2], q_kb_pc[2], q_b_pc[2];
	uint64_t i_pc[2], i_kb_pc[2], i_b_pc[2];
	uint64_t rq_pc[2], c_pc[2];
	uint64_t io_unplugs, timer_unplugs;
};

struct cpu_stats {
	uint32_t cpu;
	uint64_t nelems;	/* records shown */
	struct io_stats ios;
};

struct dev_stats {
	uint32_t dev;
	char name[32];		/* "maj,min", or NAME of a per-CPU set */
	struct cpu_stats *cpus;	/* sorted by cpu: a corrupt cpu costs one */
	size_t ncpus, hit;		/* index of the last cpu looked up */
	uint64_t events, first, last;	/* dumped records, their times */
	uint32_t depth[2], max_depth[2];
};

struct proc_stats {
	uint32_t pid;
	struct io_stats ios;
};

struct summary {
	struct dev_stats *devs;
	size_t ndevs;
	struct proc_stats *procs;	/* in order of creation */
	size_t nprocs, procs_cap;
	uint32_t *slot;			/* pid hash -> procs index + 1 */
	size_t slots;
};

/* One input of a merge, in blkparse's list of inputs by next time. */
struct stream {
	struct bt_reader *r;
	struct batch b;
	struct stream *next;
	size_t dev;		/* -s: its per-CPU set in c->sum->devs */
	int done;
};

/* Sequence numbers per device and CPU, and blkparse's gaps ("skips"). */
struct skip {
	uint64_t start, end;
};

struct seq_slot {
	uint64_t key;		/* dev << 32 | cpu, + 1 (0: free) */
	uint64_t last;		/* UINT64_MAX before the first record */
	uint32_t dev;
	struct skip *skips;
	size_t nskips, cap;
};

struct seqs {
	struct seq_slot *slot;
	size_t n, cap;
};

struct comm_slot {
	uint32_t pid;
	uint8_t used;
	char comm[COMM_LEN];
};

struct cat {
	struct bt_opts o;
	unsigned fmt_flags;
	struct batch b;		/* stream mode */
	uint64_t genesis;
	int have_genesis;
	uint64_t first;		/* bt_tool_next's, unused: filters are ours */
	int failed;		/* an input had a bad record */
	struct comm_slot *comm;
	size_t comm_slots, comm_used;
	char *out;
	size_t out_len;
	struct bt_table *table;
	char *detail;		/* CSV detail cell, grown to the largest */
	size_t detail_cap;
	uint64_t skipped;	/* records blkparse complains about */
	struct summary *sum;	/* -s */
	struct seqs seqs;	/* stream mode */
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
static void comm_set(struct cat *c, uint32_t pid, const char *name, size_t n)
{
	struct comm_slot *s, *old = c->comm;
	size_t oslots = c->comm_slots;

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
	s = comm_find(c, pid);
	if (s->used)
		return;
	n = strnlen(name, n);
	if (n > COMM_LEN - 1)
		n = COMM_LEN - 1;
	memcpy(s->comm, name, n);
	s->comm[n] = '\0';
	s->pid = pid;
	s->used = 1;
	c->comm_used++;
}

static void comm_note(struct cat *c, const struct bt_event *e)
{
	comm_set(c, e->pid, e->pdu ? (const char *)e->pdu : "", e->pdu_len);
}

/* ------------------------------------------------------------ summary */

static struct dev_stats *sum_dev(struct cat *c, uint32_t dev, const char *name)
{
	struct summary *m = c->sum;
	struct dev_stats *d;

	for (size_t i = m->ndevs; i-- > 0;) {
		d = &m->devs[i];
		if (name ? !strcmp(d->name, name) : d->dev == dev)
			return d;
	}
	d = realloc(m->devs, (m->ndevs + 1) * sizeof(*d));
	if (!d)
		die_nomem(c);
	m->devs = d;
	d = &m->devs[m->ndevs++];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	if (name)
		snprintf(d->name, sizeof(d->name), "%s", name);
	else
		snprintf(d->name, sizeof(d->name), "%u,%u", BT_DEV_MAJOR(dev),
			 BT_DEV_MINOR(dev));
	return d;
}

static struct cpu_stats *sum_cpu(struct cat *c, struct dev_stats *d,
				 uint32_t cpu)
{
	size_t lo = 0, hi = d->ncpus;
	struct cpu_stats *p;

	if (d->hit < d->ncpus && d->cpus[d->hit].cpu == cpu)
		return &d->cpus[d->hit];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (d->cpus[mid].cpu < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == d->ncpus || d->cpus[lo].cpu != cpu) {
		p = realloc(d->cpus, (d->ncpus + 1) * sizeof(*p));
		if (!p)
			die_nomem(c);
		d->cpus = p;
		memmove(p + lo + 1, p + lo, (d->ncpus - lo) * sizeof(*p));
		memset(p + lo, 0, sizeof(*p));
		p[lo].cpu = cpu;
		d->ncpus++;
	}
	d->hit = lo;
	return &d->cpus[lo];
}

/* A pid's counters; a pid first met here is named "unknown" for good. */
static struct io_stats *sum_proc(struct cat *c, uint32_t pid)
{
	struct summary *m = c->sum;
	size_t mask, i;

	if ((m->nprocs + 1) * 2 > m->slots) {
		free(m->slot);
		m->slots = m->slots ? m->slots * 2 : 256;
		m->slot = calloc(m->slots, sizeof(*m->slot));
		if (!m->slot)
			die_nomem(c);
		for (size_t k = 0; k < m->nprocs; k++) {
			mask = m->slots - 1;
			for (i = (m->procs[k].pid * 2654435761u) & mask;
			     m->slot[i]; i = (i + 1) & mask)
				;
			m->slot[i] = (uint32_t)k + 1;
		}
	}
	mask = m->slots - 1;
	for (i = (pid * 2654435761u) & mask; m->slot[i]; i = (i + 1) & mask)
		if (m->procs[m->slot[i] - 1].pid == pid)
			return &m->procs[m->slot[i] - 1].ios;
	if (m->nprocs == m->procs_cap) {
		size_t cap = m->procs_cap ? m->procs_cap * 2 : 64;
		struct proc_stats *p = realloc(m->procs, cap * sizeof(*p));

		if (!p)
			die_nomem(c);
		m->procs = p;
		m->procs_cap = cap;
	}
	memset(&m->procs[m->nprocs], 0, sizeof(m->procs[0]));
	m->procs[m->nprocs].pid = pid;
	m->slot[i] = (uint32_t)++m->nprocs;
	if (!comm_get(c, pid))
		comm_set(c, pid, "unknown", 7);
	return &m->procs[m->nprocs - 1].ios;
}

/* What blkparse's dump_trace_fs/pc add up for an event it prints. */
static void sum_io(struct io_stats *s, const struct bt_event *e, int pc)
{
	int w = (e->category & BT_TC_WRITE) != 0;
	uint64_t kb = e->bytes >> 10, b = e->bytes & 1023;

	switch (e->action) {
	case BT_A_QUEUE:
		if (pc) {
			/* blkparse adds PC read KiB to the FS read counter. */
			s->q_pc[w]++;
			if (w)
				s->q_kb_pc[1] += kb;
			else
				s->q_kb[0] += kb;
			s->q_b_pc[w] += b;
		} else {
			s->q[w]++;
			s->q_kb[w] += kb;
			s->q_b[w] += b;
		}
		break;
	case BT_A_BACKMERGE:
	case BT_A_FRONTMERGE:
		s->m[w]++;
		s->m_kb[w] += kb;
		s->m_b[w] += b;
		break;
	case BT_A_REQUEUE:	/* unsigned: may wrap, as in blkparse */
		if (pc) {
			s->rq_pc[w]++;
			s->i_kb_pc[w] -= kb;
			s->i_b_pc[w] -= b;
		} else {
			s->rq[w]++;
			s->i_kb[w] -= kb;
			s->i_b[w] -= b;
		}
		break;
	case BT_A_ISSUE:
		if (pc) {
			s->i_pc[w]++;
			s->i_kb_pc[w] += kb;
			s->i_b_pc[w] += b;
		} else {
			s->i[w]++;
			s->i_kb[w] += kb;
			s->i_b[w] += b;
		}
		break;
	case BT_A_COMPLETE:
		if (pc) {
			s->c_pc[w]++;
		} else {
			s->c[w]++;
			s->c_kb[w] += kb;
			s->c_b[w] += b;
		}
		break;
	case BT_A_UNPLUG_IO:
		s->io_unplugs++;
		break;
	case BT_A_UNPLUG_TIMER:
		s->timer_unplugs++;
		break;
	}
}

static int sum_counts(const struct bt_event *e, int pc)
{
	switch (e->action) {
	case BT_A_QUEUE:
	case BT_A_REQUEUE:
	case BT_A_ISSUE:
	case BT_A_COMPLETE:
		return 1;
	case BT_A_BACKMERGE:
	case BT_A_FRONTMERGE:
	case BT_A_UNPLUG_IO:
	case BT_A_UNPLUG_TIMER:
		return !pc;
	default:
		return 0;
	}
}

/*
 * Account e as blkparse does when it shows it.  late: the part blkparse
 * does after printing the line (PC queue and complete), else the part
 * before, which can name a pid "unknown" in that very line.
 */
static void sum_event(struct cat *c, struct dev_stats *d,
		      const struct bt_event *e, uint64_t rel, int kind,
		      int late)
{
	int pc = (e->category & BT_TC_PC) != 0;
	int w = (e->category & BT_TC_WRITE) != 0;
	int after = pc && (e->action == BT_A_QUEUE ||
			   e->action == BT_A_COMPLETE);
	struct cpu_stats *cs;

	if (!late) {
		cs = sum_cpu(c, d, e->cpu);
		cs->nelems++;
		d->last = rel;
		if (!e->category)
			return;	/* outside blkparse's mask: not dumped */
		if (!d->events)
			d->first = rel;
		d->events++;
	}
	if (kind <= 0 || bt_event_is_note(e) || late != after)
		return;
	if (e->action == BT_A_REQUEUE || e->action == BT_A_COMPLETE) {
		if (d->depth[w])
			d->depth[w]--;
	} else if (e->action == BT_A_ISSUE) {
		if (++d->depth[w] > d->max_depth[w])
			d->max_depth[w] = d->depth[w];
	}
	sum_io(&sum_cpu(c, d, e->cpu)->ios, e, pc);
	if (sum_counts(e, pc))
		sum_io(sum_proc(c, e->pid), e, pc);
}

/* blkparse's size_cnv(): thousands, K, M... with the locale's grouping. */
static const char *size_cnv(char *buf, uint64_t num, int in_kb)
{
	static const char suff[] = { '\0', 'K', 'M', 'G', 'P' };
	unsigned i = in_kb ? 1 : 0;

	while (num > 1000 * 1000ull && i < sizeof(suff) - 1) {
		i++;
		num /= 1000;
	}
	snprintf(buf, 32, "%'8" PRIu64 "%c", num, suff[i]);
	return buf;
}

static void print_ios(const struct io_stats *s, const struct dev_stats *d,
		      const char *title)
{
	char x[32], y[32];

	printf("%s\n", title);
	printf(" Reads Queued:    %s, %siB\t", size_cnv(x, s->q[0], 0),
	       size_cnv(y, s->q_kb[0] + (s->q_b[0] >> 10), 1));
	printf(" Writes Queued:    %s, %siB\n", size_cnv(x, s->q[1], 0),
	       size_cnv(y, s->q_kb[1] + (s->q_b[1] >> 10), 1));
	printf(" Read Dispatches: %s, %siB\t", size_cnv(x, s->i[0], 0),
	       size_cnv(y, s->i_kb[0] + (s->i_b[0] >> 10), 1));
	printf(" Write Dispatches: %s, %siB\n", size_cnv(x, s->i[1], 0),
	       size_cnv(y, s->i_kb[1] + (s->i_b[1] >> 10), 1));
	printf(" Reads Requeued:  %s\t\t", size_cnv(x, s->rq[0], 0));
	printf(" Writes Requeued:  %s\n", size_cnv(x, s->rq[1], 0));
	printf(" Reads Completed: %s, %siB\t", size_cnv(x, s->c[0], 0),
	       size_cnv(y, s->c_kb[0] + (s->c_b[0] >> 10), 1));
	printf(" Writes Completed: %s, %siB\n", size_cnv(x, s->c[1], 0),
	       size_cnv(y, s->c_kb[1] + (s->c_b[1] >> 10), 1));
	printf(" Read Merges:     %s, %siB\t", size_cnv(x, s->m[0], 0),
	       size_cnv(y, s->m_kb[0] + (s->m_b[0] >> 10), 1));
	printf(" Write Merges:     %s, %siB\n", size_cnv(x, s->m[1], 0),
	       size_cnv(y, s->m_kb[1] + (s->m_b[1] >> 10), 1));
	if (d) {
		printf(" Read depth:      %'8u%8c\t", d->max_depth[0], ' ');
		printf(" Write depth:      %'8u\n", d->max_depth[1]);
	}
	if (s->q_pc[0] || s->q_pc[1] || s->i_pc[0] || s->i_pc[1] ||
	    s->rq_pc[0] || s->rq_pc[1] || s->c_pc[0] || s->c_pc[1]) {
		printf(" PC Reads Queued: %s, %siB\t", size_cnv(x, s->q_pc[0], 0),
		       size_cnv(y, s->q_kb_pc[0] + (s->q_b_pc[0] >> 10), 1));
		printf(" PC Writes Queued: %s, %siB\n", size_cnv(x, s->q_pc[1], 0),
		       size_cnv(y, s->q_kb_pc[1] + (s->q_b_pc[1] >> 10), 1));
		printf(" PC Read Disp.:   %s, %siB\t", size_cnv(x, s->i_pc[0], 0),
		       size_cnv(y, s->i_kb_pc[0] + (s->i_b_pc[0] >> 10), 1));
		printf(" PC Write Disp.:   %s, %siB\n", size_cnv(x, s->i_pc[1], 0),
		       size_cnv(y, s->i_kb_pc[1] + (s->i_b_pc[1] >> 10), 1));
		printf(" PC Reads Req.:   %s\t\t", size_cnv(x, s->rq_pc[0], 0));
		printf(" PC Writes Req.:   %s\n", size_cnv(x, s->rq_pc[1], 0));
		printf(" PC Reads Compl.: %s\t\t", size_cnv(x, s->c_pc[0], 0));
		printf(" PC Writes Compl.: %s\n", size_cnv(x, s->c_pc[1], 0));
	}
	printf(" IO unplugs:      %'8" PRIu64 "%8c\t", s->io_unplugs, ' ');
	printf(" Timer unplugs:    %'8" PRIu64 "\n", s->timer_unplugs);
}

static void add_ios(struct io_stats *t, const struct io_stats *s)
{
	uint64_t *a = (uint64_t *)t;
	const uint64_t *b = (const uint64_t *)s;

	for (size_t i = 0; i < sizeof(*t) / sizeof(uint64_t); i++)
		a[i] += b[i];
}

/* blkparse's comparator, 0 or 1 on equal names, kept for its order. */
static int proc_cmp(const void *a, const void *b, void *arg)
{
	const struct cat *c = arg;
	const struct proc_stats *p = *(const struct proc_stats *const *)a;
	const struct proc_stats *q = *(const struct proc_stats *const *)b;
	int res = strverscmp(comm_get(c, p->pid), comm_get(c, q->pid));

	return res ? res : (int32_t)p->pid > (int32_t)q->pid;	/* pid_t */
}

/* What `blkparse -s` prints after the events (device stats as without -q). */
static void sum_print(struct cat *c)
{
	struct summary *m = c->sum;
	struct proc_stats **order = malloc((m->nprocs + 1) * sizeof(*order));
	char title[64];

	if (!order)
		die_nomem(c);
	setlocale(LC_NUMERIC, "");
	/* blkparse lists processes newest first, then sorts them. */
	for (size_t i = 0; i < m->nprocs; i++)
		order[i] = &m->procs[m->nprocs - 1 - i];
	qsort_r(order, m->nprocs, sizeof(*order), proc_cmp, c);
	for (size_t i = 0; i < m->nprocs; i++) {
		snprintf(title, sizeof(title), "%s (%u)",
			 comm_get(c, order[i]->pid), order[i]->pid);
		print_ios(&order[i]->ios, NULL, title);
		for (int k = 0; k < 3; k++) {
			static const char *const what[] = {
				"Allocation", "Dispatch", "Completion" };

			/* Waits need blkparse -t, which btcat does not do. */
			printf(" %s wait:%*s%'8lu%8c\t", what[k],
			       (int)(11 - strlen(what[k])), "", 0ul, ' ');
			printf(" %s wait:%*s%'8lu\n", what[k],
			       (int)(12 - strlen(what[k])), "", 0ul);
		}
	}
	printf("\n");
	free(order);
	for (size_t i = 0; i < m->ndevs; i++) {
		struct dev_stats *d = &m->devs[i];
		struct io_stats total;
		int ncpu = 0;
		uint64_t msec, rrate = 0, wrate = 0, skips = 0, seq_skips = 0;
		double ratio;

		memset(&total, 0, sizeof(total));
		if (i)
			printf("\n");
		for (size_t k = 0; k < d->ncpus; k++) {
			if (!d->cpus[k].nelems)
				continue;
			add_ios(&total, &d->cpus[k].ios);
			/* blkparse's cpu is an int. */
			snprintf(title, sizeof(title), "CPU%d (%s):",
				 (int)d->cpus[k].cpu, d->name);
			print_ios(&d->cpus[k].ios, d, title);
			ncpu++;
		}
		if (ncpu > 1) {
			printf("\n");
			snprintf(title, sizeof(title), "Total (%s):", d->name);
			print_ios(&total, NULL, title);
		}
		msec = (d->last - d->first) / 1000000;
		if (msec) {
			rrate = (1000 * total.c_kb[0] + total.c_b[0]) / msec;
			wrate = (1000 * total.c_kb[1] + total.c_b[1]) / msec;
		}
		printf("\nThroughput (R/W): %'" PRIu64 "KiB/s / %'" PRIu64
		       "KiB/s\n", rrate, wrate);
		printf("Events (%s): %'" PRIu64 " entries\n", d->name, d->events);
		for (size_t k = 0; k < c->seqs.cap; k++) {
			const struct seq_slot *q = &c->seqs.slot[k];

			if (!q->key || q->dev != d->dev)
				continue;	/* (file mode checks no sequence) */
			skips += q->nskips;
			for (size_t j = 0; j < q->nskips; j++)
				seq_skips += q->skips[j].end - q->skips[j].start + 1;
		}
		ratio = !skips && !d->events ? 0.0 : 100.0 * (double)seq_skips /
			(double)(d->events + seq_skips);
		printf("Skips: %'" PRIu64 " forward (%'" PRIu64 " - %5.1lf%%)\n",
		       skips, seq_skips, ratio);
	}
	setlocale(LC_NUMERIC, "C");
}

static void sum_free(struct summary *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->ndevs; i++)
		free(m->devs[i].cpus);
	free(m->devs);
	free(m->procs);
	free(m->slot);
	free(m);
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

static void print_event(struct cat *c, struct dev_stats *d,
			const struct bt_event *e)
{
	const struct bt_opts *o = &c->o;
	uint64_t rel = e->time - c->genesis;
	int kind = bt_format_kind(e, c->fmt_flags);

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
	if (d)
		sum_event(c, d, e, rel, kind, 0);
	if (kind <= 0) {
		c->skipped += kind < 0;
		return;
	}
	if (c->table)
		print_csv(c, e, rel);
	else
		print_text(c, e, rel);
	if (d)
		sum_event(c, d, e, rel, kind, 1);
}

/* ------------------------------------------------------------ batches */

static void batch_init(struct cat *c, struct batch *b)
{
	memset(b, 0, sizeof(*b));
	b->h = malloc(BATCH_MAX * sizeof(*b->h));
	if (!b->h)
		die_nomem(c);
}

static void batch_hold(struct cat *c, struct batch *b, const struct bt_event *e)
{
	struct held *h = &b->h[b->n++];

	if (b->cap - b->len < e->pdu_len) {
		size_t cap = b->cap ? b->cap : 65536;
		unsigned char *a;

		while (cap - b->len < e->pdu_len)
			cap *= 2;
		a = realloc(b->arena, cap);
		if (!a)
			die_nomem(c);
		b->arena = a;
		b->cap = cap;
	}
	h->ev = *e;
	h->pdu_off = b->len;
	h->order = b->order++;
	if (e->pdu_len)
		memcpy(b->arena + b->len, e->pdu, e->pdu_len);
	b->len += e->pdu_len;
}

/* Point the held events at their payload copies (the arena may move). */
static void batch_fix(struct batch *b)
{
	for (size_t i = 0; i < b->n; i++)
		b->h[i].ev.pdu = b->h[i].ev.pdu_len ? b->arena + b->h[i].pdu_off
						    : NULL;
}

static int batch_full(const struct batch *b, size_t counted)
{
	return counted == BATCH || b->n == BATCH_MAX || b->len > ARENA_MAX;
}

static void batch_free(struct batch *b)
{
	free(b->h);
	free(b->arena);
}

/*
 * What blkparse does with a record as it reads it: 0 consumed (a note:
 * PROCESS names its pid), 1 held and counted in the batch, 2 held but not
 * counted (cgroup-flagged messages, which 1.2.0 consumes unseen).
 */
static int take(struct cat *c, const struct bt_event *e)
{
	if (!bt_event_is_note(e))
		return 1;
	/* 1.2.0 compares the whole action word, cgroup bit included. */
	if (e->category != BT_TC_NOTIFY ||
	    (e->has_cgroup && (c->fmt_flags & BT_FMT_V120)))
		return 0;
	if (e->action == BT_N_PROCESS) {
		comm_note(c, e);
		return 0;
	}
	if (e->action != BT_N_MESSAGE)
		return 0;
	return e->has_cgroup ? 2 : 1;
}

/*
 * Read up to a batch from r; 0 at the end or after a bad record (its
 * message printed, c->failed set).  Filters apply at print time: the
 * origin of the times is the whole trace's.
 */
static size_t batch_read(struct cat *c, struct batch *b, struct bt_reader *r)
{
	static const struct bt_opts none = { .prog = NULL };
	struct bt_opts raw = none;
	struct bt_event e;
	size_t counted = 0;
	int rc, k;

	raw.prog = c->o.prog;
	b->n = b->pos = b->len = 0;
	while (!batch_full(b, counted) &&
	       (rc = bt_tool_next(&raw, r, &e, &c->first)) != 0) {
		if (rc < 0) {
			c->failed = 1;
			break;
		}
		k = take(c, &e);
		if (k)
			batch_hold(c, b, &e);
		counted += k == 1;
	}
	batch_fix(b);
	return b->n;
}

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

/*
 * blkparse reading a stream prints a record only when it is the next in
 * its device and CPU's sequence (any number for the first).  At the first
 * record that is not, it stops printing until the end of the input, then
 * prints the rest with every note of the trace known, noting the gaps in
 * the sequence as "skips" (-s).  seq_check() follows it: 0 when e stalls
 * the stream; once stalled (force), it records the gaps as blkparse does,
 * quirks included.
 */
static struct seq_slot *seq_slot(struct cat *c, struct seqs *t,
				 const struct bt_event *e)
{
	uint64_t key = ((uint64_t)e->dev << 32 | e->cpu) + 1;
	size_t i, mask;

	if ((t->n + 1) * 2 > t->cap) {
		struct seq_slot *old = t->slot;
		size_t ocap = t->cap;

		t->cap = ocap ? ocap * 2 : 64;
		t->slot = calloc(t->cap, sizeof(*t->slot));
		if (!t->slot)
			die_nomem(c);
		for (size_t k = 0; k < ocap; k++) {
			if (!old[k].key)
				continue;
			for (i = old[k].key * 0x9e3779b97f4a7c15ull & (t->cap - 1);
			     t->slot[i].key; i = (i + 1) & (t->cap - 1))
				;
			t->slot[i] = old[k];
		}
		free(old);
	}
	mask = t->cap - 1;
	for (i = key * 0x9e3779b97f4a7c15ull & mask; t->slot[i].key &&
	     t->slot[i].key != key; i = (i + 1) & mask)
		;
	if (!t->slot[i].key) {
		t->slot[i].key = key;
		t->slot[i].last = UINT64_MAX;
		t->slot[i].dev = e->dev;
		t->n++;
	}
	return &t->slot[i];
}

/* insert_skip(): grow a neighbouring gap or note a new one. */
static void skip_add(struct cat *c, struct seq_slot *s, uint64_t start,
		     uint64_t end)
{
	for (size_t k = s->nskips; k-- > 0;) {
		if (end == s->skips[k].start - 1) {
			s->skips[k].start = start;
			return;
		}
		if (start == s->skips[k].end + 1) {
			s->skips[k].end = end;
			return;
		}
	}
	if (s->nskips == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		struct skip *p = realloc(s->skips, cap * sizeof(*p));

		if (!p)
			die_nomem(c);
		s->skips = p;
		s->cap = cap;
	}
	s->skips[s->nskips].start = start;
	s->skips[s->nskips++].end = end;
}

/* check_current_skips(): a late record fills part of a gap. */
static int skip_fill(struct cat *c, struct seq_slot *s, uint64_t seq)
{
	for (size_t k = s->nskips; k-- > 0;) {
		struct skip *p = &s->skips[k];

		if (seq < p->start || seq > p->end)
			continue;
		if (p->start == seq && p->end == seq) {
			memmove(p, p + 1, (s->nskips - k - 1) * sizeof(*p));
			s->nskips--;
		} else if (p->start == seq) {
			p->start++;
		} else if (p->end == seq) {
			p->end--;
		} else {
			/* blkparse passes the end it just cut: start > end. */
			p->end = seq - 1;
			skip_add(c, s, seq + 1, p->end);
		}
		return 1;
	}
	return 0;
}

static int seq_check(struct cat *c, struct seqs *t, const struct bt_event *e,
		     int force)
{
	struct seq_slot *s = seq_slot(c, t, e);
	uint64_t expected = s->last + 1, seq = e->sequence;

	if (expected && seq != expected) {
		if (!force)
			return 0;
		if (!skip_fill(c, s, seq) && expected < seq)
			skip_add(c, s, expected, seq - 1);
	}
	s->last = seq;
	return 1;
}

static void seqs_free(struct seqs *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->slot[i].skips);
	free(t->slot);
}

/*
 * blkparse stalled: the rest prints with the names of every PROCESS note
 * in the trace.  The first name wins, so reading them all now gives those
 * names.  Only a file can be read twice; stdin keeps the names so far.
 */
static void names_of_whole_trace(struct cat *c, struct bt_reader *r)
{
	const char *name = bt_reader_input_name(r, 0);
	struct bt_reader *again;
	struct bt_event e;

	if (!name || !strcmp(name, "-") || bt_reader_new(&again) < 0)
		return;
	if (bt_reader_add(again, name) == 0)
		while (bt_reader_next(again, &e) > 0)
			if (bt_event_is_note(&e))
				take(c, &e);	/* names its pid if PROCESS */
	bt_reader_free(again);
}

/* One input: blkparse's pipe mode. */
static void run_stream(struct cat *c, struct bt_reader *r)
{
	struct batch *b = &c->b;
	int stalled = 0;

	batch_init(c, b);
	while (batch_read(c, b, r)) {
		uint64_t min = UINT64_MAX;

		for (size_t i = 0; i < b->n; i++) {
			const struct bt_event *e = &b->h[i].ev;

			if (!(bt_event_is_note(e) && e->has_cgroup) &&
			    e->time < min)
				min = e->time;
			/* blkparse lists devices in the order it reads them. */
			if (c->sum)
				sum_dev(c, e->dev, NULL);
		}
		/*
		 * blkparse looks for its origin again while it is 0, so a
		 * `blkparse -d` dump (events from time 0) restarts at 0 every
		 * batch; only --blkparse=1.2 copies that.
		 */
		if (min != UINT64_MAX && (!c->have_genesis ||
		    (!c->genesis && (c->fmt_flags & BT_FMT_V120)))) {
			c->genesis = min;
			c->have_genesis = 1;
		}
		sort_batch(b->h, b->n);
		for (size_t i = 0; i < b->n; i++) {
			const struct bt_event *e = &b->h[i].ev;

			if (!bt_event_is_note(e) &&
			    !seq_check(c, &c->seqs, e, stalled)) {
				stalled = 1;
				names_of_whole_trace(c, r);
				seq_check(c, &c->seqs, e, 1);
			}
			print_event(c, c->sum ? sum_dev(c, e->dev, NULL) : NULL,
				    e);
		}
		if (c->failed)
			break;
	}
	batch_free(b);
}

/* ----------------------------------------------------- merge of inputs */

static uint64_t peek(const struct stream *s)
{
	return s->b.h[s->b.pos].ev.time;
}

/* Insert s before the first input whose next event is not earlier. */
static void ms_insert(struct stream **head, struct stream *s)
{
	struct stream *p = *head;

	if (!p || peek(s) < peek(p)) {
		s->next = p;
		*head = s;
		return;
	}
	while (p->next && peek(p->next) < peek(s))
		p = p->next;
	s->next = p->next;
	p->next = s;
}

static int ms_fill(struct cat *c, struct stream *s)
{
	if (!s->done && !batch_read(c, &s->b, s->r))
		s->done = 1;
	return !s->done;
}

/* blkparse's file mode has a device per set, named by its NAME. */
static size_t set_dev(struct cat *c, const char *path)
{
	const char *base = strrchr(path, '/');
	char name[32];
	char *cut;

	snprintf(name, sizeof(name), "%s", base ? base + 1 : path);
	cut = strstr(name, ".blktrace.");
	if (cut)
		*cut = '\0';
	return (size_t)(sum_dev(c, 0, name) - c->sum->devs);
}

/* Several inputs: blkparse's file mode (`blkparse -i NAME`). */
static void run_merge(struct cat *c, struct bt_reader *probe)
{
	size_t n = bt_reader_inputs(probe);
	struct stream *s = calloc(n, sizeof(*s)), *head = NULL, *x;
	uint64_t dups = 0, back = 0;

	if (!s)
		die_nomem(c);
	for (size_t i = 0; i < n; i++) {
		const char *name = bt_reader_input_name(probe, i);
		int rc = bt_reader_new(&s[i].r);

		if (!rc)
			rc = bt_reader_add(s[i].r, name);
		if (rc < 0) {
			fprintf(stderr, "%s: %s: %s\n", c->o.prog, name,
				strerror(-rc));
			exit(BT_EXIT_DATA);
		}
		batch_init(c, &s[i].b);
		if (c->sum)
			s[i].dev = set_dev(c, name);
	}
	for (size_t i = 0; i < n; i++)
		if (ms_fill(c, &s[i]))
			ms_insert(&head, &s[i]);
	if (head)
		c->genesis = peek(head);
	while ((x = head)) {
		print_event(c, c->sum ? &c->sum->devs[x->dev] : NULL,
			    &x->b.h[x->b.pos].ev);
		if (++x->b.pos == x->b.n && !ms_fill(c, x)) {
			head = x->next;
			continue;
		}
		if (x->next && peek(x) > peek(x->next)) {
			head = x->next;
			ms_insert(&head, x);
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct bt_reader_stats st;

		bt_reader_get_stats(s[i].r, &st);
		dups += st.duplicates;
		back += st.backwards;
		bt_reader_free(s[i].r);
		batch_free(&s[i].b);
	}
	free(s);
	if (dups)
		fprintf(stderr, "%s: warning: %" PRIu64
			" duplicated events dropped\n", c->o.prog, dups);
	if (back)
		fprintf(stderr, "%s: warning: time went backwards %" PRIu64
			" times\n", c->o.prog, back);
}

/* ------------------------------------------------------------ main */

static void usage(const char *prog)
{
	printf("Usage: %s [options] [TRACE...]\n"
	       "Print the events of blktrace traces as `blkparse -q` prints\n"
	       "them, or with -c one CSV row per event (-H: no header row).\n"
	       "No TRACE or - reads stdin.\n\n"
	       "Options:\n%s"
	       "  -s, --summary          end with blkparse -s's statistics\n"
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
		{ "summary", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	bt_opts_init(&c->o, argv[0]);
	opterr = 0;	/* our messages name the program without its path */
	while ((ch = getopt_long(argc, argv, BT_COMMON_SHORTOPTS "s", longopts,
				 NULL)) != -1) {
		if (bt_opts_common(&c->o, ch, optarg))
			continue;
		if (ch == 's') {
			c->sum = calloc(1, sizeof(*c->sum));
			if (!c->sum)
				die_nomem(c);
		} else if (ch == 'h') {
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
	int rc = BT_EXIT_OK;

	parse_args(&c, argc, argv);
	r = bt_tool_open(&c.o, argc, argv);
	c.out = malloc(OUT_SIZE);
	if (!c.out)
		die_nomem(&c);
	if (c.o.csv)
		c.table = bt_tool_table(&c.o, csv_cols, 12);
	if (bt_reader_inputs(r) > 1) {
		run_merge(&c, r);
	} else {
		run_stream(&c, r);
		bt_tool_warnings(&c.o, r);
	}
	bt_reader_free(r);
	out_flush(&c);
	if (c.sum && !c.table)
		sum_print(&c);
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
	free(c.out);
	free(c.comm);
	free(c.detail);
	sum_free(c.sum);
	seqs_free(&c.seqs);
	return c.failed ? BT_EXIT_DATA : rc;
}
