// SPDX-License-Identifier: MIT
/*
 * replay_target.c - the policy around where a replay goes, apart from the
 * engine: which path each traced device is replayed onto (--map, one
 * --target, or a scratch device), the safety rules an explicit target must
 * pass (never the root filesystem's device or one too small; writes only
 * when allowed; nothing in use or with a signature unless forced), opening
 * it for direct I/O, and the scheduler a replay asks for (legacy names to
 * blk-mq ones, CFQ's defaults on BFQ, tunables after the switch, since a
 * switch resets them).  The facts about devices are blkdev.c's; messages
 * go back to the caller as text, nothing here prints.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "btkit.h"

int bt_replay_target_path(const struct bt_replay_map *map, size_t nmap,
			  const char *target, uint32_t dev, size_t ndevs,
			  const char **path)
{
	*path = NULL;
	for (size_t i = 0; i < nmap; i++)
		if (map[i].dev == dev) {
			*path = map[i].path;
			return 0;
		}
	if (nmap)
		return -ENOENT;
	if (target && ndevs > 1)
		return -E2BIG;
	*path = target;
	return 0;
}

static int refuse(struct bt_replay_verdict *v, unsigned why, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(struct bt_replay_verdict *v, unsigned why, const char *fmt, ...)
{
	va_list ap;

	v->refused = why;
	va_start(ap, fmt);
	vsnprintf(v->why, sizeof(v->why), fmt, ap);
	va_end(ap);
	return 0;
}

int bt_replay_check_target(const char *path, const struct bt_replay_dev *d,
			   unsigned flags, struct bt_replay_verdict *v)
{
	uint64_t writes = d->writes + d->discards;
	struct bt_blkdev_safety s;
	struct stat st;
	int rc;

	memset(v, 0, sizeof(*v));
	if (stat(path, &st) < 0) {
		rc = -errno;
		snprintf(v->why, sizeof(v->why), "%s", strerror(errno));
		return rc;
	}
	v->is_blk = S_ISBLK(st.st_mode);
	if (!v->is_blk && !S_ISREG(st.st_mode)) {
		snprintf(v->why, sizeof(v->why), "not a block device or regular file");
		return -EINVAL;
	}
	if (v->is_blk) {
		rc = bt_blkdev_info(path, &v->b);
		if (rc == 0)
			rc = bt_blkdev_check(path, &v->b, &s);
		if (rc < 0) {
			snprintf(v->why, sizeof(v->why), "%s", strerror(-rc));
			return rc;
		}
		if (s.reasons & BT_BLK_ROOT)
			return refuse(v, BT_BLK_ROOT,
				      "refused: it holds the root filesystem");
		v->size = v->b.size;
	} else {
		v->size = (uint64_t)st.st_size;
	}
	if (d->extent > v->size)
		return refuse(v, BT_TGT_TOO_SMALL, "refused: the trace reaches byte %"
			      PRIu64 " but the device ends at %" PRIu64,
			      d->extent, v->size);
	if (writes && !(flags & BT_TGT_WRITE))
		return refuse(v, BT_TGT_WRITES, "refused: the trace has %" PRIu64
			      " writes and %" PRIu64 " discards that would "
			      "overwrite it; add --write", d->writes, d->discards);
	if (!v->is_blk || (flags & BT_TGT_FORCE))
		return 0;
	if (s.reasons & BT_BLK_MOUNTED)
		return refuse(v, BT_BLK_MOUNTED, "refused: %s; --force to replay "
			      "anyway", s.mounted);
	if (s.reasons & BT_BLK_HOLDERS)
		return refuse(v, BT_BLK_HOLDERS, "refused: held by %s; --force to "
			      "replay anyway", s.holder);
	if (s.reasons & BT_BLK_BUSY)
		return refuse(v, BT_BLK_BUSY, "refused: open elsewhere (O_EXCL: "
			      "busy); --force to replay anyway");
	if (s.reasons & BT_BLK_SIGNATURE)
		return refuse(v, BT_BLK_SIGNATURE, "refused: it carries a signature "
			      "(%s); --force to replay anyway", s.signature);
	return 0;
}

int bt_replay_open_target(const char *path, int is_blk, int writes,
			  void (*note)(void *arg, const char *line), void *arg)
{
	int flags = (writes ? O_RDWR : O_RDONLY) | O_CLOEXEC;
	int fd = open(path, flags | O_DIRECT);
	char line[512];

	if (fd < 0 && errno == EINVAL && !is_blk) {
		snprintf(line, sizeof(line), "%s: no O_DIRECT on this filesystem: "
			 "replaying through the page cache", path);
		if (note)
			note(arg, line);
		fd = open(path, flags);
	}
	return fd < 0 ? -errno : fd;
}

/* Write KEY=VALUE (or key, val) and tell what the kernel kept. */
static int tune(struct bt_blkdev_sched *s, const char *disk, const char *key,
		const char *val, char *got, size_t glen, char *msg, size_t mlen)
{
	int rc = bt_blkdev_sched_tune(s, key, val, got, glen);

	if (rc < 0)
		snprintf(msg, mlen, "%s: %s=%s: %s", disk, key, val, strerror(-rc));
	return rc;
}

