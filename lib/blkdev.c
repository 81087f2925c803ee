// SPDX-License-Identifier: MIT
/*
 * blkdev.c - the block devices btreplay writes to: what a device is (disk
 * or partition, size, sysfs name), whether it is safe to replay onto
 * (mounted, held, busy, signature, holds /), switching its I/O scheduler
 * and putting back the old one with every tunable, and scratch loop
 * devices on sparse temporary files that vanish with their last descriptor.
 * Everything is read from /proc and /sys; nothing here prints.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "btkit.h"
#include "sysfs.h"

int bt_blkdev_info(const char *path, struct bt_blkdev *b)
{
	char sys[PATH_MAX], real[PATH_MAX], buf[64];
	struct stat st;
	const char *slash;

	memset(b, 0, sizeof(*b));
	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	b->dev = BT_DEV_MAKE(major(st.st_rdev), minor(st.st_rdev));
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(st.st_rdev),
		 minor(st.st_rdev));
	if (!realpath(sys, real))
		return -errno;
	slash = strrchr(real, '/');
	if (!slash || strlen(slash + 1) >= sizeof(b->name))
		return -ENAMETOOLONG;
	strcpy(b->name, slash + 1);
	strcpy(b->disk, b->name);
	if (snprintf(sys, sizeof(sys), "%s/partition", real) >= (int)sizeof(sys))
		return -ENAMETOOLONG;
	if (access(sys, F_OK) == 0) {
		/* A partition's sysfs directory sits inside its disk's. */
		b->is_partition = 1;
		real[slash - real] = '\0';
		slash = strrchr(real, '/');
		if (!slash || strlen(slash + 1) >= sizeof(b->disk))
			return -ENAMETOOLONG;
		strcpy(b->disk, slash + 1);
		snprintf(sys, sizeof(sys), "/sys/class/block/%s/start", b->name);
		if (bt_sysfs_read(sys, buf, sizeof(buf)) > 0)
			b->part_start = strtoull(buf, NULL, 10);
	}
	/* From sysfs only: the device node may be closed to us (the root disk). */
	snprintf(sys, sizeof(sys), "/sys/class/block/%s/size", b->name);
	if (bt_sysfs_read(sys, buf, sizeof(buf)) <= 0)
		return -EIO;
	b->size = strtoull(buf, NULL, 10) * 512;
	snprintf(sys, sizeof(sys), "/sys/block/%s/queue/logical_block_size", b->disk);
	b->lbs = bt_sysfs_read(sys, buf, sizeof(buf)) > 0 ?
		(unsigned)strtoul(buf, NULL, 10) : 512;
	return 0;
}

/* ------------------------------------------------------------- safety */

/*
 * Call fn for each entry of the directory but . and .., until it returns
 * non-zero; that value, or 0 (also when the directory cannot be read).
 */
static int each_entry(const char *dir, int (*fn)(const char *name, void *arg),
		      void *arg)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int rc = 0;

	if (!d)
		return 0;
	while (!rc && (de = readdir(d)))
		if (de->d_name[0] != '.')
			rc = fn(de->d_name, arg);
	closedir(d);
	return rc;
}

struct parts {
	const char *disk;
	char (*names)[64];
	int n, max;
};

static int add_partition(const char *name, void *arg)
{
	struct parts *p = arg;
	char path[PATH_MAX];

	if (strlen(name) >= 64)
		return 0;
	snprintf(path, sizeof(path), "/sys/block/%s/%s/partition", p->disk,
		 name);
	if (access(path, F_OK) == 0)
		strcpy(p->names[p->n++], name);
	return p->n >= p->max;
}

/* The names of a disk's partitions (sda1, nvme0n1p2...), or none. */
static int partitions(const char *disk, char names[][64], int max)
{
	char path[PATH_MAX];
	struct parts p = { disk, names, 0, max };

	if (max <= 0)
		return 0;
	snprintf(path, sizeof(path), "/sys/block/%s", disk);
	each_entry(path, add_partition, &p);
	return p.n;
}

