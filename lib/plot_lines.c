// SPDX-License-Identifier: MIT
/*
 * plot_lines.c - btplot -k iops and -k depth: a line per op (iops) or
 * per queue (depth) against time, several traces overlaid on one scale.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "plot_int.h"
#include "plot_draw.h"

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
	pd_rect(s, fr->x, fr->y, fr->w, fr->h, "#ffffff", 1, NULL, NULL);
	pd_x_axis(s, fr, labels);
	top = pd_y_axis(s, fr, max, unit);
	colw = (double)width / 1e9;
	for (size_t i = 0; i < nse; i++) {
		sb.len = 0;
		for (uint32_t c = 0; c < se[i].p->bins.used; c++) {
			double y = fr->y + fr->h - ser_val(&se[i], c) / top * fr->h;

			pd_sb_add(&sb, "%s%s,", c ? " " : "", pd_num(n1, pd_fx(fr, c * colw), 1));
			pd_sb_add(&sb, "%s ", pd_num(n1, y, 1));
			pd_sb_add(&sb, "%s,", pd_num(n1, pd_fx(fr, (c + 1) * colw), 1));
			pd_sb_add(&sb, "%s", pd_num(n1, y, 1));
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

		pd_col_range(cr, sizeof(cr), c, width);
		len = snprintf(b, sizeof(b), "%s", cr);
		for (size_t i = 0; i < nse && len < 900; i++)
			if (c < se[i].p->bins.used)
				len += snprintf(b + len, sizeof(b) - (size_t)len,
						"\n%s: %s %s", se[i].name,
						pd_num(n1, ser_val(&se[i], c), dec),
						vunit[0]);
		pd_rect(s, pd_fx(fr, c * colw), fr->y, pd_fx(fr, (c + 1) * colw) -
		     pd_fx(fr, c * colw), fr->h, NULL, 1, "hv", b);
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
		pd_text_at(s, x + 36, y, NULL, se[i].name);
	}
}

int pd_render_lines(struct bt_plot *const *p, size_t n, FILE *f)
{
	struct series se[2][64];
	size_t nse[2] = { 0, 0 };
	uint64_t width = pd_common_width(p, n);
	uint32_t used = pd_max_used(p, n);
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
					 iops ? " " : "", iops ? pd_op_names[k] : "");
			}
		}
	}
	height = TOP + 2 * (ph + GAP) + BOTTOM;
	rc = bt_svg_new(&s, f, WIDTH, height, pd_style);
	if (rc < 0)
		return rc;
	snprintf(sub, sizeof(sub), "column %s; %s", pd_fmt_dur(d1, (double)width),
		 iops ? "requests and bytes completed per second in each column" :
		 "mean number of requests in each stage over each column");
	pd_heading(s, iops ? "IOPS and throughput over time, per op" :
		"Queue depth over time: requests in the scheduler and in the driver",
		sub);
	fr = (struct frame){ 90, TOP + GAP, WIDTH - 90 - RIGHT, ph,
			     pd_span_s(p, n, width, used) };
	for (int pn = 0; pn < 2; pn++) {
		static const char *const vu_iops[] = { "IOPS" }, *const vu_mb[] = { "MB/s" },
			*const vu_d[] = { "in flight" };
		static const char *const titles[2][2] = {
			{ "requests completed per second (IOPS)", "MB/s (10^6 bytes)" },
			{ "in the scheduler (I to D)", "in the driver (D to C)" },
		};

		fr.y = TOP + GAP + pn * (ph + GAP);
		pd_text_at(s, fr.x, fr.y - 8, "p", titles[!iops][pn]);
		rc = draw_lines(s, &fr, se[pn], nse[pn], width, used,
				iops ? (pn ? "MB/s" : "IOPS") : "requests",
				pn == 1, iops ? (pn ? vu_mb : vu_iops) : vu_d,
				iops ? (pn ? 2 : 0) : 2);
		if (rc < 0) {
			bt_svg_finish(s);
			return rc;
		}
	}
	pd_text_at(s, WIDTH - RIGHT + 20, TOP + GAP + 10, "p",
		iops ? "series" : "traces");
	legend_lines(s, se[0], nse[0], WIDTH - RIGHT + 20, TOP + GAP + 32);
	return bt_svg_finish(s);
}
