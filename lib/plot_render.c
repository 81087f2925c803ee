// SPDX-License-Identifier: MIT
/*
 * plot_render.c - drawing btplot's pictures from the binned data of
 * lib/plot.c through the SVG writer of lib/svg.c: panels with axes, units,
 * tick labels and grid lines, a legend, hover text (<title>) on every
 * cell, line column and lane segment, colours from viridis (magnitudes)
 * and Okabe-Ito (categories).  Several traces are drawn on shared axes:
 * every grid is first coarsened to the widest column width among them, so
 * one cell means the same time span, and one colour the same count,
 * everywhere in the picture.  The picture's size is bounded by the grids'.
 * This file holds what every picture is drawn with (text, lines, axes,
 * shared scales) and picks the kind; each kind is a file of its own:
 * plot_heatmap.c, plot_offset.c, plot_lines.c (iops and depth) and
 * plot_waits.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "plot_int.h"
#include "plot_draw.h"

const char pd_style[] =
	"text{font-family:DejaVu Sans,Verdana,sans-serif;font-size:12px;fill:#222}"
	".h{font-size:16px;font-weight:bold}.s{font-size:12px;fill:#555}"
	".p{font-size:13px;font-weight:bold}.e{text-anchor:end}"
	".m{text-anchor:middle}.ax{stroke:#333;stroke-width:1}"
	".g{stroke:#e4e4e4;stroke-width:1}.bg{fill:#f7f7f7}"
	".hv{fill:#000;fill-opacity:0}.hv:hover{fill-opacity:0.08}"
	".ln{fill:none;stroke-width:1.6}";

const char *const pd_op_names[BT_PLOT_OPS] = {
	"reads", "writes", "discards", "flushes", "other",
};

void pd_sb_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 4096;
		while (cap < b->len + (size_t)n + 1)
			cap *= 2;
		char *q = realloc(b->p, cap);
		if (!q) {
			b->nomem = 1;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
}

const char *pd_num(char *buf, double v, int dec)
{
	bt_svg_num(buf, 32, v, dec);
	return buf;
}

/*
 * Panels stacked in about 470 px, each at least min high: the height of
 * one, and of the whole picture into *height.
 */
double pd_panel_height(unsigned panels, double min, double *height)
{
	double n = panels ? panels : 1, ph = 470.0 / n;

	if (ph < min)
		ph = min;
	*height = TOP + n * (ph + GAP) + BOTTOM;
	return ph;
}

/* v scaled by step into the unit that suits it, 3 significant digits. */
const char *pd_fmt_scaled(char *buf, double v, double step,
			  const char *const *unit, int nunits)
{
	int u = 0;
	char n[32];

	while (u < nunits - 1 && v >= step) {
		v /= step;
		u++;
	}
	bt_svg_num(n, sizeof(n), v, v < 10 ? 2 : v < 100 ? 1 : 0);
	snprintf(buf, 40, "%s %s", n, unit[u]);
	return buf;
}

const char *pd_fmt_dur(char *buf, double ns)
{
	static const char *const unit[] = { "ns", "\xc2\xb5s", "ms", "s" };

	return pd_fmt_scaled(buf, ns, 1000, unit, 4);
}

const char *pd_fmt_bytes(char *buf, double b)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };

	return pd_fmt_scaled(buf, b, 1024, unit, 5);
}

/* Seconds for tick labels and hover text: enough digits for the step. */
int pd_sec_decimals(double step)
{
	int d = 0;

	while (d < 6 && step < 0.999) {
		step *= 10;
		d++;
	}
	return d;
}

void pd_text_at(struct bt_svg *s, double x, double y, const char *cls,
		const char *text)
{
	bt_svg_open(s, "text");
	bt_svg_attr_num(s, "x", x, 1);
	bt_svg_attr_num(s, "y", y, 1);
	if (cls)
		bt_svg_attr(s, "class", cls);
	bt_svg_text(s, text);
	bt_svg_close(s, "text");
}

void pd_line(struct bt_svg *s, double x1, double y1, double x2,
	     double y2, const char *cls)
{
	bt_svg_open(s, "line");
	bt_svg_attr_num(s, "x1", x1, 1);
	bt_svg_attr_num(s, "y1", y1, 1);
	bt_svg_attr_num(s, "x2", x2, 1);
	bt_svg_attr_num(s, "y2", y2, 1);
	bt_svg_attr(s, "class", cls);
	bt_svg_close(s, "line");
}

void pd_rect(struct bt_svg *s, double x, double y, double w, double h,
	     const char *fill, double opacity, const char *cls,
	     const char *title)
{
	bt_svg_open(s, "rect");
	bt_svg_attr_num(s, "x", x, 1);
	bt_svg_attr_num(s, "y", y, 1);
	bt_svg_attr_num(s, "width", w, 1);
	bt_svg_attr_num(s, "height", h, 1);
	if (fill)
		bt_svg_attr(s, "fill", fill);
	if (opacity < 1)
		bt_svg_attr_num(s, "fill-opacity", opacity, 1);
	if (cls)
		bt_svg_attr(s, "class", cls);
	if (title)
		bt_svg_title(s, title);
	bt_svg_close(s, "rect");
}