static uint32_t dev_of_name(const char *name)
{
	char path[PATH_MAX], buf[32];
	unsigned ma, mi;

	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name);
	if (bt_sysfs_read(path, buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%u:%u", &ma, &mi) != 2)
		return 0;
	return BT_DEV_MAKE(ma, mi);
}

struct holder {
	char *out;
	size_t len;
};

static int take_holder(const char *name, void *arg)
{
	struct holder *h = arg;

	if (snprintf(h->out, h->len, "%s", name) >= (int)h->len)
		strcpy(h->out + h->len - 4, "...");
	return 1;
}

/* First entry of /sys/class/block/NAME/holders, if any. */
static int first_holder(const char *name, char *out, size_t len)
{
	char path[PATH_MAX];
	struct holder h = { out, len };

	if (snprintf(path, sizeof(path), "/sys/class/block/%s/holders",
		     name) >= (int)sizeof(path))
		return 0;
	return each_entry(path, take_holder, &h);
}

static int stacked_on(uint32_t dev, const char *name, int depth);

struct stack {
	const char *name;
	int depth;
};

static int slave_stacked(const char *slave, void *arg)
{
	const struct stack *st = arg;

	return stacked_on(dev_of_name(slave), st->name, st->depth + 1);
}

/* Is block device name (by kernel name) under the device dev, following slaves? */
static int stacked_on(uint32_t dev, const char *name, int depth)
{
	char path[PATH_MAX], real[PATH_MAX], devname[64] = "";
	struct stack st = { name, depth };
	const char *s;

	if (depth > 8)
		return 0;
	/* Kernel name of dev. */
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", BT_DEV_MAJOR(dev),
		 BT_DEV_MINOR(dev));
	if (!realpath(path, real))
		return 0;
	s = strrchr(real, '/');
	if (snprintf(devname, sizeof(devname), "%s", s ? s + 1 : real) >=
	    (int)sizeof(devname))
		return 0;
	if (strcmp(devname, name) == 0)
		return 1;
	snprintf(path, sizeof(path), "/sys/class/block/%s/slaves", devname);
	return each_entry(path, slave_stacked, &st);
}

/*
 * /proc/self/mountinfo: field 3 is MAJ:MIN of the mounted filesystem's
 * device; the mount source after " - fstype " catches filesystems whose
 * st_dev is anonymous (btrfs).  /proc/swaps lists swap devices by path.
 */
static int mounted_where(uint32_t dev, const char *name, char *where,
			 size_t len)
{
	char line[4096], src[PATH_MAX], mnt[PATH_MAX], devpath[80];
	unsigned ma, mi;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int hit = 0;

	snprintf(devpath, sizeof(devpath), "/dev/%s", name);
	if (f) {
		while (!hit && fgets(line, sizeof(line), f)) {
			char *dash = strstr(line, " - ");

			if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &ma, &mi,
				   mnt) != 3)
				continue;
			src[0] = '\0';
			if (dash)
				sscanf(dash + 3, "%*s %4095s", src);
			if (BT_DEV_MAKE(ma, mi) == dev || strcmp(src, devpath) == 0) {
				hit = 1;
				if (snprintf(where, len, "%s mounted on %s",
					     name, mnt) >= (int)len)
					strcpy(where + len - 4, "...");
			}
		}
		fclose(f);
	}
	f = fopen("/proc/swaps", "re");
	if (f) {
		struct stat st;

		while (!hit && fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%4095s", src) != 1 || src[0] != '/')
				continue;
			if (stat(src, &st) == 0 && S_ISBLK(st.st_mode) &&
			    BT_DEV_MAKE(major(st.st_rdev), minor(st.st_rdev)) == dev) {
				snprintf(where, len, "%s used as swap", name);
				hit = 1;
			}
		}
		fclose(f);
	}
	return hit;
}

