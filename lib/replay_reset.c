// SPDX-License-Identifier: MIT
/*
 * replay_reset.c - putting a target back as it was before a replay wrote
 * to it, so that several replays of one trace (btreplay --sched=A,B) each
 * start from the same contents: a file system image or database file
 * read after being rewritten, or blocks first written then read back,
 * would otherwise differ from run to run.  Only what the trace's writes
 * and discards touch is saved (their byte ranges, merged), into an
 * unlinked temporary file, through the replay's own descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "replay_int.h"

#define CHUNK	(1u << 20)

struct range {
	uint64_t off, len;	/* bytes on the target */
};

struct bt_replay_snap {
	int fd;			/* the target's, not ours */
	int tmp;		/* the saved bytes, ranges one after another */
	struct range *r;
	size_t n;
	uint64_t bytes;
	void *buf;		/* CHUNK, aligned for O_DIRECT */
};

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* The merged byte ranges the writes and discards of device i touch. */
static int ranges(const struct bt_replay *rp, size_t i, struct bt_replay_snap *s)
{
	size_t n = 0, k = 0;
	uint64_t base = rp->devs[i].base;

	for (size_t p = 0; p < rp->nprocs; p++)
		for (size_t j = 0; j < rp->procs[p].n; j++)
			n += rp->procs[p].io[j].dev == i &&
			     (rp->procs[p].io[j].op == OP_WRITE ||
			      rp->procs[p].io[j].op == OP_DISCARD);
	s->r = malloc((n ? n : 1) * sizeof(*s->r));
	if (!s->r)
		return -ENOMEM;
	for (size_t p = 0; p < rp->nprocs; p++)
		for (size_t j = 0; j < rp->procs[p].n; j++) {
			const struct rio *io = &rp->procs[p].io[j];

			if (io->dev != i || io->sector < base || !io->bytes ||
			    (io->op != OP_WRITE && io->op != OP_DISCARD))
				continue;
			s->r[k++] = (struct range){ (io->sector - base) * 512,
						    io->bytes };
		}
	qsort(s->r, k, sizeof(*s->r), cmp_range);
	n = 0;
	for (size_t j = 0; j < k; j++) {
		if (n && s->r[j].off <= s->r[n - 1].off + s->r[n - 1].len) {
			uint64_t end = s->r[j].off + s->r[j].len;

			if (end > s->r[n - 1].off + s->r[n - 1].len)
				s->r[n - 1].len = end - s->r[n - 1].off;
		} else {
			s->r[n++] = s->r[j];
		}
	}
	s->n = n;
	for (size_t j = 0; j < n; j++)
		s->bytes += s->r[j].len;
	return 0;
}

/* Copy len bytes from (in, ioff) to (out, ooff) through buf. */
static int copy(void *buf, int in, uint64_t ioff, int out, uint64_t ooff,
		uint64_t len)
{
	while (len) {
		size_t want = len > CHUNK ? CHUNK : (size_t)len;
		ssize_t got = pread(in, buf, want, (off_t)ioff);

		if (got < 0)
			return -errno;
		if (got == 0)
			return -ENODATA;
		if (pwrite(out, buf, (size_t)got, (off_t)ooff) != got)
			return errno ? -errno : -EIO;
		ioff += (uint64_t)got;
		ooff += (uint64_t)got;
		len -= (uint64_t)got;
	}
	return 0;
}

int bt_replay_snap_save(const struct bt_replay *rp, size_t i, const char *dir,
			struct bt_replay_snap **out)
{
	struct bt_replay_snap *s;
	char path[4096];
	uint64_t at = 0;
	int rc;

	*out = NULL;
	if (i >= rp->ndevs || rp->targets[i].fd < 0)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->fd = rp->targets[i].fd;
	s->tmp = -1;
	rc = ranges(rp, i, s);
	if (rc == 0 && posix_memalign(&s->buf, 4096, CHUNK))
		rc = -ENOMEM;
	if (rc == 0 && snprintf(path, sizeof(path), "%s/btreplay-snap.XXXXXX",
				dir ? dir : "/tmp") >= (int)sizeof(path))
		rc = -ENAMETOOLONG;
	if (rc == 0) {
		s->tmp = mkostemp(path, O_CLOEXEC);
		if (s->tmp < 0)
			rc = -errno;
		else
			unlink(path);
	}
	for (size_t j = 0; rc == 0 && j < s->n; j++) {
		rc = copy(s->buf, s->fd, s->r[j].off, s->tmp, at, s->r[j].len);
		at += s->r[j].len;
	}
	if (rc < 0) {
		bt_replay_snap_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

uint64_t bt_replay_snap_bytes(const struct bt_replay_snap *s)
{
	return s ? s->bytes : 0;
}

int bt_replay_snap_restore(struct bt_replay_snap *s)
{
	uint64_t at = 0;
	int rc = 0;

	for (size_t j = 0; rc == 0 && j < s->n; j++) {
		rc = copy(s->buf, s->tmp, at, s->fd, s->r[j].off, s->r[j].len);
		at += s->r[j].len;
	}
	if (rc == 0 && s->n && fdatasync(s->fd) < 0)
		rc = -errno;
	return rc;
}

void bt_replay_snap_free(struct bt_replay_snap *s)
{
	if (!s)
		return;
	if (s->tmp >= 0)
		close(s->tmp);
	free(s->r);
	free(s->buf);
	free(s);
}
