// SPDX-License-Identifier: MIT
/*
 * input.c - the reader's byte sources: a file, a descriptor (stdin, a
 * pipe) or memory, gzip inflated on the fly when the first bytes say so,
 * and NAME meaning every NAME.blktrace.N beside it (a per-CPU set).  Each
 * input owns one fixed buffer filled by large read()s, so memory is bounded
 * by the number of inputs and no record costs a malloc or a system call;
 * plain memory is used in place.  A read or gzip error is kept until the
 * bytes before it are used.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "reader_int.h"

/* ------------------------------------------------------------- inputs */

void bt_input_free(struct input *in)
{
	if (!in)
		return;
	if (in->z) {
		inflateEnd(in->z);
		free(in->z);
	}
	if (in->close_fd && in->fd >= 0)
		close(in->fd);
	free(in->zbuf);
	free(in->buf);
	free(in->name);
	free(in);
}

static struct input *input_new(struct bt_reader *r, const char *name)
{
	struct input *in;

	if (r->started || r->nin >= MAX_INPUTS)
		return NULL;
	if (r->nin == r->cap_in) {
		size_t cap = r->cap_in ? r->cap_in * 2 : 8;
		struct input **a = realloc(r->in, cap * sizeof(*a));
		struct input **h;

		if (!a)
			return NULL;
		r->in = a;
		h = realloc(r->heap, cap * sizeof(*h));
		if (!h)
			return NULL;
		r->heap = h;
		r->cap_in = cap;
	}
	in = calloc(1, sizeof(*in));
	if (!in)
		return NULL;
	in->name = strdup(name);
	if (!in->name) {
		free(in);
		return NULL;
	}
	in->fd = -1;
	in->layout = -1;	/* decided at the first record */
	in->index = (uint16_t)r->nin;
	in->set = r->nsets++;
	r->in[r->nin++] = in;
	return in;
}

/*
 * The length of the NAME part of a per-CPU file's path DIR/NAME.blktrace.N
 * (or .N.gz), 0 when path is not named so.
 */
static size_t cpu_file_stem(const char *path)
{
	const char *p = strstr(path, ".blktrace."), *q;

	if (!p || strchr(p + 1, '/'))
		return 0;
	for (q = p + 10; *q >= '0' && *q <= '9'; q++)
		;
	if (q == p + 10 || (*q && strcmp(q, ".gz")))
		return 0;
	return (size_t)(p - path);
}

/*
 * The per-CPU files of one set are one recording, also when they are
 * named one by one (DIR/NAME.blktrace.*): the last input added joins the
 * set of the one before it when both are files of the same NAME.
 */
static void join_cpu_set(struct bt_reader *r)
{
	struct input *a, *b;
	size_t n;

	if (r->nin < 2)
		return;
	a = r->in[r->nin - 2];
	b = r->in[r->nin - 1];
	n = cpu_file_stem(b->name);
	if (n && n == cpu_file_stem(a->name) && !strncmp(a->name, b->name, n)) {
		b->set = a->set;
		r->nsets--;
	}
}

static int add_check(const struct bt_reader *r)
{
	if (r->started)
		return -EBUSY;
	if (r->nin >= MAX_INPUTS)
		return -EMFILE;
	return 0;
}

int bt_reader_add_fd(struct bt_reader *r, int fd, const char *name)
{
	struct input *in;
	char tmp[32];
	int rc = add_check(r);

	if (rc)
		return rc;
	if (fd < 0)
		return -EBADF;
	if (!name) {
		snprintf(tmp, sizeof(tmp), "fd %d", fd);
		name = tmp;
	}
	in = input_new(r, name);
	if (!in)
		return -ENOMEM;
	in->fd = fd;
	return 0;
}

int bt_reader_add_mem(struct bt_reader *r, const void *buf, size_t len,
		      const char *name)
{
	struct input *in;
	int rc = add_check(r);

	if (rc)
		return rc;
	if (!buf && len)
		return -EINVAL;
	in = input_new(r, name ? name : "memory");
	if (!in)
		return -ENOMEM;
	in->mem = buf;
	in->mem_len = len;
	return 0;
}

static int add_file(struct bt_reader *r, const char *path)
{
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = bt_reader_add_fd(r, fd, path);
	if (rc) {
		close(fd);
		return rc;
	}
	r->in[r->nin - 1]->close_fd = 1;
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	join_cpu_set(r);
	return 0;
}

struct cpu_file {
	unsigned long cpu;
	int gz;
	char *path;
};

static int cpu_file_cmp(const void *a, const void *b)
{
	const struct cpu_file *x = a, *y = b;

	if (x->cpu != y->cpu)
		return (x->cpu > y->cpu) - (x->cpu < y->cpu);
	return x->gz - y->gz;
}

/*
 * NAME means every NAME.blktrace.N in NAME's directory, or its gzip
 * NAME.blktrace.N.gz (as btcapture -z writes them; the plain file wins
 * when both are there).  Numbers may be missing (offline CPUs), so scan
 * rather than count up from 0.
 */
