// SPDX-License-Identifier: MIT
/*
 * replay.c - the engine behind btreplay, running what replay_load.c
 * loaded.  Running gives every pid its own thread and io_uring: CFQ and
 * BFQ keep one queue per I/O context, so a single submitting thread would
 * turn contention between processes into one sequential stream.  Each
 * thread issues its I/Os at their recorded offset from the first I/O
 * (divided by the speed), never more in flight than recorded, and notes
 * how late each went out.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <liburing.h>
#include "internal.h"
#include "replay_int.h"

#define MAX_BUF		(64u << 20)	/* largest read or write replayed */
/*
 * Direct I/O of more than BIO_MAX_VECS pages is several bios, which the
 * kernel will not build without blocking: io_uring would hand the I/O to
 * an io-wq worker, whose pid a trace of the replay would show.  Bigger
 * I/Os go as pieces of this size, the bios the kernel would make anyway.
 */
#define PIECE		(1u << 20)
#define MAX_ENTRIES	4096u
#define HUGE		(2u << 20)	/* transparent huge page */
#define WAIT_SLICE_NS	50000000ull	/* wake at least this often to see stop */
/* Waiting for a due time: see wait_until(). */
#define FAR_NS		1000000ull	/* one sleep until this close to due */
#define HOP_NS		100000ull	/* then sleeps of at most this */
#define SPIN_NS		50000ull	/* and a spin over the last stretch */
/* Waiting for a completion: see wait_cqe(). */
#define POLL_NS		50000ull

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int bt_replay_new(struct bt_replay **out, const struct bt_replay_conf *c)
{
	struct bt_replay *rp = calloc(1, sizeof(*rp));

	*out = NULL;
	if (!rp)
		return -ENOMEM;
	if (c)
		rp->conf = *c;
	rp->first = UINT64_MAX;
	rp->last_flush_proc = UINT32_MAX;
	atomic_init(&rp->stop, 0);
	atomic_init(&rp->failed, 0);
	pthread_mutex_init(&rp->lock, NULL);
	pthread_cond_init(&rp->cond, NULL);
	*out = rp;
	return 0;
}

/* ------------------------------------------------------------- running */

static void fail(struct proc *p, int err)
{
	p->errors++;
	if (!p->first_error)
		p->first_error = err;
}

/* Flushes and discards are synchronous, from this thread: see the header. */
static void sync_op(struct bt_replay *rp, struct proc *p, const struct rio *io,
		    uint64_t off)
{
	const struct target *t = &rp->targets[io->dev];
	int rc;

	if (io->op == OP_DISCARD) {
		uint64_t range[2] = { off, io->bytes };

		if (t->is_blk)
			rc = ioctl(t->fd, BLKDISCARD, range);
		else
			rc = fallocate(t->fd, FALLOC_FL_PUNCH_HOLE |
				       FALLOC_FL_KEEP_SIZE, (off_t)off, io->bytes);
	} else {
		rc = fdatasync(t->fd);
	}
	if (rc < 0)
		fail(p, errno);
}

/* user_data: I/O index, and the piece in the top 16 bits. */
#define UD_PIECE_SHIFT	48

static uint32_t piece_len(const struct rio *io, unsigned k)
{
	uint32_t done = k * PIECE;

	return io->bytes - done < PIECE ? io->bytes - done : PIECE;
}

