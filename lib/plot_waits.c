// SPDX-License-Identifier: MIT
/*
 * plot_waits.c - btplot -k waits: a lane per process with its slice
 * waits and fdatasync episodes as bars along time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "plot_int.h"
#include "plot_draw.h"

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
			x0 = pd_fx(fr, start * colw);
			x1 = pd_fx(fr, c * colw);
		} else {
			sum = v;
			c++;
			x0 = pd_fx(fr, start * colw);
			x1 = pd_fx(fr, c * colw);
			len = (x1 - x0) * (double)v / (double)width;
			if (len < 0.8)
				len = 0.8;
			if (c < b->used && full(bt_bins_at(b, c, r), width))
				x0 = x1 - len;
			else
				x1 = x0 + len;
		}
		pd_col_range(cr1, sizeof(cr1), start, width);
		pd_col_range(cr2, sizeof(cr2), c - 1, width);
		*strchr(cr1, '-') = '\0';
		snprintf(t, sizeof(t), "%s: %s, %s-%s: %s (%u%%)",
			 name, what, cr1, strchr(cr2, '-') + 1,
			 pd_fmt_dur(d1, (double)sum), (unsigned)(sum >= (c - start) * width ? 100 :
			 sum * 100 / ((c - start) * width)));
		pd_rect(s, x0, y, x1 - x0, h, colour, 1, NULL, t);
	}
}

int pd_render_waits(struct bt_plot *const *p, size_t n, FILE *f)
{
	struct lane_pick pk[8][BT_PLOT_LANES + 1];
	unsigned nl[8];
	uint64_t width = pd_common_width(p, n);
	uint32_t used = pd_max_used(p, n);
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
	rc = bt_svg_new(&s, f, WIDTH, height, pd_style);
	if (rc < 0)
		return rc;
	snprintf(b, sizeof(b), "one lane per process (the %u that waited longest "
		 "per trace); column %s; a bar's length within a column: the "
		 "time covered",
		 p[0]->o.top, pd_fmt_dur(d1, (double)width));
	pd_heading(s, "Who waited while whom was served: fdatasync episodes and "
		"slice waits", b);
	fr = (struct frame){ 180, 0, WIDTH - 180 - RIGHT, 0,
			     pd_span_s(p, n, width, used) };
	y = TOP + GAP;
	for (size_t i = 0; i < n; i++) {
		unsigned sr = slice_row(p[i]);
		const char *sw = "slice wait";

		snprintf(b, sizeof(b), "%s: slice waits from %s", p[i]->label,
			 p[i]->use_msg ? "scheduler messages" : "events only");
		pd_text_at(s, fr.x, y - 8, "p", b);
		fr.y = y;
		fr.h = (nl[i] ? nl[i] : 1) * LANE_H;
		pd_rect(s, fr.x, fr.y, fr.w, fr.h, "#ffffff", 1, NULL, NULL);
		pd_x_axis(s, &fr, i + 1 == n);
		if (!nl[i])
			pd_text_at(s, fr.x + 10, y + 17, NULL,
				"no fdatasync episode and no slice wait");
		for (unsigned j = 0; j < nl[i]; j++) {
			unsigned idx = pk[i][j].idx;
			const struct bt_plot_lane *l = &p[i]->lanes[idx];
			double ly = y + j * LANE_H;

			if (j % 2)
				pd_rect(s, fr.x, ly, fr.w, LANE_H, NULL, 1, "bg", NULL);
			lane_name(p[i], idx, name, sizeof(name));
			snprintf(b, sizeof(b), "%s: %" PRIu64 " fdatasync episodes, "
				 "%s in all, longest %s; %" PRIu64 " %ss, %s in all, "
				 "longest %s; %" PRIu64 " requests completed", name,
				 l->count[BT_LANE_FSYNC],
				 pd_fmt_dur(d1, (double)l->total[BT_LANE_FSYNC]),
				 pd_fmt_dur(d2, (double)l->max[BT_LANE_FSYNC]),
				 l->count[sr], sw, pd_fmt_dur(d3, (double)l->total[sr]),
				 pd_fmt_dur(d4, (double)l->max[sr]),
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

		pd_text_at(s, lx, ly, "p", "in each lane");
		for (int k = 0; k < 3; k++) {
			ly += 20;
			pd_rect(s, lx, ly - 10, 14, k == 1 ? 4 : 10, lg[k][0], 1, NULL,
			     lg[k][1]);
			pd_text_at(s, lx + 20, ly, NULL, lg[k][1]);
		}
	}
	return bt_svg_finish(s);
}
