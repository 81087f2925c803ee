// SPDX-License-Identifier: MIT
/*
 * summary.c - the statistics `blkparse -s` prints after the events: per
 * process, per device and CPU, and per device (throughput, events, the
 * sequence gaps of a stream).  They add up what blkparse's dump_trace_fs
 * and dump_trace_pc count for the events it shows, quirks included (PC
 * read KiB counted as FS reads, requeues subtracted from unsigned
 * counters), and print with blkparse's show_stats() formats.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define COMM_LEN	16

/* blkparse's counters, per device and CPU and per process. */
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
	char name[32];		/* "maj,min", or NAME of a per-CPU set */
	struct cpu_stats *cpus;	/* sorted by cpu: a corrupt cpu costs one */
	size_t ncpus, hit;		/* index of the last cpu looked up */
	uint64_t events, first, last;	/* dumped records, their times */
	uint32_t depth[2], max_depth[2];
	uint64_t gaps, missing;		/* sequence gaps, records in them */
};

struct proc_stats {
	uint32_t pid;
	char comm[COMM_LEN];
	struct io_stats ios;
};

struct bt_summary {
	struct dev_stats *devs;
	size_t ndevs, devs_cap;
	struct proc_stats *procs;	/* in order of creation */
	size_t nprocs, procs_cap;
	struct bt_map idx;		/* pid -> procs index + 1 */
};

int bt_summary_new(struct bt_summary **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void bt_summary_free(struct bt_summary *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ndevs; i++)
		free(s->devs[i].cpus);
	free(s->devs);
	free(s->procs);
	bt_map_free(&s->idx);
	free(s);
}

/* Device i, the devices before it created empty. */
static struct dev_stats *dev_get(struct bt_summary *s, size_t i)
{
	if (i >= s->ndevs) {
		if (bt_array_room(&s->devs, &s->devs_cap, i, sizeof(*s->devs),
				  4) < 0)
			return NULL;
		memset(s->devs + s->ndevs, 0,
		       (i + 1 - s->ndevs) * sizeof(*s->devs));
		s->ndevs = i + 1;
	}
	return &s->devs[i];
}

int bt_summary_dev(struct bt_summary *s, size_t dev, const char *name,
		   uint64_t gaps, uint64_t missing)
{
	struct dev_stats *d = dev_get(s, dev);

	if (!d)
		return -ENOMEM;
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->gaps = gaps;
	d->missing = missing;
	return 0;
}

static struct cpu_stats *cpu_get(struct dev_stats *d, uint32_t cpu)
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
			return NULL;
		d->cpus = p;
		memmove(p + lo + 1, p + lo, (d->ncpus - lo) * sizeof(*p));
		memset(p + lo, 0, sizeof(*p));
		p[lo].cpu = cpu;
		d->ncpus++;
	}
	d->hit = lo;
	return &d->cpus[lo];
}

/* A pid's counters; *added when it is first met (named comm then). */
static struct io_stats *proc_get(struct bt_summary *m, uint32_t pid,
				 const char *comm, int *added)
{
	uint32_t i = bt_map_get(&m->idx, pid, 0);

	if (i)
		return &m->procs[i - 1].ios;
	if (bt_array_room(&m->procs, &m->procs_cap, m->nprocs,
			  sizeof(*m->procs), 64) < 0)
		return NULL;
	if (bt_map_put(&m->idx, pid, 0, (uint32_t)(m->nprocs + 1)) < 0)
		return NULL;
	memset(&m->procs[m->nprocs], 0, sizeof(m->procs[0]));
	m->procs[m->nprocs].pid = pid;
	snprintf(m->procs[m->nprocs].comm, COMM_LEN, "%s",
		 comm ? comm : "unknown");
	m->nprocs++;
	*added = 1;
	return &m->procs[m->nprocs - 1].ios;
}

/* What blkparse's dump_trace_fs/pc add up for an event it prints. */
static void add_io(struct io_stats *s, const struct bt_event *e, int pc)
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
	case BT_A_ZONE_UNPLUG:	/* version 8: the v8 series counts it so */
		s->io_unplugs++;
		break;
	case BT_A_UNPLUG_TIMER:
		s->timer_unplugs++;
		break;
	}
}

/* The actions blkparse also counts per process. */
static int per_process(const struct bt_event *e, int pc)
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
	case BT_A_ZONE_UNPLUG:
		return !pc;
	default:
		return 0;
	}
}

