// SPDX-License-Identifier: MIT
/*
 * table.c - report output shared by every tool: a header line, then rows,
 * as tab-separated text or RFC 4180 CSV, or rows alone as JSON Lines (one
 * object per row keyed by the column names), or an HTML <table> for
 * btplot's report (header cells <th>, text escaped, numbers in cells of
 * class "num" so a style sheet can right-align them).  A row is built in one
 * reusable buffer and written with a single fwrite when it ends, so a wrong
 * cell count can be refused before anything reaches the stream and the
 * steady state does no allocation.  CSV fields are quoted through libcsv,
 * and only when they need it, so numbers stay bare for spreadsheets and
 * scripts.  Lines end in LF, not CRLF, in every format: the output is for
 * pipes first, and readers of RFC 4180 (Python's csv, R, spreadsheets)
 * take LF as well.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <csv.h>
#include "btkit.h"
#include "digits.h"

struct bt_table {
	FILE *fp;
	enum bt_table_fmt fmt;
	size_t ncols;
	size_t ncells;		/* cells in the row being built */
	uint64_t rows;		/* rows ended, refused ones not counted */
	char *row;		/* the row being built */
	size_t len, cap;
	int err;		/* sticky: first -errno met */
	char *keys;		/* JSON: '{"col0":' then ',"colN":' per column */
	size_t *koff;		/* JSON: ncols + 1 offsets into keys */
};

static int grow(struct bt_table *t, size_t n)
{
	size_t cap;
	char *p;

	cap = t->cap ? t->cap : 256;
	while (cap < t->len + n)
		cap *= 2;
	p = realloc(t->row, cap);
	if (!p) {
		if (!t->err)
			t->err = -ENOMEM;
		return 0;
	}
	t->row = p;
	t->cap = cap;
	return 1;
}

/* Make room for n more bytes; on failure the error sticks and 0 is returned. */
static inline int reserve(struct bt_table *t, size_t n)
{
	if (__builtin_expect(t->len + n <= t->cap, 1))
		return 1;
	return grow(t, n);
}

static int needs_quotes(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		/* One compare rules out letters and digits, the usual case. */
		if (c > '"' && c != ',')
			continue;
		if (c == ',' || c == '"' || c == '\n' || c == '\r')
			return 1;
	}
	/* Leading or trailing blanks would be trimmed by some readers. */
	return n && (s[0] == ' ' || s[n - 1] == ' ');
}

/*
 * Length of the well-formed UTF-8 sequence at s (at most n bytes), 0 when
 * it is not one: overlong forms, surrogates and values past U+10FFFF are
 * refused as RFC 8259 readers do.
 */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/*
 * A JSON string.  Process names and messages come from the trace and may
 * hold any byte: a byte that is not part of valid UTF-8 is written as the
 * code point of the same value (\u00XX), so every line stays valid JSON.
 */
static void json_string(struct bt_table *t, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	char *p;

	/* Escaping writes at most 6 bytes per input byte, plus two quotes. */
	if (!reserve(t, 6 * n + 2))
		return;
	p = t->row + t->len;
	*p++ = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];
		size_t u;

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			*p++ = (char)c;
			continue;
		}
		if (c >= 0x80 && (u = utf8_len(s + i, n - i))) {
			memcpy(p, s + i, u);
			p += u;
			i += u - 1;
			continue;
		}
		*p++ = '\\';
		switch (c) {
		case '"': *p++ = '"'; break;
		case '\\': *p++ = '\\'; break;
		case '\n': *p++ = 'n'; break;
		case '\t': *p++ = 't'; break;
		case '\r': *p++ = 'r'; break;
		default:
			memcpy(p, "u00", 3);
			p[3] = hex[c >> 4];
			p[4] = hex[c & 15];
			p += 5;
		}
	}
	*p++ = '"';
	t->len = (size_t)(p - t->row);
}

/* Start a cell: the separator, or in JSON the column's key. */
static void sep(struct bt_table *t)
{
	size_t i = t->ncells++, n;

	if (t->fmt == BT_TABLE_HTML)
		return;		/* html_cell() writes the whole cell */
	if (t->fmt != BT_TABLE_JSON) {
		if (i && reserve(t, 1))
			t->row[t->len++] = t->fmt == BT_TABLE_CSV ? ',' : '\t';
		return;
	}
	if (i >= t->ncols)
		return;		/* a cell too many: the row will be refused */
	n = t->koff[i + 1] - t->koff[i];
	if (reserve(t, n)) {
		memcpy(t->row + t->len, t->keys + t->koff[i], n);
		t->len += n;
	}
}

static void json_null(struct bt_table *t)
{
	if (reserve(t, 4)) {
		memcpy(t->row + t->len, "null", 4);
		t->len += 4;
	}
}