static void reap(struct proc *p, struct io_uring *ring, unsigned *inflight)
{
	struct io_uring_cqe *cqe;
	uint64_t now = 0;

	while (io_uring_peek_cqe(ring, &cqe) == 0) {
		size_t k = (size_t)(cqe->user_data & ((1ull << UD_PIECE_SHIFT) - 1));
		unsigned piece = (unsigned)(cqe->user_data >> UD_PIECE_SHIFT);
		int res = cqe->res, bad = 0;

		if (res < 0)
			bad = -res;
		else if ((uint32_t)res != piece_len(&p->io[k], piece))
			bad = EIO;
		io_uring_cqe_seen(ring, cqe);
		if (p->left && p->left[k]) {
			/* One piece of several: the I/O ends with its last. */
			if (bad && !(p->left[k] & 0x80)) {
				fail(p, bad);
				p->left[k] |= 0x80;
			}
			if ((--p->left[k] & 0x7f) != 0)
				continue;
			p->left[k] = 0;
		} else if (bad) {
			fail(p, bad);
		}
		if (!now)
			now = now_ns();
		p->lat[k] = now > p->lat[k] ? now - p->lat[k] : 0;
		if (*inflight == p->depth)
			p->tfree = now;	/* a slot is free again */
		p->t_last = now;
		(*inflight)--;
	}
}

static uint64_t due_of(const struct bt_replay *rp, const struct rio *io)
{
	uint64_t rel = io->time - rp->first;

	if (rp->speed != 1.0)
		rel = (uint64_t)((double)rel / rp->speed);
	return rp->t0 + rel;
}

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__asm__ volatile("" ::: "memory");
#endif
}

/* Sleep d ns at most, or less when a completion arrives first. */
static void nap(struct io_uring *ring, unsigned inflight, uint64_t d)
{
	if (d > WAIT_SLICE_NS)
		d = WAIT_SLICE_NS;
	if (inflight) {
		struct __kernel_timespec ts = { (long long)(d / 1000000000u),
						(long long)(d % 1000000000u) };
		struct io_uring_cqe *cqe;

		io_uring_wait_cqe_timeout(ring, &cqe, &ts);
	} else {
		struct timespec ts = { (time_t)(d / 1000000000u),
				       (long)(d % 1000000000u) };

		nanosleep(&ts, NULL);
	}
}

/*
 * Wait for a completion.  Asleep, the thread leaves its virtual CPU idle,
 * and the completion, which the loop worker ends on the other CPU, has
 * to wake it (an interrupt to a halted CPU, which the host takes its
 * time to run again).  Measured on a 2-CPU VM, one process reading at
 * depth 1 from a direct-I/O loop device: every wait slept, 1.5 such
 * interrupts an I/O, 24-31 K IOPS, where fio, which enters its wait a
 * few microseconds later, found 59% of its completions there already
 * (53-58 K IOPS).  So a thread with a CPU to itself (rp->poll) first
 * polls for POLL_NS, in the kernel, where io_uring_get_events() runs the
 * completion's work as it comes: 53-58 K IOPS (and more with the work
 * deferred to it, see ring_flags()).  With more threads than CPUs, a
 * thread polling would take the CPU from one with work to do.
 */
static void wait_cqe(struct bt_replay *rp, struct io_uring *ring)
{
	struct io_uring_cqe *cqe;

	if (rp->poll) {
		uint64_t end = now_ns() + POLL_NS;

		do {
			if (io_uring_peek_cqe(ring, &cqe) == 0)
				return;
			io_uring_get_events(ring);
		} while (now_ns() < end);
	}
	io_uring_wait_cqe(ring, &cqe);
}

/*
 * Wait towards until; returns early when a completion arrives, and after
 * one sleep (the caller loops).  A single sleep to the due time wakes far
 * too late on a virtual machine: an idle virtual CPU is halted and the
 * host takes its time to run it again (measured here, one 6 ms sleep:
 * p50 128 us, p99 294 us late).  Short sleeps keep the host's halt
 * polling in play, so: one sleep until FAR_NS before due, then sleeps of
 * HOP_NS, then a spin over the last SPIN_NS (measured: p99 6-90 us late,
 * 2-4% of a CPU per waiting thread).  A long spin instead is no good on a
 * busy machine: a spinning thread spends its fair share of CPU and is
 * then scheduled late.
 */