/* Signatures at fixed offsets: filesystems, partition tables, containers. */
static const struct {
	unsigned off;
	unsigned char len;
	const char *magic;
	const char *what;
} sigs[] = {
	{ 1080, 2, "\x53\xef", "ext2/3/4 filesystem" },
	{ 0, 4, "XFSB", "XFS filesystem" },
	{ 65600, 8, "_BHRfS_M", "btrfs filesystem" },
	{ 1024, 4, "\x10\x20\xf5\xf2", "F2FS filesystem" },
	{ 3, 8, "NTFS    ", "NTFS filesystem" },
	{ 3, 8, "EXFAT   ", "exFAT filesystem" },
	{ 0, 4, "hsqs", "squashfs" },
	{ 32769, 5, "CD001", "ISO 9660 filesystem" },
	{ 0, 6, "LUKS\xba\xbe", "LUKS container" },
	{ 512, 8, "LABELONE", "LVM physical volume" },
	{ 4086, 10, "SWAPSPACE2", "swap area" },
	{ 4086, 10, "SWAP-SPACE", "swap area" },
	{ 512, 8, "EFI PART", "GPT partition table" },
	{ 4096, 8, "EFI PART", "GPT partition table" },
	{ 510, 2, "\x55\xaa", "MBR partition table or FAT boot sector" },
};

static int signature(const char *path, const char **what)
{
	enum { SPAN = 65608 };
	unsigned char *buf = calloc(1, SPAN);
	ssize_t n;
	int fd, hit = 0;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	n = pread(fd, buf, SPAN, 0);
	close(fd);
	for (size_t i = 0; n > 0 && i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if ((ssize_t)(sigs[i].off + sigs[i].len) <= n &&
		    memcmp(buf + sigs[i].off, sigs[i].magic, sigs[i].len) == 0) {
			*what = sigs[i].what;
			hit = 1;
			break;
		}
	}
	free(buf);
	return hit;
}

int bt_blkdev_check(const char *path, const struct bt_blkdev *b,
		    struct bt_blkdev_safety *s)
{
	char parts[256][64];
	struct stat root;
	int np = 0, fd;

	memset(s, 0, sizeof(*s));
	if (!b->is_partition)
		np = partitions(b->disk, parts, 256);
	/* The device holding / : itself, a partition of it, or under dm/md. */
	if (stat("/", &root) == 0) {
		uint32_t rdev = BT_DEV_MAKE(major(root.st_dev), minor(root.st_dev));

		if (stacked_on(rdev, b->name, 0))
			s->reasons |= BT_BLK_ROOT;
		for (int i = 0; i < np; i++)
			if (stacked_on(rdev, parts[i], 0))
				s->reasons |= BT_BLK_ROOT;
	}
	if (s->reasons & BT_BLK_ROOT)
		return 0;	/* final: nothing else is looked at, nothing opened */
	if (mounted_where(b->dev, b->name, s->mounted, sizeof(s->mounted)))
		s->reasons |= BT_BLK_MOUNTED;
	for (int i = 0; i < np && !(s->reasons & BT_BLK_MOUNTED); i++)
		if (mounted_where(dev_of_name(parts[i]), parts[i], s->mounted,
				  sizeof(s->mounted)))
			s->reasons |= BT_BLK_MOUNTED;
	if (first_holder(b->name, s->holder, sizeof(s->holder)))
		s->reasons |= BT_BLK_HOLDERS;
	for (int i = 0; i < np && !(s->reasons & BT_BLK_HOLDERS); i++)
		if (first_holder(parts[i], s->holder, sizeof(s->holder)))
			s->reasons |= BT_BLK_HOLDERS;
	fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0 && errno == EBUSY)
		s->reasons |= BT_BLK_BUSY;
	else if (fd < 0)
		return -errno;
	else
		close(fd);
	if (signature(path, &s->signature) > 0)
		s->reasons |= BT_BLK_SIGNATURE;
	return 0;
}

/* ---------------------------------------------------------- scheduler */

struct bt_blkdev_sched {
	char disk[64];
	char old[32];		/* scheduler before the switch */
	struct bt_sysfs_saved attrs; /* tunables and queue attributes to write back */
};

/* "none [mq-deadline] kyber bfq": the bracketed one. */
static int current_of(const char *line, char *out, size_t len)
{
	const char *a = strchr(line, '['), *z = a ? strchr(a, ']') : NULL;

	if (!a || !z || (size_t)(z - a - 1) >= len)
		return -EBADMSG;
	memcpy(out, a + 1, (size_t)(z - a - 1));
	out[z - a - 1] = '\0';
	return 0;
}