static void put(struct bt_table *t, const char *s, size_t n)
{
	if (reserve(t, n)) {
		memcpy(t->row + t->len, s, n);
		t->len += n;
	}
}

/*
 * HTML text: markup characters as entities, and what a browser would
 * show as garbage replaced, since comms come from the trace: control
 * bytes as '?' and a byte outside valid UTF-8 as U+FFFD.
 */
static void html_text(struct bt_table *t, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	char *p;

	/* "&quot;" is the longest replacement of one byte. */
	if (!reserve(t, 6 * n))
		return;
	p = t->row + t->len;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];
		size_t u;

		switch (c) {
		case '&': memcpy(p, "&amp;", 5); p += 5; continue;
		case '<': memcpy(p, "&lt;", 4); p += 4; continue;
		case '>': memcpy(p, "&gt;", 4); p += 4; continue;
		case '"': memcpy(p, "&quot;", 6); p += 6; continue;
		}
		if (c >= 0x20 && c < 0x7f) {
			*p++ = (char)c;
		} else if (c < 0x80) {
			*p++ = c == '\t' || c == '\n' || c == '\r' ? ' ' : '?';
		} else if ((u = utf8_len(s + i, n - i))) {
			memcpy(p, s + i, u);
			p += u;
			i += u - 1;
		} else {
			memcpy(p, "\xef\xbf\xbd", 3);
			p += 3;
		}
	}
	t->len = (size_t)(p - t->row);
}

/* One whole HTML cell; the row's <tr> comes with its first cell. */
static void html_cell(struct bt_table *t, const char *s, size_t n, int num)
{
	if (!t->ncells++)
		put(t, "<tr>", 4);
	if (num)
		put(t, "<td class=\"num\">", 16);
	else
		put(t, "<td>", 4);
	html_text(t, s, n);
	put(t, "</td>", 5);
}

/* A tab or newline inside a TSV cell would shift every column after it. */
static inline void blank_tsv(char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] == '\t' || p[i] == '\n' || p[i] == '\r')
			p[i] = ' ';
}

/*
 * A text cell in TSV or CSV: 1 when written here, the separator and the
 * text in one reservation; 0 leaves it to the rest of cell() (JSON, HTML,
 * a CSV field that needs quotes, no memory).
 */
static inline int text_cell(struct bt_table *t, const char *s, size_t n)
{
	char *p;

	if (t->fmt > BT_TABLE_CSV ||
	    (t->fmt == BT_TABLE_CSV && needs_quotes(s, n)) ||
	    !reserve(t, n + 1))
		return 0;
	p = t->row + t->len;
	if (t->ncells++)
		*p++ = t->fmt == BT_TABLE_CSV ? ',' : '\t';
	memcpy(p, s, n);
	if (t->fmt == BT_TABLE_TSV)
		blank_tsv(p, n);
	t->len = (size_t)(p + n - t->row);
	return 1;
}

/* Append one cell's text, with the separator and any quoting. */
static void cell(struct bt_table *t, const char *s, size_t n)
{
	if (text_cell(t, s, n))
		return;
	if (t->fmt == BT_TABLE_HTML) {
		html_cell(t, s, n, 0);
		return;
	}
	sep(t);
	if (t->fmt == BT_TABLE_JSON) {
		/* "-" is how the text formats show a value that is absent. */
		if (!n || (n == 1 && s[0] == '-'))
			json_null(t);
		else
			json_string(t, s, n);
		return;
	}
	/* What text_cell() left: a CSV field that needs quotes. */
	if (t->fmt == BT_TABLE_CSV && needs_quotes(s, n) &&
	    reserve(t, 2 * n + 2))
		/* Quoting at most doubles the text, plus two quotes. */
		t->len += csv_write(t->row + t->len, t->cap - t->len, s, n);
}


/* A cell that needs neither quoting nor blanking: numbers. */
static void cell_raw(struct bt_table *t, const char *s, size_t n)
{
	if (t->fmt == BT_TABLE_HTML) {
		html_cell(t, s, n, 1);
		return;
	}
	if (t->fmt == BT_TABLE_JSON) {
		sep(t);
	} else {
		if (!reserve(t, n + 1))
			return;
		if (t->ncells++)
			t->row[t->len++] = t->fmt == BT_TABLE_CSV ? ',' : '\t';
	}
	if (!reserve(t, n))
		return;
	memcpy(t->row + t->len, s, n);
	t->len += n;
}

/* Write the finished row and start a new one. */
static void flush_row(struct bt_table *t)
{
	if (t->fmt == BT_TABLE_JSON && reserve(t, 1))
		t->row[t->len++] = '}';
	if (t->fmt == BT_TABLE_HTML)
		put(t, "</tr>", 5);
	if (reserve(t, 1))
		t->row[t->len++] = '\n';
	if (!t->err && fwrite_unlocked(t->row, 1, t->len, t->fp) != t->len)
		t->err = -EIO;
	t->len = 0;
	t->ncells = 0;
}