int bt_summary_event(struct bt_summary *s, size_t dev,
		     const struct bt_event *e, uint64_t rel, unsigned flags,
		     int late, const char *comm)
{
	int pc = (e->category & BT_TC_PC) != 0;
	int w = (e->category & BT_TC_WRITE) != 0;
	int after = pc && (e->action == BT_A_QUEUE ||
			   e->action == BT_A_COMPLETE);
	struct dev_stats *d = dev_get(s, dev);
	struct cpu_stats *cs;
	struct io_stats *ps;
	int added = 0;

	if (!d)
		return -ENOMEM;
	if (!late) {
		cs = cpu_get(d, e->cpu);
		if (!cs)
			return -ENOMEM;
		cs->nelems++;
		d->last = rel;
		if (!e->category)
			return 0;	/* outside blkparse's mask: not dumped */
		if (!d->events)
			d->first = rel;
		d->events++;
	}
	if (bt_format_kind(e, flags) <= 0 || bt_event_is_note(e) ||
	    late != after)
		return 0;
	if (e->action == BT_A_REQUEUE || e->action == BT_A_COMPLETE) {
		if (d->depth[w])
			d->depth[w]--;
	} else if (e->action == BT_A_ISSUE) {
		if (++d->depth[w] > d->max_depth[w])
			d->max_depth[w] = d->depth[w];
	}
	cs = cpu_get(d, e->cpu);
	if (!cs)
		return -ENOMEM;
	add_io(&cs->ios, e, pc);
	if (!per_process(e, pc))
		return 0;
	ps = proc_get(s, e->pid, comm, &added);
	if (!ps)
		return -ENOMEM;
	add_io(ps, e, pc);
	return added;
}

/* ------------------------------------------------------------ output */

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

static void print_ios(FILE *f, const struct io_stats *s,
		      const struct dev_stats *d, const char *title)
{
	char x[32], y[32];

	fprintf(f, "%s\n", title);
	fprintf(f, " Reads Queued:    %s, %siB\t", size_cnv(x, s->q[0], 0),
		size_cnv(y, s->q_kb[0] + (s->q_b[0] >> 10), 1));
	fprintf(f, " Writes Queued:    %s, %siB\n", size_cnv(x, s->q[1], 0),
		size_cnv(y, s->q_kb[1] + (s->q_b[1] >> 10), 1));
	fprintf(f, " Read Dispatches: %s, %siB\t", size_cnv(x, s->i[0], 0),
		size_cnv(y, s->i_kb[0] + (s->i_b[0] >> 10), 1));
	fprintf(f, " Write Dispatches: %s, %siB\n", size_cnv(x, s->i[1], 0),
		size_cnv(y, s->i_kb[1] + (s->i_b[1] >> 10), 1));
	fprintf(f, " Reads Requeued:  %s\t\t", size_cnv(x, s->rq[0], 0));
	fprintf(f, " Writes Requeued:  %s\n", size_cnv(x, s->rq[1], 0));
	fprintf(f, " Reads Completed: %s, %siB\t", size_cnv(x, s->c[0], 0),
		size_cnv(y, s->c_kb[0] + (s->c_b[0] >> 10), 1));
	fprintf(f, " Writes Completed: %s, %siB\n", size_cnv(x, s->c[1], 0),
		size_cnv(y, s->c_kb[1] + (s->c_b[1] >> 10), 1));
	fprintf(f, " Read Merges:     %s, %siB\t", size_cnv(x, s->m[0], 0),
		size_cnv(y, s->m_kb[0] + (s->m_b[0] >> 10), 1));
	fprintf(f, " Write Merges:     %s, %siB\n", size_cnv(x, s->m[1], 0),
		size_cnv(y, s->m_kb[1] + (s->m_b[1] >> 10), 1));
	if (d) {
		fprintf(f, " Read depth:      %'8u%8c\t", d->max_depth[0], ' ');
		fprintf(f, " Write depth:      %'8u\n", d->max_depth[1]);
	}
	if (s->q_pc[0] || s->q_pc[1] || s->i_pc[0] || s->i_pc[1] ||
	    s->rq_pc[0] || s->rq_pc[1] || s->c_pc[0] || s->c_pc[1]) {
		fprintf(f, " PC Reads Queued: %s, %siB\t",
			size_cnv(x, s->q_pc[0], 0),
			size_cnv(y, s->q_kb_pc[0] + (s->q_b_pc[0] >> 10), 1));
		fprintf(f, " PC Writes Queued: %s, %siB\n",
			size_cnv(x, s->q_pc[1], 0),
			size_cnv(y, s->q_kb_pc[1] + (s->q_b_pc[1] >> 10), 1));
		fprintf(f, " PC Read Disp.:   %s, %siB\t",
			size_cnv(x, s->i_pc[0], 0),
			size_cnv(y, s->i_kb_pc[0] + (s->i_b_pc[0] >> 10), 1));
		fprintf(f, " PC Write Disp.:   %s, %siB\n",
			size_cnv(x, s->i_pc[1], 0),
			size_cnv(y, s->i_kb_pc[1] + (s->i_b_pc[1] >> 10), 1));
		fprintf(f, " PC Reads Req.:   %s\t\t", size_cnv(x, s->rq_pc[0], 0));
		fprintf(f, " PC Writes Req.:   %s\n", size_cnv(x, s->rq_pc[1], 0));
		fprintf(f, " PC Reads Compl.: %s\t\t", size_cnv(x, s->c_pc[0], 0));
		fprintf(f, " PC Writes Compl.: %s\n", size_cnv(x, s->c_pc[1], 0));
	}
	fprintf(f, " IO unplugs:      %'8" PRIu64 "%8c\t", s->io_unplugs, ' ');
	fprintf(f, " Timer unplugs:    %'8" PRIu64 "\n", s->timer_unplugs);
}

