/* SPDX-License-Identifier: MIT */
/*
 * sysfs.h - the library's one way to read and write the kernel's small
 * setting files (sysfs, tracefs, debugfs, /proc) and to put back what it
 * changed; used by the capture session and back-ends and by blkdev.c.
 * Private to lib/.
 */
#ifndef BTKIT_SYSFS_H
#define BTKIT_SYSFS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Read a small file into buf (NUL-terminated, without the trailing newline
 * and blanks).  Returns the length kept, or -errno.
 */
int bt_sysfs_read(const char *path, char *buf, size_t len);
/* Write val in one write(); 0, -EIO on a short write, or -errno. */
int bt_sysfs_write(const char *path, const char *val);

/* Mount a pseudo-filesystem of type on dir unless probe exists there. */
int bt_sysfs_mount(const char *dir, const char *type, const char *probe,
		   bool *mounted);

/* Settings to write back, each with the first value remembered for it. */
struct bt_sysfs_saved {
	struct bt_sysfs_setting *v;
	size_t n, cap;
};
struct bt_sysfs_setting {
	char *path;
	char *val;
};
/* Remember val for path unless path is remembered already; 0 or -ENOMEM. */
int bt_sysfs_keep(struct bt_sysfs_saved *s, const char *path, const char *val);
/*
 * Write every remembered value back, the last remembered first, and
 * forget them.  Returns the first failure (-EINVAL ignored when
 * skip_einval: a value the kernel offers but refuses to take back).
 */
int bt_sysfs_restore(struct bt_sysfs_saved *s, bool skip_einval);
void bt_sysfs_saved_free(struct bt_sysfs_saved *s);

#endif /* BTKIT_SYSFS_H */
