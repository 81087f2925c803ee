/* SPDX-License-Identifier: MIT */
/*
 * replay_int.h - what replay_load.c and replay.c share and nobody else:
 * the compact per-pid I/O lists that loading builds from a trace and
 * running hands to one thread each, and the replay object holding both.
 */
#ifndef BTKIT_REPLAY_INT_H
#define BTKIT_REPLAY_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include "btkit.h"

enum rop { OP_READ, OP_WRITE, OP_DISCARD, OP_FLUSH };
#define F_FUA		1u	/* write with RWF_DSYNC */
#define F_PREFLUSH	2u	/* fdatasync before the write */

/* One I/O to replay: 24 bytes. */
struct rio {
	uint64_t time;		/* ns, as traced */
	uint64_t sector;	/* 512-byte sectors, whole-disk as traced */
	uint32_t bytes;
	uint8_t op;		/* enum rop */
	uint8_t flags;		/* F_* */
	uint16_t dev;		/* index into devs */
};

struct proc {
	struct bt_replay *rp;
	uint32_t pid;
	uint32_t depth;		/* most in flight in the trace */
	uint32_t inflight;	/* while loading: bios (Q) or requests (D) */
	uint32_t tid;		/* thread of the last run, as a trace shows it */
	struct rio *io;
	size_t n, cap;
	uint64_t *lat, *lag;	/* per issued I/O, ns */
	uint64_t *elag;		/* per issued I/O: lag from when it could go */
	uint64_t tfree;		/* ns: a full depth last had a slot freed */
	uint64_t t_first, t_last; /* ns: first issue, last completion */
	uint64_t held;		/* I/Os due while the depth was full */
	uint8_t *left;		/* pieces in flight per I/O (0x80: one failed) */
	size_t issued;
	uint64_t bytes, errors;
	int first_error;
	uint32_t bufsz;
	char comm[16];		/* thread name: the original's comm */
	pthread_t th;
	int started;
};

struct target {
	int fd;
	int is_blk;
};

struct bt_replay {
	struct bt_replay_conf conf;
	struct proc *procs;
	size_t nprocs, cprocs;
	uint32_t *pidx;		/* open addressing: pid -> proc index + 1 */
	size_t pcap;
	struct bt_tracker *tr;	/* while loading: requests and their owners */
	struct bt_replay_dev *devs;
	struct target *targets;
	size_t ndevs;
	uint32_t last_flush_proc; /* owner of the latest flush bio: D FN has no Q */
	uint64_t first;		/* ns: earliest I/O */
	int loaded;
	/* run */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t ready;		/* threads at the start gate */
	int go;
	uint64_t t0;		/* CLOCK_MONOTONIC ns of the first I/O */
	double speed;
	int no_stall;
	int poll;		/* fewer threads than CPUs: see wait_cqe() */
	atomic_int stop;
	atomic_int failed;	/* -errno of a thread that could not start */
	struct bt_replay_proc total;
	int have_total;
};

#endif /* BTKIT_REPLAY_INT_H */