static void wait_until(struct io_uring *ring, unsigned inflight, uint64_t until)
{
	uint64_t now = now_ns(), d;

	if (until <= now)
		return;
	d = until - now;
	if (d > FAR_NS) {
		nap(ring, inflight, d - FAR_NS);
	} else if (d > SPIN_NS) {
		d -= SPIN_NS;
		nap(ring, inflight, d < HOP_NS ? d : HOP_NS);
	} else {
		while (now_ns() < until) {
			if (inflight && io_uring_cq_ready(ring))
				return;
			relax();
		}
	}
}

/*
 * Note how late I/O k goes out at now.  An I/O due while its process had
 * its recorded depth in flight (or was inside a flush) is held: it cannot
 * go before a completion frees a slot, so the engine's own lag counts from
 * then; its lag from the due time is the device being slower than traced.
 */
static void note_issue(const struct bt_replay *rp, struct proc *p, size_t k,
		       uint64_t due, uint64_t now)
{
	uint64_t ready = due;

	if (!p->t_first)
		p->t_first = now;
	if (rp->no_stall) {
		p->lag[k] = p->elag[k] = 0;
		return;
	}
	if (p->tfree > due) {
		ready = p->tfree;
		p->held++;
	}
	p->lag[k] = now > due ? now - due : 0;
	p->elag[k] = now > ready ? now - ready : 0;
}

/* Wait at the start gate until every thread is ready and t0 is set. */
static int gate(struct bt_replay *rp)
{
	pthread_mutex_lock(&rp->lock);
	rp->ready++;
	pthread_cond_broadcast(&rp->cond);
	while (!rp->go)
		pthread_cond_wait(&rp->cond, &rp->lock);
	pthread_mutex_unlock(&rp->lock);
	return atomic_load(&rp->failed);
}

/* The CPUs this process may run on. */
static size_t cpus_of_process(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	return (size_t)CPU_COUNT(&set);
}

/*
 * The ring of a thread that polls for its completions with --no-stall
 * (no due times: it only ever waits in wait_cqe()) defers the completion
 * work to the thread's own entries into the kernel, which its poll makes
 * all the time: the device's side then ends an I/O without signalling
 * the thread.  One process at depth 1 on a direct-I/O loop device, 2-CPU
 * VM, 48,150 reads, 10 runs each interleaved: 44-53 K I/Os a second
 * (median 48 K) without, 51-62 K (median 56 K) with.  Not at the recorded
 * pace, whose spin to a due time looks at the ring from user space, where
 * a deferred completion would not show (COOP_TASKRUN, which defers the
 * same way, held 70 I/Os past their due time against 3).
 */
static unsigned ring_flags(const struct bt_replay *rp)
{
#ifdef IORING_SETUP_DEFER_TASKRUN
	if (rp->poll && rp->no_stall)
		return IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
#endif
	(void)rp;
	return 0;
}

