// SPDX-License-Identifier: MIT
/*
 * plot_offset.c - btplot -k offset: where on the device each request
 * went, against time, coloured by process (those that moved the most
 * bytes first).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "plot_int.h"
#include "plot_draw.h"

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

int pd_render_offset(struct bt_plot *const *p, size_t n, FILE *f)
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
	ph = pd_panel_height(panels, 150, &height);
	rc = bt_svg_new(&s, f, WIDTH, height, pd_style);
	if (rc < 0)
		return rc;
	snprintf(b, sizeof(b), "column %s, row %s; colour: the process group with "
		 "the most I/O in the cell; opacity: I/Os in the cell (log)",
		 pd_fmt_dur(d1, (double)cw), pd_fmt_bytes(d2, (double)rw * 512));
	pd_heading(s, "Offset over time: where on the disk each process group "
		"reads and writes", panels ? b : "no read or write with data");
	if (!panels)
		pd_text_at(s, 90, TOP + GAP + 20, NULL, "no read or write with data");
	fr = (struct frame){ 90, 0, WIDTH - 90 - RIGHT, ph,
			     pd_span_s(p, 0, cw, used) };
	rowh = ph / (double)rused;
	unsigned pi = 0;
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 2; k++) {
			double ymax = (double)rused * (double)rw * 512 / 1073741824.0;

			if (!dirs[k])
				continue;
			fr.y = TOP + GAP + pi * (ph + GAP);
			pi++;
			snprintf(b, sizeof(b), "%s: %s", p[i]->label, pd_op_names[k]);
			pd_text_at(s, fr.x, fr.y - 8, "p", b);
			pd_rect(s, fr.x, fr.y, fr.w, fr.h, "#ffffff", 1, NULL, NULL);
			pd_x_axis(s, &fr, pi == panels);
			pd_y_axis(s, &fr, ymax, "offset (GiB)");
			bt_svg_open(s, "g");
			bt_svg_attr(s, "shape-rendering", "crispEdges");
			for (uint32_t c = 0; c < used; c++) {
				double x0 = pd_fx(&fr, (double)c * (double)cw / 1e9);
				double x1 = pd_fx(&fr, (double)(c + 1) * (double)cw / 1e9);

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
					pd_col_range(cr, sizeof(cr), c, cw);
					len = snprintf(b, sizeof(b), "%s, %s-%s: %" PRIu64
						       " I/Os", cr,
						       pd_fmt_bytes(d1, (double)r * rw * 512),
						       pd_fmt_bytes(d2, (double)(r + 1) * rw * 512), v);
					for (int g = 0; g < 8 && len < 400; g++)
						if (per[g])
							len += snprintf(b + len, sizeof(b) - (size_t)len,
									"; %s %" PRIu64,
									g == 7 ? "others" : rk[g].comm,
									per[g]);
					double t = cmax > 1 ? bt_plot_log2((double)v) /
							      bt_plot_log2((double)cmax) : 1;
					pd_rect(s, x0, fr.y + fr.h - (r + 1) * rowh, x1 - x0,
					     rowh, bi == 7 ? "#999999" : bt_svg_category((unsigned)bi),
					     0.3 + 0.7 * t, NULL, b);
				}
			}
			bt_svg_close(s, "g");
		}
	/* Legend: the groups, I/Os and bytes over all traces. */
	double ly = TOP + GAP + 10, lx = WIDTH - RIGHT + 20;
	pd_text_at(s, lx, ly, "p", "process group (comm)");
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
			 "others" : rk[g].comm, pd_fmt_bytes(d1, (double)bytes));
		pd_rect(s, lx, ly - 11, 14, 14, g == top ? "#999999" :
		     bt_svg_category(g), 1, NULL, b);
		snprintf(b, sizeof(b), "%.16s  %s", g == top ? "others" : rk[g].comm,
			 pd_fmt_bytes(d1, (double)bytes));
		pd_text_at(s, lx + 20, ly, NULL, b);
	}
	snprintf(c3, sizeof(c3), "%" PRIu64, cmax);
	pd_text_at(s, lx, ly + 28, "s", "densest cell:");
	pd_text_at(s, lx, ly + 44, "s", strcat(c3, " I/Os"));
	return bt_svg_finish(s);
}