/*
 * JSON Lines has no header: each row names its columns.  The keys are
 * escaped once here, with the '{' or ',' before them, and copied per cell.
 */
static int json_keys(struct bt_table *t, const char *const *cols)
{
	t->koff = malloc((t->ncols + 1) * sizeof(*t->koff));
	if (!t->koff)
		return -ENOMEM;
	for (size_t i = 0; i < t->ncols; i++) {
		const char *c = cols[i] ? cols[i] : "";

		t->koff[i] = t->len;
		if (reserve(t, 1))
			t->row[t->len++] = i ? ',' : '{';
		json_string(t, c, strlen(c));
		if (reserve(t, 1))
			t->row[t->len++] = ':';
	}
	if (t->err)
		return t->err;
	t->koff[t->ncols] = t->len;
	/* The row buffer built them; they move to their own. */
	t->keys = malloc(t->len);
	if (!t->keys)
		return -ENOMEM;
	memcpy(t->keys, t->row, t->len);
	t->len = 0;
	return 0;
}

/* The table's start, with the column names as <th> cells unless !header. */
static void html_head(struct bt_table *t, int header, const char *const *cols)
{
	put(t, "<table>\n", 8);
	if (header) {
		put(t, "<thead><tr>", 11);
		for (size_t i = 0; i < t->ncols; i++) {
			const char *c = cols[i] ? cols[i] : "";

			put(t, "<th>", 4);
			html_text(t, c, strlen(c));
			put(t, "</th>", 5);
		}
		put(t, "</tr></thead>\n", 14);
	}
	put(t, "<tbody>\n", 8);
	if (!t->err && fwrite_unlocked(t->row, 1, t->len, t->fp) != t->len)
		t->err = -EIO;
	t->len = 0;
}

int bt_table_new(struct bt_table **out, FILE *fp, enum bt_table_fmt fmt,
		 int header, const char *const *cols, size_t ncols)
{
	struct bt_table *t;

	*out = NULL;
	if (!fp || !ncols || (fmt != BT_TABLE_TSV && fmt != BT_TABLE_CSV &&
			      fmt != BT_TABLE_JSON && fmt != BT_TABLE_HTML))
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->fp = fp;
	t->fmt = fmt;
	t->ncols = ncols;
	if (fmt == BT_TABLE_JSON) {
		if (json_keys(t, cols) < 0)
			goto nomem;
	} else if (fmt == BT_TABLE_HTML) {
		html_head(t, header, cols);
	} else if (header) {
		for (size_t i = 0; i < ncols; i++)
			bt_table_str(t, cols[i]);
		flush_row(t);
	}
	if (t->err == -ENOMEM || !reserve(t, 256))
		goto nomem;
	*out = t;
	return 0;
nomem:
	free(t->keys);
	free(t->koff);
	free(t->row);
	free(t);
	return -ENOMEM;
}

void bt_table_str(struct bt_table *t, const char *s)
{
	size_t n;

	if (!s)
		s = "";
	n = strlen(s);
	cell(t, s, n);
}

/*
 * Numbers through digits.h, as btcat's text: room for 20 digits, a sign or
 * a point and 9 decimals, and the 8 bytes its stores may run past them.
 */
#define NUMBUF	48

/*
 * A number's cell in TSV or CSV written in place: the separator and room
 * for the digits in one reservation.  NULL in JSON and HTML (the caller
 * formats into a buffer and goes through cell_raw()) or without memory.
 */
static inline char *num_at(struct bt_table *t)
{
	char *p;

	if (t->fmt > BT_TABLE_CSV || !reserve(t, NUMBUF + 1))
		return NULL;
	p = t->row + t->len;
	if (t->ncells++)
		*p++ = t->fmt == BT_TABLE_CSV ? ',' : '\t';
	return p;
}

/* The cell written by num_at() ends at end. */
static inline void num_end(struct bt_table *t, const char *end)
{
	t->len = (size_t)(end - t->row);
}

static char *put_i64(char *p, int64_t v)
{
	if (v < 0)
		*p++ = '-';
	return put_u64(p, v < 0 ? -(uint64_t)v : (uint64_t)v);
}

/* v / 10^dec with exactly dec (1 to 9) decimals, integers only. */
static char *put_fixed(char *p, uint64_t v, unsigned dec, uint64_t div)
{
	uint64_t frac = v % div;
	char tmp[8];

	p = put_u64(p, v / div);
	*p++ = '.';
	if (dec > 8) {
		*p++ = (char)('0' + frac / 100000000);
		frac %= 100000000;
		dec = 8;
	}
	/* The last dec of frac's 8 digits, zeros leading. */
	store8(tmp, digits8((uint32_t)frac) | ZEROS8);
	memcpy(p, tmp + 8 - dec, dec);
	return p + dec;
}