static void *run_proc(void *arg)
{
	struct proc *p = arg;
	struct bt_replay *rp = p->rp;
	struct io_uring ring;
	unsigned entries = 4, inflight = 0;
	void *buf = NULL;
	size_t next = 0;
	int rc, have_ring;

	p->tid = (uint32_t)gettid();
	if (p->comm[0])
		pthread_setname_np(pthread_self(), p->comm);
	/* The default 50 us timer slack would be most of the lag budget. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	while (entries < p->depth * ((p->bufsz + PIECE - 1) / PIECE) &&
	       entries < MAX_ENTRIES)
		entries *= 2;
	rc = io_uring_queue_init(entries, &ring, ring_flags(rp));
	if (rc == -EINVAL && ring_flags(rp))
		rc = io_uring_queue_init(entries, &ring, 0);	/* before 6.1 */
	have_ring = rc == 0;
	if (rc == 0 && p->bufsz) {
		size_t sz = p->bufsz > MAX_BUF ? MAX_BUF : p->bufsz;

		/*
		 * Large I/O from scattered 4 KiB pages needs more segments than
		 * many devices take (loop: 128): the kernel must split the bio,
		 * which it refuses under IOCB_NOWAIT, so io_uring would punt it
		 * to an io-wq worker.  Huge pages keep the buffer contiguous.
		 */
		if (sz > 65536) {
			sz = (sz + HUGE - 1) & ~(size_t)(HUGE - 1);
			rc = posix_memalign(&buf, HUGE, sz) ? -ENOMEM : 0;
			if (rc == 0)
				madvise(buf, sz, MADV_HUGEPAGE);
		} else {
			sz = (sz + 4095) & ~(size_t)4095;
			rc = posix_memalign(&buf, 4096, sz) ? -ENOMEM : 0;
		}
		if (rc < 0)
			buf = NULL;
		else
			memset(buf, 0xa5, sz);
	}
	if (rc < 0) {
		int zero = 0;

		atomic_compare_exchange_strong(&rp->failed, &zero, rc);
	}
	if (gate(rp))
		goto out;
	for (;;) {
		unsigned queued = 0;	/* SQEs not submitted yet */
		int block;
		uint64_t now, due = 0;
		int stop = atomic_load_explicit(&rp->stop, memory_order_relaxed);

		if (inflight)
			reap(p, &ring, &inflight);
		if ((next >= p->n || stop) && !inflight)
			break;
		now = now_ns();
		while (!stop && next < p->n && inflight < p->depth) {
			const struct rio *io = &p->io[next];
			const struct target *t = &rp->targets[io->dev];
			uint64_t off = (io->sector - rp->devs[io->dev].base) * 512;
			struct io_uring_sqe *sqe;
			unsigned pieces;

			due = due_of(rp, io);
			if (!rp->no_stall && due > now)
				break;
			if (io->sector < rp->devs[io->dev].base) {
				/* Before the traced partition: nowhere to go. */
				p->lag[next] = p->elag[next] = p->lat[next] = 0;
				fail(p, EINVAL);
				next++;
				continue;
			}
			if (io->op == OP_FLUSH || io->op == OP_DISCARD ||
			    (io->flags & F_PREFLUSH)) {
				/* Keep the order: what is queued goes first. */
				if (queued) {
					io_uring_submit(&ring);
					queued = 0;
				}
				now = now_ns();
				note_issue(rp, p, next, due, now);
				if (io->op == OP_WRITE) {
					if (fdatasync(t->fd) < 0)
						fail(p, errno);
				} else {
					sync_op(rp, p, io, off);
					p->bytes += io->bytes;
				}
				p->tfree = p->t_last = now_ns();
				if (io->op != OP_WRITE) {
					p->lat[next++] = p->t_last - now;
					now = p->t_last;
					continue;
				}
				now = p->t_last;
			} else {
				note_issue(rp, p, next, due, now);
			}
			if (io->bytes > MAX_BUF) {
				fail(p, EFBIG);
				p->lat[next++] = 0;
				continue;
			}
			pieces = (io->bytes + PIECE - 1) / PIECE;
			if (io_uring_sq_space_left(&ring) < pieces && queued) {
				io_uring_submit(&ring);
				queued = 0;
			}
			if (io_uring_sq_space_left(&ring) < pieces)
				break;
			for (unsigned k = 0; k < pieces; k++) {
				char *at = (char *)buf + (size_t)k * PIECE;
				uint32_t len = piece_len(io, k);

				sqe = io_uring_get_sqe(&ring);
				if (io->op == OP_READ) {
					io_uring_prep_read(sqe, t->fd, at, len,
							   off + (uint64_t)k * PIECE);
				} else {
					io_uring_prep_write(sqe, t->fd, at, len,
							    off + (uint64_t)k * PIECE);
					if (io->flags & F_FUA)
						sqe->rw_flags = RWF_DSYNC;
				}
				sqe->user_data = next | ((uint64_t)k << UD_PIECE_SHIFT);
				queued++;
			}
			if (pieces > 1)
				p->left[next] = (uint8_t)pieces;
			p->bytes += io->bytes;
			p->lat[next++] = now;	/* issue time until completion */
			inflight++;
		}
		/* Nothing more to issue until a completion: wait in the same call. */
		block = !stop && inflight &&
			!(next < p->n && inflight < p->depth && !rp->no_stall);
		if (queued) {
			do
				rc = block && !rp->poll ?
				     io_uring_submit_and_wait(&ring, 1) :
				     io_uring_submit(&ring);
			while (rc == -EINTR || rc == -EAGAIN);
			if (rc < 0) {
				/* The ring is unusable: stop everyone. */
				fail(p, -rc);
				atomic_store(&rp->stop, 1);
				break;
			}
			if (block && rp->poll)
				wait_cqe(rp, &ring);
		} else if (block) {
			wait_cqe(rp, &ring);
		}
		if (stop) {
			if (inflight)
				nap(&ring, inflight, WAIT_SLICE_NS);
		} else if (!block && next < p->n) {
			wait_until(&ring, inflight, due_of(rp, &p->io[next]));
		}
	}
out:
	p->issued = next;
	if (have_ring)
		io_uring_queue_exit(&ring);
	free(buf);
	return NULL;
}