static int add_cpu_set(struct bt_reader *r, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
	size_t blen = strlen(base);
	char *dir;
	DIR *d;
	struct dirent *de;
	struct cpu_file *f = NULL;
	size_t n = 0, cap = 0, i;
	int rc = 0;

	if (!blen)
		return -ENOENT;
	dir = strndup(path, dlen ? dlen : 0);
	if (!dir)
		return -ENOMEM;
	d = opendir(dlen ? dir : ".");
	if (!d) {
		rc = errno == ENOENT ? -ENOENT : -errno;
		free(dir);
		return rc;
	}
	while ((de = readdir(d))) {
		const char *s = de->d_name, *num;
		char *endp;
		unsigned long cpu;

		if (strncmp(s, base, blen) || strncmp(s + blen, ".blktrace.", 10))
			continue;
		num = s + blen + 10;
		if (*num < '0' || *num > '9' || strspn(num, "0123456789") > 9)
			continue;
		cpu = strtoul(num, &endp, 10);
		if (*endp && strcmp(endp, ".gz"))
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			struct cpu_file *nf = realloc(f, nc * sizeof(*nf));

			if (!nf) {
				rc = -ENOMEM;
				break;
			}
			f = nf;
			cap = nc;
		}
		if (asprintf(&f[n].path, "%s%s", dir, s) < 0) {
			rc = -ENOMEM;
			break;
		}
		f[n].gz = *endp != '\0';
		f[n++].cpu = cpu;
	}
	closedir(d);
	free(dir);
	if (!rc && !n)
		rc = -ENOENT;
	if (!rc) {
		qsort(f, n, sizeof(*f), cpu_file_cmp);
		for (i = 0; i < n && !rc; i++) {
			struct stat sb;

			if (stat(f[i].path, &sb) == 0 && S_ISDIR(sb.st_mode))
				continue;
			if (i && f[i].cpu == f[i - 1].cpu)
				continue;	/* N.gz beside N */
			rc = add_file(r, f[i].path);
		}
	}
	for (i = 0; i < n; i++)
		free(f[i].path);
	free(f);
	return rc;
}

int bt_reader_add(struct bt_reader *r, const char *path)
{
	struct stat sb;
	int rc = add_check(r);

	if (rc)
		return rc;
	if (!path || !*path)
		return -EINVAL;
	if (!strcmp(path, "-"))
		return bt_reader_add_fd(r, STDIN_FILENO, "-");
	if (stat(path, &sb) == 0) {
		if (S_ISDIR(sb.st_mode))
			return -EISDIR;
		return add_file(r, path);
	}
	if (errno != ENOENT)
		return -errno;
	return add_cpu_set(r, path);
}

size_t bt_reader_inputs(const struct bt_reader *r)
{
	return r->nin;
}

const char *bt_reader_input_name(const struct bt_reader *r, size_t i)
{
	return i < r->nin ? r->in[i]->name : NULL;
}

/* ------------------------------------------------------- byte source */

static ssize_t read_once(int fd, unsigned char *p, size_t len)
{
	ssize_t n;

	do
		n = read(fd, p, len);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/* Feed zlib more compressed bytes; 0 at the end of them. */
static int gz_feed(struct input *in)
{
	if (in->fd < 0) {
		size_t left = in->mem_len - in->mem_fed;
		size_t n = left > (1u << 30) ? (1u << 30) : left;

		in->z->next_in = (unsigned char *)in->mem + in->mem_fed;
		in->z->avail_in = (uInt)n;
		in->mem_fed += n;
		return n > 0;
	} else {
		ssize_t n = read_once(in->fd, in->zbuf, in->cap);

		if (n < 0)
			return (int)n;
		in->z->next_in = in->zbuf;
		in->z->avail_in = (uInt)n;
		return n > 0;
	}
}

/* Remember a source error; it is reported once the bytes before it are used. */
static void source_error(struct input *in, int err, const char *what,
			 const char *why)
{
	in->ierr = err;
	snprintf(in->imsg, sizeof(in->imsg), "%s: %s", what, why);
}

/* Give inflate more input when it has none; -1 after a read error (noted). */
static int gz_refill(struct input *in)
{
	int f;

	if (in->z->avail_in || in->zeof)
		return 0;
	f = gz_feed(in);
	if (f < 0) {
		source_error(in, f, "read", strerror(-f));
		return -1;
	}
	if (!f)
		in->zeof = 1;
	return 0;
}

/*
 * Inflate up to len bytes and return how many came out.  Concatenated
 * gzip members are one stream, as for zcat.  Sets eof at the clean end
 * of the last member, gz_trunc when the data stops inside one, and the
 * input's error on damage.
 */
static size_t gz_read(struct input *in, unsigned char *dst, size_t len)
{
	z_stream *z = in->z;
	int zr;

	z->next_out = dst;
	z->avail_out = (uInt)len;
	while (z->avail_out == len) {
		if (gz_refill(in) < 0)
			break;
		zr = inflate(z, Z_NO_FLUSH);
		if (zr == Z_STREAM_END) {
			if (gz_refill(in) < 0)
				break;
			if (!z->avail_in) {
				in->eof = 1;	/* clean end of the last member */
				break;
			}
			if (z->next_in[0] != 0x1f) {
				source_error(in, -EBADMSG, "gzip",
					     "garbage after gzip data");
				break;
			}
			inflateReset(z);
			continue;
		}
		if (zr == Z_BUF_ERROR && !z->avail_in && in->zeof) {
			in->eof = 1;
			in->gz_trunc = 1;
			break;
		}
		if (zr == Z_MEM_ERROR) {
			source_error(in, -ENOMEM, "gzip", "out of memory");
			break;
		}
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			source_error(in, -EBADMSG, "gzip",
				     z->msg ? z->msg : "corrupt data");
			break;
		}
	}
	return len - z->avail_out;
}

