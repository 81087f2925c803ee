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
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "plot_int.h"

#define WIDTH		1200.0
#define RIGHT		230.0		/* legend */
#define TOP		56.0
#define BOTTOM		56.0
#define GAP		30.0		/* between panels: the panel's label */

static const char style[] =
	"text{font-family:DejaVu Sans,Verdana,sans-serif;font-size:12px;fill:#222}"
	".h{font-size:16px;font-weight:bold}.s{font-size:12px;fill:#555}"
	".p{font-size:13px;font-weight:bold}.e{text-anchor:end}"
	".m{text-anchor:middle}.ax{stroke:#333;stroke-width:1}"
	".g{stroke:#e4e4e4;stroke-width:1}.bg{fill:#f7f7f7}"
	".hv{fill:#000;fill-opacity:0}.hv:hover{fill-opacity:0.08}"
	".ln{fill:none;stroke-width:1.6}";

static const char *const op_names[BT_PLOT_OPS] = {
	"reads", "writes", "discards", "flushes", "other",
};

/* A panel: its area in user units and the data range it shows. */
struct frame {
	double x, y, w, h;
	double xmax;		/* s */
};

/* A growing string for long attributes (a line's points). */
struct sbuf {
	char *p;
	size_t len, cap;
	int nomem;
};

static void sb_add(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sb_add(struct sbuf *b, const char *fmt, ...)
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

static const char *num(char *buf, double v, int dec)
{
	bt_svg_num(buf, 32, v, dec);
	return buf;
}

/*
 * Panels stacked in about 470 px, each at least min high: the height of
 * one, and of the whole picture into *height.
 */
static double panel_height(unsigned panels, double min, double *height)
{
	double n = panels ? panels : 1, ph = 470.0 / n;

	if (ph < min)
		ph = min;
	*height = TOP + n * (ph + GAP) + BOTTOM;
	return ph;
}

/* v scaled by step into the unit that suits it, 3 significant digits. */
static const char *fmt_scaled(char *buf, double v, double step,
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

static const char *fmt_dur(char *buf, double ns)
{
	static const char *const unit[] = { "ns", "\xc2\xb5s", "ms", "s" };

	return fmt_scaled(buf, ns, 1000, unit, 4);
}

static const char *fmt_bytes(char *buf, double b)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };

	return fmt_scaled(buf, b, 1024, unit, 5);
}

/* Seconds for tick labels and hover text: enough digits for the step. */
static int sec_decimals(double step)
{
	int d = 0;

	while (d < 6 && step < 0.999) {
		step *= 10;
		d++;
	}
	return d;
}

