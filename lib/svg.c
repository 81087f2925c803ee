// SPDX-License-Identifier: MIT
/*
 * svg.c - the one small SVG writer of the library: elements and attributes
 * written as they come (nothing is kept, so a picture of any size costs no
 * memory), text escaped for XML (markup characters as entities, control
 * bytes and broken UTF-8 replaced, since XML 1.0 forbids them even as
 * character references and a comm or a label may hold anything), numbers
 * formatted from integers so that no locale turns a decimal point into a
 * comma, and the two palettes pictures use: viridis for magnitudes and
 * Okabe-Ito for categories, both readable with the common colour-vision
 * deficiencies.  Write errors are sticky and reported by bt_svg_finish().
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "btkit.h"

struct bt_svg {
	FILE *f;
	int in_tag;		/* "<name attr..." written, not yet closed */
	int depth;		/* open elements, the root included */
};

size_t bt_svg_num(char *buf, size_t len, double v, int decimals)
{
	uint64_t scale = 1, whole, frac;
	double a, r;
	int neg = v < 0, n;
	char digits[24];

	if (decimals < 0)
		decimals = 0;
	if (decimals > 9)
		decimals = 9;
	for (int i = 0; i < decimals; i++)
		scale *= 10;
	/* NaN and values too large for u64 have no place in a picture. */
	if (!(v == v) || v > 1e15 || v < -1e15)
		v = 0, neg = 0;
	a = neg ? -v : v;
	r = a * (double)scale + 0.5;
	whole = (uint64_t)r / scale;
	frac = (uint64_t)r % scale;
	if (!whole && !frac)
		neg = 0;	/* no "-0" */
	n = 0;
	if (frac) {
		/* Fraction digits without the trailing zeros. */
		int d = decimals;

		while (frac % 10 == 0) {
			frac /= 10;
			d--;
		}
		n = snprintf(digits, sizeof(digits), ".%0*" PRIu64, d, frac);
	} else {
		digits[0] = '\0';
	}
	n = snprintf(buf, len, "%s%" PRIu64 "%s", neg ? "-" : "", whole,
		     digits);
	return n < 0 ? 0 : (size_t)n;
}

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if broken. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (n < len)
		return 0;
	cp = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, and U+FFFE/U+FFFF are not XML text. */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
	    cp == 0xfffe || cp == 0xffff)
		return 0;
	return len;
}

size_t bt_svg_escape(char *buf, size_t len, const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t n = strlen(text), out = 0, k;
	const char *rep;
	char one[2] = { 0, 0 };

	for (size_t i = 0; i < n; i += k) {
		k = 1;
		rep = one;
		switch (s[i]) {
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '&': rep = "&amp;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&apos;"; break;
		case '\t': case '\n': case '\r':
			/* Kept in text, but normalised away in attributes. */
			one[0] = ' ';
			break;
		default:
			if (s[i] < 0x20 || s[i] == 0x7f) {
				one[0] = '?';
			} else if (s[i] < 0x80) {
				one[0] = (char)s[i];
			} else if ((k = utf8_len(s + i, n - i)) == 0) {
				k = 1;
				one[0] = '?';
			} else {
				rep = NULL;
			}
		}
		if (!rep) {
			if (buf && out + k < len)
				memcpy(buf + out, s + i, k);
			out += k;
			continue;
		}
		for (const char *p = rep; *p; p++, out++)
			if (buf && out + 1 < len)
				buf[out] = *p;
	}
	if (buf && len)
		buf[out < len ? out : len - 1] = '\0';
	return out;
}

static void put_escaped(struct bt_svg *s, const char *text)
{
	char small[256], *big = NULL, *p = small;
	size_t n = bt_svg_escape(small, sizeof(small), text);

	if (n >= sizeof(small)) {
		big = malloc(n + 1);
		if (!big) {
			fputs("?", s->f);
			return;
		}
		bt_svg_escape(big, n + 1, text);
		p = big;
	}
	fwrite(p, 1, n, s->f);
	free(big);
}

static void close_tag(struct bt_svg *s)
{
	if (s->in_tag) {
		fputc('>', s->f);
		s->in_tag = 0;
	}
}