static void add_ios(struct io_stats *t, const struct io_stats *s)
{
	uint64_t *a = (uint64_t *)t;
	const uint64_t *b = (const uint64_t *)s;

	for (size_t i = 0; i < sizeof(*t) / sizeof(uint64_t); i++)
		a[i] += b[i];
}

/* blkparse's comparator, 0 or 1 on equal names, kept for its order. */
static int proc_cmp(const void *a, const void *b)
{
	const struct proc_stats *p = *(const struct proc_stats *const *)a;
	const struct proc_stats *q = *(const struct proc_stats *const *)b;
	int res = strverscmp(p->comm, q->comm);

	return res ? res : (int32_t)p->pid > (int32_t)q->pid;	/* pid_t */
}

static void print_dev(FILE *f, const struct dev_stats *d)
{
	struct io_stats total;
	char title[64];
	int ncpu = 0;
	uint64_t msec, rrate = 0, wrate = 0;
	double ratio;

	memset(&total, 0, sizeof(total));
	for (size_t k = 0; k < d->ncpus; k++) {
		if (!d->cpus[k].nelems)
			continue;
		add_ios(&total, &d->cpus[k].ios);
		/* blkparse's cpu is an int. */
		snprintf(title, sizeof(title), "CPU%d (%s):",
			 (int)d->cpus[k].cpu, d->name);
		print_ios(f, &d->cpus[k].ios, d, title);
		ncpu++;
	}
	if (ncpu > 1) {
		fprintf(f, "\n");
		snprintf(title, sizeof(title), "Total (%s):", d->name);
		print_ios(f, &total, NULL, title);
	}
	msec = (d->last - d->first) / 1000000;
	if (msec) {
		rrate = (1000 * total.c_kb[0] + total.c_b[0]) / msec;
		wrate = (1000 * total.c_kb[1] + total.c_b[1]) / msec;
	}
	fprintf(f, "\nThroughput (R/W): %'" PRIu64 "KiB/s / %'" PRIu64
		"KiB/s\n", rrate, wrate);
	fprintf(f, "Events (%s): %'" PRIu64 " entries\n", d->name, d->events);
	ratio = !d->gaps && !d->events ? 0.0 : 100.0 * (double)d->missing /
		(double)(d->events + d->missing);
	fprintf(f, "Skips: %'" PRIu64 " forward (%'" PRIu64 " - %5.1lf%%)\n",
		d->gaps, d->missing, ratio);
}

int bt_summary_print(const struct bt_summary *s, FILE *f)
{
	const struct proc_stats **order;

	order = malloc((s->nprocs + 1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	/* blkparse lists processes newest first, then sorts them. */
	for (size_t i = 0; i < s->nprocs; i++)
		order[i] = &s->procs[s->nprocs - 1 - i];
	qsort(order, s->nprocs, sizeof(*order), proc_cmp);
	for (size_t i = 0; i < s->nprocs; i++) {
		char title[64];

		snprintf(title, sizeof(title), "%s (%u)", order[i]->comm,
			 order[i]->pid);
		print_ios(f, &order[i]->ios, NULL, title);
		for (int k = 0; k < 3; k++) {
			static const char *const what[] = {
				"Allocation", "Dispatch", "Completion" };

			/* Waits need blkparse -t, which btcat does not do. */
			fprintf(f, " %s wait:%*s%'8lu%8c\t", what[k],
				(int)(11 - strlen(what[k])), "", 0ul, ' ');
			fprintf(f, " %s wait:%*s%'8lu\n", what[k],
				(int)(12 - strlen(what[k])), "", 0ul);
		}
	}
	fprintf(f, "\n");
	free(order);
	for (size_t i = 0; i < s->ndevs; i++) {
		if (i)
			fprintf(f, "\n");
		print_dev(f, &s->devs[i]);
	}
	return 0;
}