double pd_fx(const struct frame *f, double sec)
{
	return f->x + (f->xmax > 0 ? sec / f->xmax * f->w : 0);
}

/* The time axis under a panel, grid lines across it, labels if asked. */
void pd_x_axis(struct bt_svg *s, const struct frame *f, int labels)
{
	double step = bt_plot_tick_step(f->xmax, 10);
	int dec = pd_sec_decimals(step);
	char b[32];

	for (double t = 0; t <= f->xmax * 1.0000001; t += step) {
		double x = pd_fx(f, t);

		pd_line(s, x, f->y, x, f->y + f->h, "g");
		pd_line(s, x, f->y + f->h, x, f->y + f->h + 4, "ax");
		if (labels)
			pd_text_at(s, x, f->y + f->h + 17, "m", pd_num(b, t, dec));
	}
	pd_line(s, f->x, f->y + f->h, f->x + f->w, f->y + f->h, "ax");
	pd_line(s, f->x, f->y, f->x, f->y + f->h, "ax");
	if (labels)
		pd_text_at(s, f->x + f->w / 2, f->y + f->h + 36, "m",
			"time since the trace's first event (s)");
}

/* A linear value axis from 0 to the returned top (a whole number of ticks). */
double pd_y_axis(struct bt_svg *s, const struct frame *f, double max,
		 const char *unit)
{
	double step = bt_plot_tick_step(max > 0 ? max : 1, 5), top;
	int dec = pd_sec_decimals(step);
	char b[32];

	top = step;
	while (top < max * 0.9999999)
		top += step;
	for (double v = 0; v <= top * 1.0000001; v += step) {
		double y = f->y + f->h - v / top * f->h;

		if (v > 0)
			pd_line(s, f->x, y, f->x + f->w, y, "g");
		pd_line(s, f->x - 4, y, f->x, y, "ax");
		pd_text_at(s, f->x - 7, y + 4, "e", pd_num(b, v, dec));
	}
	bt_svg_open(s, "text");
	bt_svg_attr(s, "class", "m");
	{
		char tr[96], xb[32], yb[32];

		snprintf(tr, sizeof(tr), "translate(%s %s) rotate(-90)",
			 pd_num(xb, f->x - 52, 1), pd_num(yb, f->y + f->h / 2, 1));
		bt_svg_attr(s, "transform", tr);
	}
	bt_svg_text(s, unit);
	bt_svg_close(s, "text");
	return top;
}

void pd_heading(struct bt_svg *s, const char *title, const char *sub)
{
	pd_text_at(s, 16, 24, "h", title);
	pd_text_at(s, 16, 44, "s", sub);
}

/* Bring every plot's grid to the widest column width among them. */
uint64_t pd_common_width(struct bt_plot *const *p, size_t n)
{
	uint64_t w = 0;

	for (size_t i = 0; i < n; i++)
		if (p[i]->bins.width > w)
			w = p[i]->bins.width;
	for (size_t i = 0; i < n; i++)
		bt_bins_coarsen(&p[i]->bins, w);
	return w;
}

double pd_span_s(struct bt_plot *const *p, size_t n, uint64_t width,
		 uint32_t used)
{
	uint64_t m = (uint64_t)used * width;

	for (size_t i = 0; i < n; i++)
		if (p[i]->first != UINT64_MAX && p[i]->last - p[i]->first > m)
			m = p[i]->last - p[i]->first;
	return m ? (double)m / 1e9 : 1;
}

uint32_t pd_max_used(struct bt_plot *const *p, size_t n)
{
	uint32_t u = 1;

	for (size_t i = 0; i < n; i++)
		if (p[i]->bins.used > u)
			u = p[i]->bins.used;
	return u;
}

void pd_col_range(char *buf, size_t len, uint32_t c, uint64_t width)
{
	double step = (double)width / 1e9;
	int dec = pd_sec_decimals(step) + 1;
	char a[32], b[32];

	snprintf(buf, len, "%.28s-%.28s s", pd_num(a, c * step, dec),
		 pd_num(b, (c + 1) * step, dec));
}

int bt_plot_render(struct bt_plot *const *p, size_t n, FILE *f)
{
	int all_msg = 1;

	if (!p || !n || !f)
		return -EINVAL;
	for (size_t i = 1; i < n; i++)
		if (p[i]->o.kind != p[0]->o.kind ||
		    p[i]->o.metric != p[0]->o.metric)
			return -EINVAL;
	/* Slice waits from one source on every side: messages only if all have them. */
	for (size_t i = 0; i < n; i++)
		all_msg &= p[i]->has_msg;
	for (size_t i = 0; i < n; i++)
		p[i]->use_msg = all_msg;
	switch (p[0]->o.kind) {
	case BT_PLOT_HEATMAP: return pd_render_heatmap(p, n, f);
	case BT_PLOT_OFFSET: return pd_render_offset(p, n, f);
	case BT_PLOT_IOPS:
	case BT_PLOT_DEPTH: return pd_render_lines(p, n, f);
	default: return pd_render_waits(p, n, f);
	}
}