/* An error the caller reports: -errno, with the offset and message set. */
static int input_fail(struct input *in, uint64_t off, int err,
		      const char *what, const char *why)
{
	in->eoff = off;
	snprintf(in->imsg, sizeof(in->imsg), "%s%s%s", what, why ? ": " : "",
		 why ? why : "");
	return err;
}

/* Decide gzip or plain at the first bytes of the input. */
static int input_start(struct input *in, size_t nin)
{
	int gz = 0;

	in->started = 1;
	in->cap = nin ? BUF_TOTAL / nin : BUF_MAX;
	if (in->cap > BUF_MAX)
		in->cap = BUF_MAX;
	if (in->cap < BUF_MIN)
		in->cap = BUF_MIN;
	if (in->fd < 0) {
		gz = in->mem_len >= 2 && in->mem[0] == 0x1f && in->mem[1] == 0x8b;
		if (!gz) {
			/* Plain memory is read in place: no copy at all. */
			in->data = in->mem;
			in->end = in->mem_len;
			in->eof = 1;
			return 0;
		}
	} else {
		ssize_t n;

		in->buf = malloc(in->cap);
		if (!in->buf)
			return input_fail(in, 0, -ENOMEM, "out of memory", NULL);
		in->data = in->buf;
		/* Pipes may deliver one byte at a time. */
		while (in->end < 2) {
			n = read_once(in->fd, in->buf + in->end,
				      in->cap - in->end);
			if (n < 0)
				return input_fail(in, 0, (int)n, "read",
						  strerror((int)-n));
			if (!n) {
				in->eof = 1;
				break;
			}
			in->end += (size_t)n;
		}
		gz = in->end >= 2 && in->buf[0] == 0x1f && in->buf[1] == 0x8b;
		if (!gz)
			return 0;
		/* What was read is compressed: it becomes zlib's input. */
		in->zbuf = in->buf;
		in->buf = NULL;
	}
	in->gz = 1;
	in->z = calloc(1, sizeof(*in->z));
	if (!in->buf)
		in->buf = malloc(in->cap);
	if (!in->z || !in->buf)
		return input_fail(in, 0, -ENOMEM, "out of memory", NULL);
	if (inflateInit2(in->z, 16 + MAX_WBITS) != Z_OK) {
		free(in->z);
		in->z = NULL;
		return input_fail(in, 0, -ENOMEM, "cannot start zlib", NULL);
	}
	if (in->fd >= 0) {
		in->z->next_in = in->zbuf;
		in->z->avail_in = (uInt)in->end;
		in->zeof = in->eof;
	}
	in->data = in->buf;
	in->end = 0;
	in->eof = 0;
	return 0;
}

/*
 * Make at least need bytes available at data + pos, fewer only at the end
 * of the input.  Returns the bytes available or -errno.  A read or gzip
 * error only counts once the bytes before it are used up; with soft set
 * (format detection, which would like more but needs no more) the bytes
 * available are returned and the error waits for a real need.
 */
ssize_t bt_input_fill_slow(struct input *in, size_t need, int soft, size_t nin)
{
	if (!in->started) {
		int rc = input_start(in, nin);

		if (rc)
			return rc;
	}
	while (in->end - in->pos < need && !in->eof && !in->ierr) {
		ssize_t n;

		if (in->pos) {
			/* Slide the partial record to the front. */
			memmove(in->buf, in->buf + in->pos, in->end - in->pos);
			in->base += in->pos;
			in->end -= in->pos;
			in->pos = 0;
		}
		if (in->gz) {
			n = (ssize_t)gz_read(in, in->buf + in->end,
					     in->cap - in->end);
		} else {
			n = read_once(in->fd, in->buf + in->end,
				      in->cap - in->end);
			if (n < 0) {
				source_error(in, (int)n, "read",
					     strerror((int)-n));
				n = 0;
			} else if (!n) {
				in->eof = 1;
			}
		}
		in->end += (size_t)n;
	}
	if (in->end - in->pos < need && in->ierr && !soft) {
		in->eoff = in->base + in->pos;
		return in->ierr;	/* in->imsg says what */
	}
	return (ssize_t)(in->end - in->pos);
}
