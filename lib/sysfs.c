// SPDX-License-Identifier: MIT
/*
 * sysfs.c - reading and writing the kernel's one-value setting files and
 * putting back what was changed, for blkdev.c (schedulers, tunables) and
 * the capture session (tracefs options, buffer sizes, trace/enable).  Each
 * write is one write() with O_TRUNC: sysfs takes a value per write, and
 * tracefs files such as set_event are replaced, not appended to.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include "internal.h"
#include "sysfs.h"

int bt_sysfs_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	close(fd);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return (int)n;
}

int bt_sysfs_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	size_t n = strlen(val);
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, val, n);
	if (w < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	close(fd);
	return w == (ssize_t)n ? 0 : -EIO;
}

int bt_sysfs_mount(const char *dir, const char *type, const char *probe,
		   bool *mounted)
{
	char path[256];
	struct stat st;

	if (strlen(dir) + strlen(probe) + 2 > sizeof(path))
		return -ENAMETOOLONG;
	strcpy(path, dir);
	strcat(path, "/");
	strcat(path, probe);
	if (stat(path, &st) == 0)
		return 0;
	if (mount("nodev", dir, type, 0, NULL) < 0)
		return -errno;
	*mounted = true;
	return 0;
}

int bt_sysfs_keep(struct bt_sysfs_saved *s, const char *path, const char *val)
{
	struct bt_sysfs_setting *v;

	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i].path, path) == 0)
			return 0;	/* the first value is the one to put back */
	if (bt_array_room(&s->v, &s->cap, s->n, sizeof(*s->v), 16) < 0)
		return -ENOMEM;
	v = &s->v[s->n];
	v->path = strdup(path);
	v->val = strdup(val);
	if (!v->path || !v->val) {
		free(v->path);
		free(v->val);
		return -ENOMEM;
	}
	s->n++;
	return 0;
}

int bt_sysfs_restore(struct bt_sysfs_saved *s, bool skip_einval)
{
	int ret = 0;

	while (s->n > 0) {
		struct bt_sysfs_setting *v = &s->v[--s->n];
		int r = bt_sysfs_write(v->path, v->val);

		if (r < 0 && !(skip_einval && r == -EINVAL) && !ret)
			ret = r;
		free(v->path);
		free(v->val);
	}
	return ret;
}

void bt_sysfs_saved_free(struct bt_sysfs_saved *s)
{
	while (s->n > 0) {
		s->n--;
		free(s->v[s->n].path);
		free(s->v[s->n].val);
	}
	free(s->v);
	s->v = NULL;
	s->cap = 0;
}