int bt_blkdev_sched_get(const char *disk, char *cur, size_t len,
			char *avail, size_t alen)
{
	char path[PATH_MAX], line[256];
	int rc;

	snprintf(path, sizeof(path), "/sys/block/%s/queue/scheduler", disk);
	rc = bt_sysfs_read(path, line, sizeof(line));
	if (rc < 0)
		return rc;
	if (avail)
		snprintf(avail, alen, "%s", line);
	return current_of(line, cur, len);
}

int bt_blkdev_sched_avail(const char *disk, const char *name)
{
	char cur[32], avail[256], *tok, *save = NULL;
	int rc = bt_blkdev_sched_get(disk, cur, sizeof(cur), avail, sizeof(avail));

	if (rc < 0)
		return rc;
	for (tok = strtok_r(avail, " []", &save); tok;
	     tok = strtok_r(NULL, " []", &save))
		if (strcmp(tok, name) == 0)
			return 1;
	return 0;
}

static int save_attr(struct bt_blkdev_sched *s, const char *path)
{
	char val[256];
	int rc = bt_sysfs_read(path, val, sizeof(val));

	return rc < 0 ? rc : bt_sysfs_keep(&s->attrs, path, val);
}

/*
 * Tunables of the running scheduler (queue/iosched/): a switch throws them
 * away, so they are kept to be written back after the old one returns.
 */