int bt_replay_run(struct bt_replay *rp, const struct bt_replay_opts *o)
{
	size_t n = rp->nprocs, started = 0;
	int rc;

	if (!rp->loaded)
		return -EINVAL;
	for (size_t i = 0; i < rp->ndevs; i++)
		if (rp->targets[i].fd < 0)
			return -EBADF;
	rp->speed = o && o->speed > 0 ? o->speed : 1.0;
	rp->no_stall = o ? o->no_stall : 0;
	for (size_t i = 0; i < n; i++) {
		struct proc *p = &rp->procs[i];

		free(p->lat);
		free(p->lag);
		free(p->elag);
		free(p->left);
		p->lat = malloc(p->n * sizeof(*p->lat));
		p->lag = malloc(p->n * sizeof(*p->lag));
		p->elag = malloc(p->n * sizeof(*p->elag));
		p->left = p->bufsz > PIECE ? calloc(p->n, 1) : NULL;
		if (!p->lat || !p->lag || !p->elag ||
		    (p->bufsz > PIECE && !p->left))
			return -ENOMEM;
		p->issued = 0;
		p->held = 0;
		p->tfree = p->t_first = p->t_last = 0;
		p->bytes = p->errors = 0;
		p->first_error = 0;
	}
	rp->have_total = 0;
	rp->ready = 0;
	rp->go = 0;
	rp->poll = n < cpus_of_process();
	atomic_store(&rp->failed, 0);
	for (; started < n; started++) {
		rc = pthread_create(&rp->procs[started].th, NULL, run_proc,
				    &rp->procs[started]);
		if (rc) {
			atomic_store(&rp->failed, -rc);
			break;
		}
	}
	pthread_mutex_lock(&rp->lock);
	while (rp->ready < started)
		pthread_cond_wait(&rp->cond, &rp->lock);
	rp->t0 = now_ns() + 2000000u;	/* everyone ready: start together */
	rp->go = 1;
	pthread_cond_broadcast(&rp->cond);
	pthread_mutex_unlock(&rp->lock);
	for (size_t i = 0; i < started; i++)
		pthread_join(rp->procs[i].th, NULL);
	return atomic_load(&rp->failed);
}

void bt_replay_stop(struct bt_replay *rp)
{
	atomic_store(&rp->stop, 1);
}

size_t bt_replay_nprocs(const struct bt_replay *rp)
{
	return rp->nprocs;
}

uint32_t bt_replay_proc_pid(const struct bt_replay *rp, size_t i)
{
	return i < rp->nprocs ? rp->procs[i].pid : 0;
}

