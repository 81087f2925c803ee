// SPDX-License-Identifier: MIT
/*
 * plot_heatmap.c - btplot -k heatmap: a latency (q2c, d2c, q2d,
 * fdatasync episodes or slice waits) against time, cells coloured by
 * count on one viridis scale for every trace.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "plot_int.h"
#include "plot_draw.h"

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
	pd_text_at(s, x, y - 22, NULL, unit);
	snprintf(b, sizeof(b), "colour: %s per cell, log scale, 1 to %" PRIu64,
		 unit, cmax);
	pd_rect(s, x, y, 18, h, "url(#vir)", 1, NULL, b);
	for (uint64_t v = 1; v <= cmax; v *= 10) {
		double yy = y + h - (lmax > 0 ? bt_plot_log2((double)v) / lmax : 1) * h;

		pd_line(s, x + 18, yy, x + 23, yy, "ax");
		snprintf(b, sizeof(b), "%" PRIu64, v);
		/* Not under the top's label. */
		if (yy > y + 14 || cmax == 1)
			pd_text_at(s, x + 26, yy + 4, NULL, b);
		if (v > UINT64_MAX / 10)
			break;
	}
	if (cmax > 1) {
		/* The top of the scale, above the bar when a power of ten is near it. */
		snprintf(b, sizeof(b), "%" PRIu64, cmax);
		pd_line(s, x + 18, y, x + 23, y, "ax");
		pd_text_at(s, x + 26, y - 6, NULL, b);
	}
}

int pd_render_heatmap(struct bt_plot *const *p, size_t n, FILE *f)
{
	struct heat_panel hp[64];
	size_t np = 0;
	uint64_t width = pd_common_width(p, n), cmax = 0, total = 0;
	uint32_t used = pd_max_used(p, n);
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
			struct heat_panel one = { p[i], 1u << op, pd_op_names[op] };
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
	ph = pd_panel_height((unsigned)np, 140, &height);
	rc = bt_svg_new(&s, f, WIDTH, height, pd_style);
	if (rc < 0)
		return rc;
	unit = p[0]->o.metric == BT_PLOT_FSYNC ? "episodes" :
	       p[0]->o.metric == BT_PLOT_SLICE ? "waits" : "requests";
	snprintf(b, sizeof(b), "Latency heat map: %s", metric_names[p[0]->o.metric]);
	{
		char sub[256];

		snprintf(sub, sizeof(sub), "x: time, column %s; y: latency, log2 "
			 "buckets; colour: %s per cell (%" PRIu64 " in all)",
			 pd_fmt_dur(d1, (double)width), unit, total);
		pd_heading(s, b, sub);
	}
	fr = (struct frame){ 90, 0, WIDTH - 90 - RIGHT, ph - 0,
			     pd_span_s(p, n, width, used) };
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
		pd_text_at(s, fr.x, fr.y - 8, "p", b);
		pd_rect(s, fr.x, fr.y, fr.w, fr.h, "#ffffff", 1, NULL, NULL);
		pd_x_axis(s, &fr, i + 1 == np);
		/* Latency labels at bucket edges, 14 px apart at least. */
		while (ch * lstep < 14)
			lstep *= 2;
		for (unsigned k = kmin; k <= kmax + 1; k++) {
			double y = fr.y + fr.h - (k - kmin) * ch;

			if ((k - kmin) % lstep)
				continue;
			pd_line(s, fr.x - 4, y, fr.x, y, "ax");
			pd_text_at(s, fr.x - 7, y + 4, "e",
				pd_fmt_dur(d1, 1000.0 * (double)(1ull << k)));
		}
		{
			char tr[96], yb[32];

			snprintf(tr, sizeof(tr), "translate(22 %s) rotate(-90)",
				 pd_num(yb, fr.y + fr.h / 2, 1));
			bt_svg_open(s, "text");
			bt_svg_attr(s, "class", "m");
			bt_svg_attr(s, "transform", tr);
			bt_svg_text(s, "latency (log2 buckets)");
			bt_svg_close(s, "text");
		}
		bt_svg_open(s, "g");
		bt_svg_attr(s, "shape-rendering", "crispEdges");
		for (uint32_t cc = 0; cc < used; cc++) {
			double x0 = pd_fx(&fr, (double)cc * (double)width / 1e9);
			double x1 = pd_fx(&fr, (double)(cc + 1) * (double)width / 1e9);

			for (unsigned k = kmin; k <= kmax; k++) {
				uint64_t v = heat_cell(h, cc, k);
				double t;

				if (!v)
					continue;
				t = cmax > 1 ? bt_plot_log2((double)v) /
					       bt_plot_log2((double)cmax) : 1;
				pd_col_range(cr, sizeof(cr), cc, width);
				/* The panel's heading names the trace and op. */
				snprintf(b, sizeof(b), "%s, %s-%s: %" PRIu64 " %s", cr,
					 pd_fmt_dur(d1, 1000.0 * (double)(1ull << k)),
					 pd_fmt_dur(d2, 1000.0 * (double)(2ull << k)),
					 v, unit);
				pd_rect(s, x0, fr.y + fr.h - (k - kmin + 1) * ch, x1 - x0,
				     ch, bt_svg_viridis(t, c8), 1, NULL, b);
			}
		}
		bt_svg_close(s, "g");
	}
	if (total)
		legend_gradient(s, WIDTH - RIGHT + 30, TOP + GAP + 20, 240, cmax,
				unit);
	else
		pd_text_at(s, WIDTH - RIGHT + 30, TOP + GAP + 20, NULL,
			"no samples");
	return bt_svg_finish(s);
}