static int save_iosched(struct bt_blkdev_sched *s)
{
	char path[PATH_MAX], f[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int rc = 0;

	snprintf(path, sizeof(path), "/sys/block/%s/queue/iosched", s->disk);
	d = opendir(path);
	if (!d)
		return 0;	/* none has no tunables */
	while (rc == 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (snprintf(f, sizeof(f), "%s/%s", path, de->d_name) >=
		    (int)sizeof(f))
			continue;
		if (stat(f, &st) < 0 || !S_ISREG(st.st_mode) ||
		    !(st.st_mode & S_IWUSR))
			continue;
		rc = save_attr(s, f);
		if (rc == -EIO || rc == -EPERM || rc == -EACCES)
			rc = 0;	/* write-only or unreadable: nothing to restore */
	}
	closedir(d);
	return rc;
}

int bt_blkdev_sched_switch(const char *disk, const char *name,
			   struct bt_blkdev_sched **out)
{
	struct bt_blkdev_sched *s;
	char path[PATH_MAX], now[32];
	int rc;

	*out = NULL;
	if (strlen(disk) >= sizeof(s->disk))
		return -ENAMETOOLONG;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	strcpy(s->disk, disk);
	rc = bt_blkdev_sched_get(disk, s->old, sizeof(s->old), NULL, 0);
	if (rc == 0)
		rc = save_iosched(s);
	if (rc < 0) {
		bt_blkdev_sched_free(s);
		return rc;
	}
	*out = s;
	if (!name || strcmp(name, s->old) == 0)
		return 0;
	snprintf(path, sizeof(path), "/sys/block/%s/queue/scheduler", disk);
	rc = bt_sysfs_write(path, name);
	if (rc < 0)
		return rc;
	/* The write can succeed and leave another one in place: re-read. */
	rc = bt_blkdev_sched_get(disk, now, sizeof(now), NULL, 0);
	if (rc < 0)
		return rc;
	return strcmp(now, name) == 0 ? 0 : -EINVAL;
}

int bt_blkdev_sched_tune(struct bt_blkdev_sched *s, const char *key,
			 const char *val, char *got, size_t glen)
{
	char path[PATH_MAX];
	int rc;

	if (!*key || strchr(key, '/') || strstr(key, ".."))
		return -EINVAL;
	snprintf(path, sizeof(path), "/sys/block/%s/queue/iosched/%s", s->disk,
		 key);
	if (access(path, F_OK) < 0) {
		/* Not a scheduler tunable: a queue attribute (nr_requests...). */
		snprintf(path, sizeof(path), "/sys/block/%s/queue/%s", s->disk, key);
		if (access(path, F_OK) < 0)
			return -ENOENT;
		rc = save_attr(s, path);
		if (rc < 0)
			return rc;
	}
	rc = bt_sysfs_write(path, val);
	if (rc < 0)
		return rc;
	rc = bt_sysfs_read(path, got, glen);
	return rc < 0 ? rc : 0;
}

int bt_blkdev_sched_restore(struct bt_blkdev_sched *s)
{
	char path[PATH_MAX], now[32];
	int rc = 0, r;

	if (!s)
		return 0;
	snprintf(path, sizeof(path), "/sys/block/%s/queue/scheduler", s->disk);
	if (bt_blkdev_sched_get(s->disk, now, sizeof(now), NULL, 0) < 0 ||
	    strcmp(now, s->old) != 0)
		rc = bt_sysfs_write(path, s->old);
	if (rc == 0 && bt_blkdev_sched_get(s->disk, now, sizeof(now), NULL, 0) == 0 &&
	    strcmp(now, s->old) != 0)
		rc = -EIO;
	/* Old scheduler's tunables and queue attributes, saved before we touched them. */
	r = bt_sysfs_restore(&s->attrs, true);
	return rc < 0 ? rc : r;
}

const char *bt_blkdev_sched_old(const struct bt_blkdev_sched *s)
{
	return s->old;
}

void bt_blkdev_sched_free(struct bt_blkdev_sched *s)
{
	if (!s)
		return;
	bt_sysfs_saved_free(&s->attrs);
	free(s);
}

/* Legacy (single-queue) names and their nearest blk-mq scheduler. */
const char *bt_blkdev_sched_legacy(const char *name)
{
	static const char *const map[][2] = {
		{ "noop", "none" },
		{ "deadline", "mq-deadline" },
		{ "cfq", "bfq" },
		{ "as", "bfq" },
		{ "anticipatory", "bfq" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(name, map[i][0]) == 0)
			return map[i][1];
	return NULL;
}

/* -------------------------------------------------------- scratch loop */

int bt_blkdev_scratch(const char *dir, uint64_t bytes, char *path, size_t len)
{
	struct loop_config cfg;
	char file[PATH_MAX];
	int ctl, back, loop = -1, rc = 0, nr;

	snprintf(file, sizeof(file), "%s/btreplay.XXXXXX", dir ? dir : "/tmp");
	back = mkostemp(file, O_CLOEXEC);
	if (back < 0)
		return -errno;
	/* The name goes at once: the loop device keeps the file alive. */
	unlink(file);
	bytes = (bytes + 65535) & ~(uint64_t)65535;
	if (bytes < (1u << 20))
		bytes = 1u << 20;
	if (ftruncate(back, (off_t)bytes) < 0) {
		rc = -errno;
		close(back);
		return rc;
	}
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		rc = -errno;
		close(back);
		return rc;
	}
	/* Another process may take the free device first: try again. */
	for (int tries = 0; tries < 16; tries++) {
		nr = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (nr < 0) {
			rc = -errno;
			break;
		}
		snprintf(path, len, "/dev/loop%d", nr);
		loop = open(path, O_RDWR | O_CLOEXEC);
		if (loop < 0) {
			rc = -errno;
			if (rc == -ENOENT)
				continue;	/* udev has not made the node yet */
			break;
		}
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = (unsigned)back;
		cfg.block_size = 512;
		/*
		 * Autoclear detaches the device when its last descriptor
		 * closes, so even a killed btreplay leaves nothing behind.
		 * Direct I/O keeps the page cache out of the latencies.
		 */
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR | LO_FLAGS_DIRECT_IO;
		rc = ioctl(loop, LOOP_CONFIGURE, &cfg) < 0 ? -errno : 0;
		if (rc == -EINVAL) {
			/* Backing filesystem without O_DIRECT (tmpfs). */
			cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
			rc = ioctl(loop, LOOP_CONFIGURE, &cfg) < 0 ? -errno : 0;
		}
		if (rc == 0)
			break;
		close(loop);
		loop = -1;
		if (rc != -EBUSY)
			break;
	}
	close(ctl);
	close(back);
	if (loop < 0 && rc == 0)
		rc = -EBUSY;
	return rc < 0 ? rc : loop;
}