int bt_replay_sched_apply(const char *disk, const char *want,
			  const char *const *tunes, size_t ntunes,
			  void (*note)(void *arg, const char *line), void *arg,
			  struct bt_blkdev_sched **out, char *msg, size_t mlen)
{
	/* CFQ's defaults the replay should resemble: 8 ms idling, no boosting. */
	static const char *const cfq[][2] = {
		{ "slice_idle", "8" }, { "low_latency", "0" } };
	const char *legacy = NULL, *asked = want;
	char line[512], cur[32], got[96];
	int rc;

	*out = NULL;
	if (want && bt_blkdev_sched_avail(disk, want) == 0 &&
	    (legacy = bt_blkdev_sched_legacy(want)) != NULL) {
		snprintf(line, sizeof(line), "%s: no %s on blk-mq kernels: using "
			 "%s%s", disk, want, legacy,
			 strcmp(want, "noop") && strcmp(want, "deadline") ?
			 " (BFQ is not CFQ: budgets in sectors, not time slices)" : "");
		note(arg, line);
		want = legacy;
	}
	rc = bt_blkdev_sched_switch(disk, want, out);
	if (rc == -EINVAL || rc == -ENOENT) {
		snprintf(msg, mlen, "%s: cannot use scheduler %s here", disk, want);
		return rc;
	}
	if (rc < 0) {
		snprintf(msg, mlen, "%s: scheduler %s: %s", disk, want, strerror(-rc));
		return rc;
	}
	/* Tunables only now: the switch reset them to the new one's defaults. */
	if (legacy && !strcmp(asked, "cfq")) {
		for (size_t i = 0; i < 2; i++) {
			rc = tune(*out, disk, cfq[i][0], cfq[i][1], got, sizeof(got),
				  msg, mlen);
			if (rc < 0)
				return rc;
		}
		snprintf(line, sizeof(line), "%s: bfq slice_idle=8 (ms) "
			 "low_latency=0, as CFQ", disk);
		note(arg, line);
	}
	for (size_t i = 0; i < ntunes; i++) {
		char key[64];
		const char *eq = strchr(tunes[i], '=');

		if (!eq || (size_t)(eq - tunes[i]) >= sizeof(key)) {
			snprintf(msg, mlen, "%s: bad tunable '%s'", disk, tunes[i]);
			return -EINVAL;
		}
		snprintf(key, sizeof(key), "%.*s", (int)(eq - tunes[i]), tunes[i]);
		rc = tune(*out, disk, key, eq + 1, got, sizeof(got), msg, mlen);
		if (rc < 0)
			return rc;
		snprintf(line, sizeof(line), "%s: %s=%s", disk, key, got);
		note(arg, line);
	}
	rc = bt_blkdev_sched_get(disk, cur, sizeof(cur), NULL, 0);
	if (rc < 0) {
		snprintf(msg, mlen, "%s: scheduler: %s", disk, strerror(-rc));
		return rc;
	}
	snprintf(line, sizeof(line), "scheduler %s on %s (was %s)", cur, disk,
		 bt_blkdev_sched_old(*out));
	note(arg, line);
	return 0;
}