void bt_table_u64(struct bt_table *t, uint64_t v)
{
	char buf[NUMBUF], *p = num_at(t);

	if (p)
		num_end(t, put_u64(p, v));
	else if (t->fmt > BT_TABLE_CSV)
		cell_raw(t, buf, (size_t)(put_u64(buf, v) - buf));
}

void bt_table_i64(struct bt_table *t, int64_t v)
{
	char buf[NUMBUF], *p = num_at(t);

	if (p)
		num_end(t, put_i64(p, v));
	else if (t->fmt > BT_TABLE_CSV)
		cell_raw(t, buf, (size_t)(put_i64(buf, v) - buf));
}

static void fixed(struct bt_table *t, uint64_t v, unsigned dec, uint64_t div)
{
	char buf[NUMBUF], *p = num_at(t);

	if (p)
		num_end(t, put_fixed(p, v, dec, div));
	else if (t->fmt > BT_TABLE_CSV)
		cell_raw(t, buf, (size_t)(put_fixed(buf, v, dec, div) - buf));
}

void bt_table_us(struct bt_table *t, uint64_t ns)
{
	fixed(t, ns, 3, 1000);
}

void bt_table_s(struct bt_table *t, uint64_t ns)
{
	fixed(t, ns, 9, 1000000000);
}

void bt_table_double(struct bt_table *t, double v, int decimals)
{
	char buf[64];
	int n;

	if (t->fmt == BT_TABLE_JSON && !isfinite(v)) {
		/* JSON has no NaN or infinity. */
		sep(t);
		json_null(t);
		return;
	}
	if (decimals < 0)
		decimals = 0;
	if (decimals > 17)
		decimals = 17;
	n = snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(buf))
		n = (int)sizeof(buf) - 1;	/* |v| near DBL_MAX: keep the digits that fit */
	cell_raw(t, buf, (size_t)n);
}

void bt_table_dev(struct bt_table *t, uint32_t dev)
{
	char buf[NUMBUF], *p = num_at(t);

	if (p) {
		/* "8,0": quoted in CSV, for its comma. */
		int q = t->fmt == BT_TABLE_CSV;

		*p = '"';
		p = put_u64(p + q, BT_DEV_MAJOR(dev));
		*p++ = ',';
		p = put_u64(p, BT_DEV_MINOR(dev));
		*p = '"';
		num_end(t, p + q);
		return;
	}
	if (t->fmt <= BT_TABLE_CSV)
		return;		/* no memory: the error sticks */
	p = put_u64(buf, BT_DEV_MAJOR(dev));
	*p++ = ',';
	p = put_u64(p, BT_DEV_MINOR(dev));
	cell(t, buf, (size_t)(p - buf));
}

void bt_table_none(struct bt_table *t)
{
	bt_table_str(t, t->fmt == BT_TABLE_CSV ? "" : "-");
}

void bt_table_comm(struct bt_table *t, const struct bt_reader *r,
		   uint32_t pid)
{
	const char *c = r ? bt_reader_comm(r, pid) : NULL;

	bt_table_str(t, c && *c ? c : "-");
}

void bt_table_empty(struct bt_table *t, unsigned n)
{
	while (n--)
		bt_table_str(t, "");
}

void bt_table_dist(struct bt_table *t, struct bt_dist *d)
{
	if (!d->n) {
		bt_table_empty(t, 5);
		return;
	}
	bt_table_double(t, bt_dist_mean(d) / 1000.0, 3);
	bt_table_us(t, bt_dist_quantile(d, 0.50));
	bt_table_us(t, bt_dist_quantile(d, 0.95));
	bt_table_us(t, bt_dist_quantile(d, 0.99));
	bt_table_us(t, d->max);
}

int bt_table_end_row(struct bt_table *t)
{
	if (t->ncells != t->ncols) {
		/* Drop the row: a shifted row is worse than a missing one. */
		t->len = 0;
		t->ncells = 0;
		return -EINVAL;
	}
	flush_row(t);
	t->rows++;
	return t->err == -ENOMEM ? -ENOMEM : 0;
}

uint64_t bt_table_rows(const struct bt_table *t)
{
	return t->rows;
}

int bt_table_free(struct bt_table *t)
{
	int err;

	if (!t)
		return 0;
	if (t->fmt == BT_TABLE_HTML && !t->err &&
	    fputs("</tbody></table>\n", t->fp) == EOF)
		t->err = -EIO;
	err = t->err;
	if (fflush(t->fp) != 0 || ferror(t->fp))
		err = err ? err : -EIO;
	free(t->keys);
	free(t->koff);
	free(t->row);
	free(t);
	return err;
}