static void text_at(struct bt_svg *s, double x, double y, const char *cls,
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

static void line(struct bt_svg *s, double x1, double y1, double x2,
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

static void rect(struct bt_svg *s, double x, double y, double w, double h,
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

static double fx(const struct frame *f, double sec)
{
	return f->x + (f->xmax > 0 ? sec / f->xmax * f->w : 0);
}

/* The time axis under a panel, grid lines across it, labels if asked. */
static void x_axis(struct bt_svg *s, const struct frame *f, int labels)
{
	double step = bt_plot_tick_step(f->xmax, 10);
	int dec = sec_decimals(step);
	char b[32];

	for (double t = 0; t <= f->xmax * 1.0000001; t += step) {
		double x = fx(f, t);

		line(s, x, f->y, x, f->y + f->h, "g");
		line(s, x, f->y + f->h, x, f->y + f->h + 4, "ax");
		if (labels)
			text_at(s, x, f->y + f->h + 17, "m", num(b, t, dec));
	}
	line(s, f->x, f->y + f->h, f->x + f->w, f->y + f->h, "ax");
	line(s, f->x, f->y, f->x, f->y + f->h, "ax");
	if (labels)
		text_at(s, f->x + f->w / 2, f->y + f->h + 36, "m",
			"time since the trace's first event (s)");
}

/* A linear value axis from 0 to the returned top (a whole number of ticks). */
static double y_axis(struct bt_svg *s, const struct frame *f, double max,
		     const char *unit)
{
	double step = bt_plot_tick_step(max > 0 ? max : 1, 5), top;
	int dec = sec_decimals(step);
	char b[32];

	top = step;
	while (top < max * 0.9999999)
		top += step;
	for (double v = 0; v <= top * 1.0000001; v += step) {
		double y = f->y + f->h - v / top * f->h;

		if (v > 0)
			line(s, f->x, y, f->x + f->w, y, "g");
		line(s, f->x - 4, y, f->x, y, "ax");
		text_at(s, f->x - 7, y + 4, "e", num(b, v, dec));
	}
	bt_svg_open(s, "text");
	bt_svg_attr(s, "class", "m");
	{
		char tr[96], xb[32], yb[32];

		snprintf(tr, sizeof(tr), "translate(%s %s) rotate(-90)",
			 num(xb, f->x - 52, 1), num(yb, f->y + f->h / 2, 1));
		bt_svg_attr(s, "transform", tr);
	}
	bt_svg_text(s, unit);
	bt_svg_close(s, "text");
	return top;
}

static void heading(struct bt_svg *s, const char *title, const char *sub)
{
	text_at(s, 16, 24, "h", title);
	text_at(s, 16, 44, "s", sub);
}

/* Bring every plot's grid to the widest column width among them. */
static uint64_t common_width(struct bt_plot *const *p, size_t n)
{
	uint64_t w = 0;

	for (size_t i = 0; i < n; i++)
		if (p[i]->bins.width > w)
			w = p[i]->bins.width;
	for (size_t i = 0; i < n; i++)
		bt_bins_coarsen(&p[i]->bins, w);
	return w;
}

static double span_s(struct bt_plot *const *p, size_t n, uint64_t width,
		     uint32_t used)
{
	uint64_t m = (uint64_t)used * width;

	for (size_t i = 0; i < n; i++)
		if (p[i]->first != UINT64_MAX && p[i]->last - p[i]->first > m)
			m = p[i]->last - p[i]->first;
	return m ? (double)m / 1e9 : 1;
}

static uint32_t max_used(struct bt_plot *const *p, size_t n)
{
	uint32_t u = 1;

	for (size_t i = 0; i < n; i++)
		if (p[i]->bins.used > u)
			u = p[i]->bins.used;
	return u;
}

static void col_range(char *buf, size_t len, uint32_t c, uint64_t width)
{
	double step = (double)width / 1e9;
	int dec = sec_decimals(step) + 1;
	char a[32], b[32];

	snprintf(buf, len, "%.28s-%.28s s", num(a, c * step, dec),
		 num(b, (c + 1) * step, dec));
}

/* ----------------------------------------------------------- heat map */

static const char *const metric_names[] = {
	"q2c (queue to completion)", "d2c (driver to completion)",
	"q2d (queue to dispatch)", "fdatasync episodes (open to close)",
	"slice waits (backlog to service)",
};

/* The grid rows (series) a heat map panel adds up. */
struct heat_panel {
	struct bt_plot *p;
	unsigned mask;		/* bit k: series k */
	const char *what;	/* op name or "" */
};

static uint64_t heat_cell(const struct heat_panel *hp, uint32_t c, unsigned k)
{
	uint64_t v = 0;

	if (c >= hp->p->bins.used)
		return 0;
	for (unsigned sr = 0; sr < BT_PLOT_OPS; sr++)
		if (hp->mask >> sr & 1)
			v += bt_bins_at(&hp->p->bins, c, sr * BT_PLOT_LAT_ROWS + k);
	return v;
}

static unsigned heat_series_mask(const struct bt_plot *p)
{
	if (p->o.metric == BT_PLOT_FSYNC)
		return 1;
	if (p->o.metric == BT_PLOT_SLICE)
		return p->use_msg ? 1 : 2;
	return (1u << BT_PLOT_OPS) - 1;
}

static void legend_gradient(struct bt_svg *s, double x, double y, double h,
			    uint64_t cmax, const char *unit)
{
	char c[8], b[48];
	double lmax = bt_plot_log2((double)cmax);

	bt_svg_raw(s, "<defs><linearGradient id=\"vir\" x1=\"0\" y1=\"1\" "
		   "x2=\"0\" y2=\"0\">");
	for (int i = 0; i <= 10; i++) {
		bt_svg_open(s, "stop");
		bt_svg_attr_num(s, "offset", i / 10.0, 1);
		bt_svg_attr(s, "stop-color", bt_svg_viridis(i / 10.0, c));
		bt_svg_close(s, "stop");
	}
	bt_svg_raw(s, "</linearGradient></defs>\n");
	text_at(s, x, y - 22, NULL, unit);
	snprintf(b, sizeof(b), "colour: %s per cell, log scale, 1 to %" PRIu64,
		 unit, cmax);
	rect(s, x, y, 18, h, "url(#vir)", 1, NULL, b);
	for (uint64_t v = 1; v <= cmax; v *= 10) {
		double yy = y + h - (lmax > 0 ? bt_plot_log2((double)v) / lmax : 1) * h;

		line(s, x + 18, yy, x + 23, yy, "ax");
		snprintf(b, sizeof(b), "%" PRIu64, v);
		/* Not under the top's label. */
		if (yy > y + 14 || cmax == 1)
			text_at(s, x + 26, yy + 4, NULL, b);
		if (v > UINT64_MAX / 10)
			break;
	}
	if (cmax > 1) {
		/* The top of the scale, above the bar when a power of ten is near it. */
		snprintf(b, sizeof(b), "%" PRIu64, cmax);
		line(s, x + 18, y, x + 23, y, "ax");
		text_at(s, x + 26, y - 6, NULL, b);
	}
}

static int render_heatmap(struct bt_plot *const *p, size_t n, FILE *f)
{
	struct heat_panel hp[64];
	size_t np = 0;
	uint64_t width = common_width(p, n), cmax = 0, total = 0;
	uint32_t used = max_used(p, n);
	unsigned kmin = BT_PLOT_LAT_ROWS, kmax = 0;
	const char *unit;
	struct bt_svg *s;
	struct frame fr;
	double ph, height, ch;
	char b[512], c8[8], d1[40], d2[40], cr[64];
	int rc;

	for (size_t i = 0; i < n; i++) {
		unsigned mask = heat_series_mask(p[i]);

		if (!p[i]->o.per_op || p[i]->o.metric >= BT_PLOT_FSYNC) {
			hp[np++] = (struct heat_panel){ p[i], mask, "" };
			continue;
		}
		for (unsigned op = 0; op < BT_PLOT_OPS && np < 64; op++) {
			struct heat_panel one = { p[i], 1u << op, op_names[op] };
			uint64_t any = 0;

			for (uint32_t cc = 0; cc < p[i]->bins.used && !any; cc++)
				for (unsigned k = 0; k < BT_PLOT_LAT_ROWS; k++)
					any += heat_cell(&one, cc, k);
			if (any)
				hp[np++] = one;
		}
		if (np == 64)
			break;
	}
	for (size_t i = 0; i < np; i++)
		for (uint32_t cc = 0; cc < used; cc++)
			for (unsigned k = 0; k < BT_PLOT_LAT_ROWS; k++) {
				uint64_t v = heat_cell(&hp[i], cc, k);

				if (!v)
					continue;
				total += v;
				if (v > cmax)
					cmax = v;
				if (k < kmin)
					kmin = k;
				if (k > kmax)
					kmax = k;
			}
	if (kmin > kmax)
		kmin = kmax = 0;
	/* Room around the data: one bucket each side. */
	kmin = kmin ? kmin - 1 : 0;
	if (kmax + 1 < BT_PLOT_LAT_ROWS)
		kmax++;
	ph = panel_height((unsigned)np, 140, &height);
	rc = bt_svg_new(&s, f, WIDTH, height, style);
	if (rc < 0)
		return rc;
	unit = p[0]->o.metric == BT_PLOT_FSYNC ? "episodes" :
	       p[0]->o.metric == BT_PLOT_SLICE ? "waits" : "requests";
	snprintf(b, sizeof(b), "Latency heat map: %s", metric_names[p[0]->o.metric]);
	{
		char sub[256];

		snprintf(sub, sizeof(sub), "x: time, column %s; y: latency, log2 "
			 "buckets; colour: %s per cell (%" PRIu64 " in all)",
			 fmt_dur(d1, (double)width), unit, total);
		heading(s, b, sub);
	}
	fr = (struct frame){ 90, 0, WIDTH - 90 - RIGHT, ph - 0,
			     span_s(p, n, width, used) };
	ch = ph / (double)(kmax - kmin + 1);
	for (size_t i = 0; i < np; i++) {
		struct heat_panel *h = &hp[i];
		unsigned lstep = 1;

		fr.y = TOP + GAP + (double)i * (ph + GAP);
		snprintf(b, sizeof(b), "%s%s%s", h->p->label, *h->what ? ": " : "",
			 h->what);
		if (h->p->o.metric == BT_PLOT_SLICE)
			snprintf(b + strlen(b), sizeof(b) - strlen(b), " (%s)",
				 h->p->use_msg ? "scheduler messages" : "events only");
		text_at(s, fr.x, fr.y - 8, "p", b);
		rect(s, fr.x, fr.y, fr.w, fr.h, "#ffffff", 1, NULL, NULL);
		x_axis(s, &fr, i + 1 == np);
		/* Latency labels at bucket edges, 14 px apart at least. */
		while (ch * lstep < 14)
			lstep *= 2;
		for (unsigned k = kmin; k <= kmax + 1; k++) {
			double y = fr.y + fr.h - (k - kmin) * ch;

			if ((k - kmin) % lstep)
				continue;
			line(s, fr.x - 4, y, fr.x, y, "ax");
			text_at(s, fr.x - 7, y + 4, "e",
				fmt_dur(d1, 1000.0 * (double)(1ull << k)));
		}
		{
			char tr[96], yb[32];

			snprintf(tr, sizeof(tr), "translate(22 %s) rotate(-90)",
				 num(yb, fr.y + fr.h / 2, 1));
			bt_svg_open(s, "text");
			bt_svg_attr(s, "class", "m");
			bt_svg_attr(s, "transform", tr);
			bt_svg_text(s, "latency (log2 buckets)");
			bt_svg_close(s, "text");
		}
		bt_svg_open(s, "g");
		bt_svg_attr(s, "shape-rendering", "crispEdges");
		for (uint32_t cc = 0; cc < used; cc++) {
			double x0 = fx(&fr, (double)cc * (double)width / 1e9);
			double x1 = fx(&fr, (double)(cc + 1) * (double)width / 1e9);

			for (unsigned k = kmin; k <= kmax; k++) {
				uint64_t v = heat_cell(h, cc, k);
				double t;

				if (!v)
					continue;
				t = cmax > 1 ? bt_plot_log2((double)v) /
					       bt_plot_log2((double)cmax) : 1;
				col_range(cr, sizeof(cr), cc, width);
				/* The panel's heading names the trace and op. */
				snprintf(b, sizeof(b), "%s, %s-%s: %" PRIu64 " %s", cr,
					 fmt_dur(d1, 1000.0 * (double)(1ull << k)),
					 fmt_dur(d2, 1000.0 * (double)(2ull << k)),
					 v, unit);
				rect(s, x0, fr.y + fr.h - (k - kmin + 1) * ch, x1 - x0,
				     ch, bt_svg_viridis(t, c8), 1, NULL, b);
			}
		}
		bt_svg_close(s, "g");
	}
	if (total)
		legend_gradient(s, WIDTH - RIGHT + 30, TOP + GAP + 20, 240, cmax,
				unit);
	else
		text_at(s, WIDTH - RIGHT + 30, TOP + GAP + 20, NULL,
			"no samples");
	return bt_svg_finish(s);
}

/* -------------------------------------------------------------- offset */

struct comm_rank {
	char comm[17];
	uint64_t bytes;
};

static int cmp_rank(const void *a, const void *b)
{
	const struct comm_rank *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return strcmp(x->comm, y->comm);
}

/* Colour index of a comm among the top ones, or -1 ("others"). */
static int rank_of(const struct comm_rank *r, unsigned top, const char *comm)
{
	for (unsigned i = 0; i < top; i++)
		if (!strcmp(r[i].comm, comm))
			return (int)i;
	return -1;
}

static int render_offset(struct bt_plot *const *p, size_t n, FILE *f)
{
	struct comm_rank rk[64 * (BT_PLOT_GROUPS + 1)];
	unsigned nrk = 0, top = p[0]->o.top, panels = 0;
	uint64_t cw = 0, rw = 0, cmax = 0, maxsec = 0, dirs[2] = { 0, 0 };
	uint32_t used = 1, rused = 1;
	struct bt_svg *s;
	struct frame fr;
	double ph, height, rowh;
	char b[512], d1[40], d2[40], cr[64], c3[32];
	int rc;

	if (n > 64)
		n = 64;
	for (size_t i = 0; i < n; i++)
		for (unsigned g = 0; g <= BT_PLOT_GROUPS; g++) {
			struct bt_plot_group *gr = &p[i]->groups[g];
			unsigned j;

			if (!gr->grid[0].cell)
				continue;
			for (int k = 0; k < 2; k++) {
				if (gr->grid[k].width > cw)
					cw = gr->grid[k].width;
				if (gr->grid[k].rwidth > rw)
					rw = gr->grid[k].rwidth;
				dirs[k] += gr->ios[k];
			}
			if (g == BT_PLOT_GROUPS)
				continue;
			for (j = 0; j < nrk; j++)
				if (!strcmp(rk[j].comm, gr->comm))
					break;
			if (j == nrk) {
				memcpy(rk[nrk].comm, gr->comm, sizeof(rk[0].comm));
				rk[nrk++].bytes = 0;
			}
			rk[j].bytes += gr->bytes[0] + gr->bytes[1];
		}
	qsort(rk, nrk, sizeof(rk[0]), cmp_rank);
	if (top > nrk)
		top = nrk;
	if (top > 7)
		top = 7;	/* Okabe-Ito has eight colours; grey is others' */
	for (size_t i = 0; i < n; i++) {
		if (p[i]->max_sector > maxsec)
			maxsec = p[i]->max_sector;
		for (unsigned g = 0; g <= BT_PLOT_GROUPS; g++)
			for (int k = 0; k < 2; k++) {
				struct bt_bins *gb = &p[i]->groups[g].grid[k];

				if (!gb->cell)
					continue;
				bt_bins_coarsen(gb, cw);
				bt_bins_coarsen_rows(gb, rw);
				if (gb->used > used)
					used = gb->used;
				if (gb->rused > rused)
					rused = gb->rused;
			}
	}
	/* Densest cell, all groups of one trace and direction together. */
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 2; k++)
			for (uint32_t c = 0; c < used; c++)
				for (uint32_t r = 0; r < rused; r++) {
					uint64_t v = 0;

					for (unsigned g = 0; g <= BT_PLOT_GROUPS; g++) {
						struct bt_bins *gb = &p[i]->groups[g].grid[k];

						if (gb->cell)
							v += bt_bins_at(gb, c, r);
					}
					if (v > cmax)
						cmax = v;
				}
	for (int k = 0; k < 2; k++)
		panels += dirs[k] ? 1 : 0;
	panels *= (unsigned)n;
	ph = panel_height(panels, 150, &height);
	rc = bt_svg_new(&s, f, WIDTH, height, style);
	if (rc < 0)
		return rc;
	snprintf(b, sizeof(b), "column %s, row %s; colour: the process group with "
		 "the most I/O in the cell; opacity: I/Os in the cell (log)",
		 fmt_dur(d1, (double)cw), fmt_bytes(d2, (double)rw * 512));
	heading(s, "Offset over time: where on the disk each process group "
		"reads and writes", panels ? b : "no read or write with data");
	if (!panels)
		text_at(s, 90, TOP + GAP + 20, NULL, "no read or write with data");
	fr = (struct frame){ 90, 0, WIDTH - 90 - RIGHT, ph,
			     span_s(p, 0, cw, used) };
	rowh = ph / (double)rused;
	unsigned pi = 0;
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 2; k++) {
			double ymax = (double)rused * (double)rw * 512 / 1073741824.0;

			if (!dirs[k])
				continue;
			fr.y = TOP + GAP + pi * (ph + GAP);
			pi++;
			snprintf(b, sizeof(b), "%s: %s", p[i]->label, op_names[k]);
			text_at(s, fr.x, fr.y - 8, "p", b);
			rect(s, fr.x, fr.y, fr.w, fr.h, "#ffffff", 1, NULL, NULL);
			x_axis(s, &fr, pi == panels);
			y_axis(s, &fr, ymax, "offset (GiB)");
			bt_svg_open(s, "g");
			bt_svg_attr(s, "shape-rendering", "crispEdges");
			for (uint32_t c = 0; c < used; c++) {
				double x0 = fx(&fr, (double)c * (double)cw / 1e9);
				double x1 = fx(&fr, (double)(c + 1) * (double)cw / 1e9);

				for (uint32_t r = 0; r < rused; r++) {
					uint64_t v = 0, best = 0, per[8] = { 0 };
					int bi = -1, len;

					for (unsigned g = 0; g <= BT_PLOT_GROUPS; g++) {
						struct bt_bins *gb = &p[i]->groups[g].grid[k];
						uint64_t x;
						int ri;

						if (!gb->cell || !(x = bt_bins_at(gb, c, r)))
							continue;
						v += x;
						ri = g == BT_PLOT_GROUPS ? -1 :
						     rank_of(rk, top, p[i]->groups[g].comm);
						per[ri < 0 ? 7 : ri] += x;
					}
					if (!v)
						continue;
					for (int g = 0; g < 8; g++)
						if (per[g] > best) {
							best = per[g];
							bi = g;
						}
					col_range(cr, sizeof(cr), c, cw);
					len = snprintf(b, sizeof(b), "%s, %s-%s: %" PRIu64
						       " I/Os", cr,
						       fmt_bytes(d1, (double)r * rw * 512),
						       fmt_bytes(d2, (double)(r + 1) * rw * 512), v);
					for (int g = 0; g < 8 && len < 400; g++)
						if (per[g])
							len += snprintf(b + len, sizeof(b) - (size_t)len,
									"; %s %" PRIu64,
									g == 7 ? "others" : rk[g].comm,
									per[g]);
					double t = cmax > 1 ? bt_plot_log2((double)v) /
							      bt_plot_log2((double)cmax) : 1;
					rect(s, x0, fr.y + fr.h - (r + 1) * rowh, x1 - x0,
					     rowh, bi == 7 ? "#999999" : bt_svg_category((unsigned)bi),
					     0.3 + 0.7 * t, NULL, b);
				}
			}
			bt_svg_close(s, "g");
		}
	/* Legend: the groups, I/Os and bytes over all traces. */
	double ly = TOP + GAP + 10, lx = WIDTH - RIGHT + 20;
	text_at(s, lx, ly, "p", "process group (comm)");
	for (unsigned g = 0; g <= top; g++) {
		uint64_t bytes = 0;

		if (g == top) {
			for (unsigned j = top; j < nrk; j++)
				bytes += rk[j].bytes;
			for (size_t i = 0; i < n; i++)
				bytes += p[i]->groups[BT_PLOT_GROUPS].bytes[0] +
					 p[i]->groups[BT_PLOT_GROUPS].bytes[1];
			if (!bytes)
				break;
		} else {
			bytes = rk[g].bytes;
		}
		ly += 20;
		snprintf(b, sizeof(b), "%.16s: %s read and written", g == top ?
			 "others" : rk[g].comm, fmt_bytes(d1, (double)bytes));
		rect(s, lx, ly - 11, 14, 14, g == top ? "#999999" :
		     bt_svg_category(g), 1, NULL, b);
		snprintf(b, sizeof(b), "%.16s  %s", g == top ? "others" : rk[g].comm,
			 fmt_bytes(d1, (double)bytes));
		text_at(s, lx + 20, ly, NULL, b);
	}
	snprintf(c3, sizeof(c3), "%" PRIu64, cmax);
	text_at(s, lx, ly + 28, "s", "densest cell:");
	text_at(s, lx, ly + 44, "s", strcat(c3, " I/Os"));
	return bt_svg_finish(s);
}

/* ------------------------------------------------------- iops and depth */

static const char *const dashes[] = { NULL, "7 4", "2 3", "10 3 2 3" };

static const char *op_colour(unsigned op)
{
	static const char *const c[4] = { "#0072b2", "#d55e00", "#009e73",
					  "#cc79a7" };
	return c[op & 3];
}

/* A series: row of plot p, divided by div per column, in colour/dash. */
struct series {
	struct bt_plot *p;
	unsigned row;
	double div;		/* value = cell / div */
	const char *colour, *dash;
	char name[96];
};

static double ser_val(const struct series *se, uint32_t c)
{
	return c < se->p->bins.used ?
	       (double)bt_bins_at(&se->p->bins, c, se->row) / se->div : 0;
}

static int draw_lines(struct bt_svg *s, const struct frame *fr,
		      const struct series *se, size_t nse, uint64_t width,
		      uint32_t used, const char *unit, int labels,
		      const char *const *vunit, int dec)
{
	double max = 0, top, colw;
	struct sbuf sb = { 0 };
	char b[1024], n1[32], cr[64];

	for (size_t i = 0; i < nse; i++)
		for (uint32_t c = 0; c < se[i].p->bins.used; c++)
			if (ser_val(&se[i], c) > max)
				max = ser_val(&se[i], c);
	rect(s, fr->x, fr->y, fr->w, fr->h, "#ffffff", 1, NULL, NULL);
	x_axis(s, fr, labels);
	top = y_axis(s, fr, max, unit);
	colw = (double)width / 1e9;
	for (size_t i = 0; i < nse; i++) {
		sb.len = 0;
		for (uint32_t c = 0; c < se[i].p->bins.used; c++) {
			double y = fr->y + fr->h - ser_val(&se[i], c) / top * fr->h;

			sb_add(&sb, "%s%s,", c ? " " : "", num(n1, fx(fr, c * colw), 1));
			sb_add(&sb, "%s ", num(n1, y, 1));
			sb_add(&sb, "%s,", num(n1, fx(fr, (c + 1) * colw), 1));
			sb_add(&sb, "%s", num(n1, y, 1));
		}
		if (sb.nomem) {
			free(sb.p);
			return -ENOMEM;
		}
		if (!sb.len)
			continue;
		bt_svg_open(s, "polyline");
		bt_svg_attr(s, "class", "ln");
		bt_svg_attr(s, "stroke", se[i].colour);
		if (se[i].dash)
			bt_svg_attr(s, "stroke-dasharray", se[i].dash);
		bt_svg_attr(s, "points", sb.p);
		bt_svg_title(s, se[i].name);
		bt_svg_close(s, "polyline");
	}
	free(sb.p);
	/* Hover columns: every series' value in the column. */
	for (uint32_t c = 0; c < used; c++) {
		int len;

		col_range(cr, sizeof(cr), c, width);
		len = snprintf(b, sizeof(b), "%s", cr);
		for (size_t i = 0; i < nse && len < 900; i++)
			if (c < se[i].p->bins.used)
				len += snprintf(b + len, sizeof(b) - (size_t)len,
						"\n%s: %s %s", se[i].name,
						num(n1, ser_val(&se[i], c), dec),
						vunit[0]);
		rect(s, fx(fr, c * colw), fr->y, fx(fr, (c + 1) * colw) -
		     fx(fr, c * colw), fr->h, NULL, 1, "hv", b);
	}
	return 0;
}

static void legend_lines(struct bt_svg *s, const struct series *se,
			 size_t nse, double x, double y)
{
	for (size_t i = 0; i < nse; i++, y += 20) {
		bt_svg_open(s, "line");
		bt_svg_attr_num(s, "x1", x, 1);
		bt_svg_attr_num(s, "y1", y - 4, 1);
		bt_svg_attr_num(s, "x2", x + 30, 1);
		bt_svg_attr_num(s, "y2", y - 4, 1);
		bt_svg_attr(s, "class", "ln");
		bt_svg_attr(s, "stroke", se[i].colour);
		if (se[i].dash)
			bt_svg_attr(s, "stroke-dasharray", se[i].dash);
		bt_svg_close(s, "line");
		text_at(s, x + 36, y, NULL, se[i].name);
	}
}

static int render_lines(struct bt_plot *const *p, size_t n, FILE *f)
{
	struct series se[2][64];
	size_t nse[2] = { 0, 0 };
	uint64_t width = common_width(p, n);
	uint32_t used = max_used(p, n);
	double ws = (double)width / 1e9, ph = 240, height;
	int iops = p[0]->o.kind == BT_PLOT_IOPS, rc;
	struct bt_svg *s;
	struct frame fr;
	char sub[256], d1[40];

	if (n > 16)
		n = 16;
	for (size_t i = 0; i < n; i++) {
		for (unsigned k = 0; k < (iops ? 4u : 2u); k++) {
			uint64_t any = 0;

			for (uint32_t c = 0; c < p[i]->bins.used; c++)
				any += bt_bins_at(&p[i]->bins, c, iops ? k * 2 : k);
			if (!any && iops)
				continue;
			for (int pn = 0; pn < 2; pn++) {
				struct series *x;

				if (!iops && pn != (int)k)
					continue;
				x = &se[pn][nse[pn]++];
				x->p = p[i];
				x->row = iops ? k * 2 + (unsigned)pn : k;
				x->div = iops ? (pn ? ws * 1e6 : ws) : (double)width;
				x->colour = iops ? op_colour(k) : bt_svg_category((unsigned)i);
				x->dash = iops ? dashes[i % 4] : NULL;
				snprintf(x->name, sizeof(x->name), "%s%s%s", p[i]->label,
					 iops ? " " : "", iops ? op_names[k] : "");
			}
		}
	}
	height = TOP + 2 * (ph + GAP) + BOTTOM;
	rc = bt_svg_new(&s, f, WIDTH, height, style);
	if (rc < 0)
		return rc;
	snprintf(sub, sizeof(sub), "column %s; %s", fmt_dur(d1, (double)width),
		 iops ? "requests and bytes completed per second in each column" :
		 "mean number of requests in each stage over each column");
	heading(s, iops ? "IOPS and throughput over time, per op" :
		"Queue depth over time: requests in the scheduler and in the driver",
		sub);
	fr = (struct frame){ 90, TOP + GAP, WIDTH - 90 - RIGHT, ph,
			     span_s(p, n, width, used) };
	for (int pn = 0; pn < 2; pn++) {
		static const char *const vu_iops[] = { "IOPS" }, *const vu_mb[] = { "MB/s" },
			*const vu_d[] = { "in flight" };
		static const char *const titles[2][2] = {
			{ "requests completed per second (IOPS)", "MB/s (10^6 bytes)" },
			{ "in the scheduler (I to D)", "in the driver (D to C)" },
		};

		fr.y = TOP + GAP + pn * (ph + GAP);
		text_at(s, fr.x, fr.y - 8, "p", titles[!iops][pn]);
		rc = draw_lines(s, &fr, se[pn], nse[pn], width, used,
				iops ? (pn ? "MB/s" : "IOPS") : "requests",
				pn == 1, iops ? (pn ? vu_mb : vu_iops) : vu_d,
				iops ? (pn ? 2 : 0) : 2);
		if (rc < 0) {
			bt_svg_finish(s);
			return rc;
		}
	}
	text_at(s, WIDTH - RIGHT + 20, TOP + GAP + 10, "p",
		iops ? "series" : "traces");
	legend_lines(s, se[0], nse[0], WIDTH - RIGHT + 20, TOP + GAP + 32);
	return bt_svg_finish(s);
}

/* --------------------------------------------------------------- waits */

#define LANE_H		26.0

struct lane_pick {
	unsigned idx;
	uint64_t total;
};

static int cmp_pick(const void *a, const void *b)
{
	const struct lane_pick *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static unsigned slice_row(const struct bt_plot *p)
{
	return p->use_msg ? BT_LANE_SLICE_MSG : BT_LANE_SLICE_EV;
}

/* The lanes drawn for p, most waiting first; returns how many. */
static unsigned pick_lanes(const struct bt_plot *p, struct lane_pick *pk)
{
	unsigned n = 0, sr = slice_row(p);

	for (unsigned i = 0; i <= BT_PLOT_LANES; i++) {
		const struct bt_plot_lane *l = &p->lanes[i];
		uint64_t t = l->total[BT_LANE_FSYNC] + l->total[sr];

		if (i == BT_PLOT_LANES ? !l->comm[0] : i >= p->nlanes)
			continue;
		if (t)
			pk[n++] = (struct lane_pick){ i, t };
	}
	qsort(pk, n, sizeof(*pk), cmp_pick);
	return n < p->o.top ? n : p->o.top;
}

static void lane_name(const struct bt_plot *p, unsigned idx, char *buf,
		      size_t len)
{
	const struct bt_plot_lane *l = &p->lanes[idx];

	if (idx == BT_PLOT_LANES)
		snprintf(buf, len, "(other processes)");
	else
		snprintf(buf, len, "%s %" PRIu32, l->comm[0] ? l->comm : "-",
			 l->pid);
}

/* A lane's column is full when covered 98% or more: drawn as one with its full neighbours. */
static int full(uint64_t v, uint64_t width)
{
	return v >= width - width / 50;
}

/*
 * One bar of a lane row: the length of a partly covered column is the time
 * covered (at least a sliver, so that a 5 us wait in a 30 ms column shows
 * without looking like 30 ms), against the full neighbour when there is
 * one, so that an episode runs on unbroken; full columns in a row are one
 * bar.
 */
static void lane_runs(struct bt_svg *s, const struct frame *fr,
		      const struct bt_plot *p, unsigned idx, unsigned row,
		      double y, double h, const char *colour,
		      const char *what, uint64_t width)
{
	const struct bt_bins *b = &p->bins;
	uint32_t r = idx * BT_LANE_ROWS + row, c = 0, start;
	double colw = (double)width / 1e9, x0, x1, len;
	char name[64], t[400], cr1[64], cr2[64], d1[40];

	lane_name(p, idx, name, sizeof(name));
	while (c < b->used) {
		uint64_t v = bt_bins_at(b, c, r), sum = 0;

		if (!v) {
			c++;
			continue;
		}
		start = c;
		if (full(v, width)) {
			while (c < b->used && full(bt_bins_at(b, c, r), width))
				sum += bt_bins_at(b, c++, r);
			x0 = fx(fr, start * colw);
			x1 = fx(fr, c * colw);
		} else {
			sum = v;
			c++;
			x0 = fx(fr, start * colw);
			x1 = fx(fr, c * colw);
			len = (x1 - x0) * (double)v / (double)width;
			if (len < 0.8)
				len = 0.8;
			if (c < b->used && full(bt_bins_at(b, c, r), width))
				x0 = x1 - len;
			else
				x1 = x0 + len;
		}
		col_range(cr1, sizeof(cr1), start, width);
		col_range(cr2, sizeof(cr2), c - 1, width);
		*strchr(cr1, '-') = '\0';
		snprintf(t, sizeof(t), "%s: %s, %s-%s: %s (%u%%)",
			 name, what, cr1, strchr(cr2, '-') + 1,
			 fmt_dur(d1, (double)sum), (unsigned)(sum >= (c - start) * width ? 100 :
			 sum * 100 / ((c - start) * width)));
		rect(s, x0, y, x1 - x0, h, colour, 1, NULL, t);
	}
}

static int render_waits(struct bt_plot *const *p, size_t n, FILE *f)
{
	struct lane_pick pk[8][BT_PLOT_LANES + 1];
	unsigned nl[8];
	uint64_t width = common_width(p, n);
	uint32_t used = max_used(p, n);
	double height, y;
	struct bt_svg *s;
	struct frame fr;
	char b[512], name[64], d1[40], d2[40], d3[40], d4[40];
	int rc;

	if (n > 8)
		n = 8;
	height = TOP + BOTTOM;
	for (size_t i = 0; i < n; i++) {
		nl[i] = pick_lanes(p[i], pk[i]);
		height += GAP + 8 + (nl[i] ? nl[i] : 1) * LANE_H;
	}
	if (height < TOP + GAP + 120)
		height = TOP + GAP + 120;	/* the legend */
	rc = bt_svg_new(&s, f, WIDTH, height, style);
	if (rc < 0)
		return rc;
	snprintf(b, sizeof(b), "one lane per process (the %u that waited longest "
		 "per trace); column %s; a bar's length within a column: the "
		 "time covered",
		 p[0]->o.top, fmt_dur(d1, (double)width));
	heading(s, "Who waited while whom was served: fdatasync episodes and "
		"slice waits", b);
	fr = (struct frame){ 180, 0, WIDTH - 180 - RIGHT, 0,
			     span_s(p, n, width, used) };
	y = TOP + GAP;
	for (size_t i = 0; i < n; i++) {
		unsigned sr = slice_row(p[i]);
		const char *sw = "slice wait";

		snprintf(b, sizeof(b), "%s: slice waits from %s", p[i]->label,
			 p[i]->use_msg ? "scheduler messages" : "events only");
		text_at(s, fr.x, y - 8, "p", b);
		fr.y = y;
		fr.h = (nl[i] ? nl[i] : 1) * LANE_H;
		rect(s, fr.x, fr.y, fr.w, fr.h, "#ffffff", 1, NULL, NULL);
		x_axis(s, &fr, i + 1 == n);
		if (!nl[i])
			text_at(s, fr.x + 10, y + 17, NULL,
				"no fdatasync episode and no slice wait");
		for (unsigned j = 0; j < nl[i]; j++) {
			unsigned idx = pk[i][j].idx;
			const struct bt_plot_lane *l = &p[i]->lanes[idx];
			double ly = y + j * LANE_H;

			if (j % 2)
				rect(s, fr.x, ly, fr.w, LANE_H, NULL, 1, "bg", NULL);
			lane_name(p[i], idx, name, sizeof(name));
			snprintf(b, sizeof(b), "%s: %" PRIu64 " fdatasync episodes, "
				 "%s in all, longest %s; %" PRIu64 " %ss, %s in all, "
				 "longest %s; %" PRIu64 " requests completed", name,
				 l->count[BT_LANE_FSYNC],
				 fmt_dur(d1, (double)l->total[BT_LANE_FSYNC]),
				 fmt_dur(d2, (double)l->max[BT_LANE_FSYNC]),
				 l->count[sr], sw, fmt_dur(d3, (double)l->total[sr]),
				 fmt_dur(d4, (double)l->max[sr]),
				 l->count[BT_LANE_SERVED]);
			bt_svg_open(s, "text");
			bt_svg_attr_num(s, "x", fr.x - 7, 1);
			bt_svg_attr_num(s, "y", ly + 17, 1);
			bt_svg_attr(s, "class", "e");
			bt_svg_title(s, b);
			bt_svg_text(s, name);
			bt_svg_close(s, "text");
			lane_runs(s, &fr, p[i], idx, BT_LANE_FSYNC, ly + 2, 9,
				  "#e69f00", "fdatasync episode", width);
			lane_runs(s, &fr, p[i], idx, BT_LANE_SERVED, ly + 12, 3,
				  "#009e73", "requests at the driver", width);
			lane_runs(s, &fr, p[i], idx, sr, ly + 16, 8, "#0072b2", sw,
				  width);
		}
		y += fr.h + GAP + 8;
	}
	{
		static const char *const lg[3][2] = {
			{ "#e69f00", "fdatasync episode" },
			{ "#009e73", "own request at the driver" },
			{ "#0072b2", "slice wait" },
		};
		double lx = WIDTH - RIGHT + 20, ly = TOP + GAP + 10;

		text_at(s, lx, ly, "p", "in each lane");
		for (int k = 0; k < 3; k++) {
			ly += 20;
			rect(s, lx, ly - 10, 14, k == 1 ? 4 : 10, lg[k][0], 1, NULL,
			     lg[k][1]);
			text_at(s, lx + 20, ly, NULL, lg[k][1]);
		}
	}
	return bt_svg_finish(s);
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
	case BT_PLOT_HEATMAP: return render_heatmap(p, n, f);
	case BT_PLOT_OFFSET: return render_offset(p, n, f);
	case BT_PLOT_IOPS:
	case BT_PLOT_DEPTH: return render_lines(p, n, f);
	default: return render_waits(p, n, f);
	}
}