int bt_svg_new(struct bt_svg **out, FILE *f, double width, double height,
	       const char *style)
{
	struct bt_svg *s;
	char w[32], h[32];

	*out = NULL;
	if (!f || width <= 0 || height <= 0)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->f = f;
	bt_svg_num(w, sizeof(w), width, 1);
	bt_svg_num(h, sizeof(h), height, 1);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" "
		"height=\"%s\" viewBox=\"0 0 %s %s\">\n", w, h, w, h);
	s->depth = 1;
	if (style) {
		/* CSS has no markup; a CDATA section keeps its '>' as is. */
		fputs("<style><![CDATA[\n", f);
		fputs(style, f);
		fputs("\n]]></style>\n", f);
	}
	*out = s;
	return 0;
}

void bt_svg_open(struct bt_svg *s, const char *name)
{
	close_tag(s);
	fprintf(s->f, "<%s", name);
	s->in_tag = 1;
	s->depth++;
}

void bt_svg_attr(struct bt_svg *s, const char *name, const char *value)
{
	fprintf(s->f, " %s=\"", name);
	put_escaped(s, value);
	fputc('"', s->f);
}

void bt_svg_attr_num(struct bt_svg *s, const char *name, double v,
		     int decimals)
{
	char b[40];

	bt_svg_num(b, sizeof(b), v, decimals);
	fprintf(s->f, " %s=\"%s\"", name, b);
}

void bt_svg_text(struct bt_svg *s, const char *text)
{
	close_tag(s);
	put_escaped(s, text);
}

void bt_svg_textf(struct bt_svg *s, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	bt_svg_text(s, buf);
}

void bt_svg_close(struct bt_svg *s, const char *name)
{
	if (s->depth > 1)
		s->depth--;
	if (s->in_tag) {
		fputs("/>\n", s->f);
		s->in_tag = 0;
		return;
	}
	fprintf(s->f, "</%s>\n", name);
}

void bt_svg_title(struct bt_svg *s, const char *text)
{
	bt_svg_open(s, "title");
	bt_svg_text(s, text);
	bt_svg_close(s, "title");
}

void bt_svg_raw(struct bt_svg *s, const char *markup)
{
	close_tag(s);
	fputs(markup, s->f);
}

int bt_svg_finish(struct bt_svg *s)
{
	int rc;

	if (!s)
		return -EINVAL;
	close_tag(s);
	fputs("</svg>\n", s->f);
	rc = fflush(s->f) || ferror(s->f) ? -EIO : 0;
	free(s);
	return rc;
}

/* viridis at eleven evenly spaced points (matplotlib's table). */
static const unsigned char viridis[11][3] = {
	{ 0x44, 0x01, 0x54 }, { 0x48, 0x24, 0x75 }, { 0x41, 0x44, 0x87 },
	{ 0x35, 0x5f, 0x8d }, { 0x2a, 0x78, 0x8e }, { 0x21, 0x91, 0x8c },
	{ 0x22, 0xa8, 0x84 }, { 0x44, 0xbf, 0x70 }, { 0x7a, 0xd1, 0x51 },
	{ 0xbd, 0xdf, 0x26 }, { 0xfd, 0xe7, 0x25 },
};

char *bt_svg_viridis(double t, char *buf)
{
	double x;
	int i, c[3];

	if (!(t > 0))
		t = 0;
	if (t > 1)
		t = 1;
	x = t * 10;
	i = (int)x;
	if (i > 9)
		i = 9;
	x -= i;
	for (int k = 0; k < 3; k++)
		c[k] = (int)(viridis[i][k] + (viridis[i + 1][k] - viridis[i][k]) *
			     x + 0.5);
	snprintf(buf, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
	return buf;
}

const char *bt_svg_category(unsigned i)
{
	/* Okabe & Ito (2008), black last: it is also the axes' colour. */
	static const char *const okabe_ito[] = {
		"#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9",
		"#d55e00", "#f0e442", "#000000",
	};

	return okabe_ito[i % (sizeof(okabe_ito) / sizeof(okabe_ito[0]))];
}