int bt_replay_proc_name(struct bt_replay *rp, size_t i, const char *comm)
{
	if (!rp->loaded || i >= rp->nprocs || !comm)
		return -EINVAL;
	snprintf(rp->procs[i].comm, sizeof(rp->procs[i].comm), "%.15s", comm);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank on sorted v[0..n), as every percentile of the library. */
static uint64_t rank(const uint64_t *v, size_t n, double q)
{
	return n ? v[bt_nearest_rank(q, n) - 1] : 0;
}

/* The percentiles of n issued I/Os; sorts the arrays. */
static void fill(struct bt_replay_proc *out, uint64_t *lat, uint64_t *lag,
		 uint64_t *elag, size_t n)
{
	if (!n)
		return;
	qsort(lat, n, sizeof(*lat), cmp_u64);
	qsort(lag, n, sizeof(*lag), cmp_u64);
	qsort(elag, n, sizeof(*elag), cmp_u64);
	out->lat_p50 = rank(lat, n, 0.5);
	out->lat_p99 = rank(lat, n, 0.99);
	out->lag_p50 = rank(lag, n, 0.5);
	out->lag_p99 = rank(lag, n, 0.99);
	out->lag_max = lag[n - 1];
	out->elag_p50 = rank(elag, n, 0.5);
	out->elag_p99 = rank(elag, n, 0.99);
	out->elag_max = elag[n - 1];
}

static void make_total(struct bt_replay *rp)
{
	struct bt_replay_proc *t = &rp->total;
	uint64_t *lat, *lag, *elag, first = UINT64_MAX, last = 0;
	size_t n = 0, k = 0;

	memset(t, 0, sizeof(*t));
	rp->have_total = 1;
	for (size_t i = 0; i < rp->nprocs; i++) {
		struct proc *p = &rp->procs[i];

		n += p->issued;
		t->bytes += p->bytes;
		t->errors += p->errors;
		t->held += p->held;
		if (!t->first_error)
			t->first_error = p->first_error;
		t->depth += p->depth;
		if (p->t_first && p->t_first < first)
			first = p->t_first;
		if (p->t_last > last)
			last = p->t_last;
	}
	t->ios = n;
	t->span = last > first ? last - first : 0;
	lat = malloc((n ? n : 1) * sizeof(*lat));
	lag = malloc((n ? n : 1) * sizeof(*lag));
	elag = malloc((n ? n : 1) * sizeof(*elag));
	if (lat && lag && elag) {
		for (size_t i = 0; i < rp->nprocs; i++) {
			struct proc *p = &rp->procs[i];

			if (!p->lat)
				continue;
			memcpy(lat + k, p->lat, p->issued * sizeof(*lat));
			memcpy(lag + k, p->lag, p->issued * sizeof(*lag));
			memcpy(elag + k, p->elag, p->issued * sizeof(*elag));
			k += p->issued;
		}
		fill(t, lat, lag, elag, k);
	}
	free(lat);
	free(lag);
	free(elag);
}

void bt_replay_proc_get(struct bt_replay *rp, size_t i,
			struct bt_replay_proc *out)
{
	struct proc *p;

	memset(out, 0, sizeof(*out));
	if (i >= rp->nprocs) {
		if (!rp->have_total)
			make_total(rp);
		*out = rp->total;
		return;
	}
	p = &rp->procs[i];
	out->pid = p->pid;
	out->tid = p->tid;
	out->depth = p->depth;
	out->ios = p->issued;
	out->bytes = p->bytes;
	out->errors = p->errors;
	out->first_error = p->first_error;
	out->held = p->held;
	out->span = p->t_last > p->t_first ? p->t_last - p->t_first : 0;
	if (p->lat && p->lag && p->elag)
		fill(out, p->lat, p->lag, p->elag, p->issued);
}

void bt_replay_free(struct bt_replay *rp)
{
	if (!rp)
		return;
	for (size_t i = 0; i < rp->nprocs; i++) {
		free(rp->procs[i].io);
		free(rp->procs[i].lat);
		free(rp->procs[i].lag);
		free(rp->procs[i].elag);
		free(rp->procs[i].left);
	}
	free(rp->procs);
	free(rp->pidx);
	bt_tracker_free(rp->tr);
	free(rp->devs);
	free(rp->targets);
	pthread_mutex_destroy(&rp->lock);
	pthread_cond_destroy(&rp->cond);
	free(rp);
}
