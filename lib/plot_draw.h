/* SPDX-License-Identifier: MIT */
/*
 * plot_draw.h - what the picture kinds (plot_heatmap.c, plot_offset.c,
 * plot_lines.c, plot_waits.c) share with plot_render.c, which draws for
 * them: the page's geometry, a panel's frame, text and shapes through
 * lib/svg.c, axes, and the scales several traces are drawn on together.
 */
#ifndef BTKIT_PLOT_DRAW_H
#define BTKIT_PLOT_DRAW_H

#include <stdint.h>
#include "plot_int.h"

#define WIDTH		1200.0
#define RIGHT		230.0		/* legend */
#define TOP		56.0
#define BOTTOM		56.0
#define GAP		30.0		/* between panels: the panel's label */

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

extern const char pd_style[];
extern const char *const pd_op_names[BT_PLOT_OPS];

void pd_sb_add(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *pd_num(char *buf, double v, int dec);
double pd_panel_height(unsigned panels, double min, double *height);
const char *pd_fmt_scaled(char *buf, double v, double step,
			  const char *const *unit, int nunits);
const char *pd_fmt_dur(char *buf, double ns);
const char *pd_fmt_bytes(char *buf, double b);
int pd_sec_decimals(double step);
void pd_text_at(struct bt_svg *s, double x, double y, const char *cls,
		const char *text);
void pd_line(struct bt_svg *s, double x1, double y1, double x2,
	     double y2, const char *cls);
void pd_rect(struct bt_svg *s, double x, double y, double w, double h,
	     const char *fill, double opacity, const char *cls,
	     const char *title);
double pd_fx(const struct frame *f, double sec);
void pd_x_axis(struct bt_svg *s, const struct frame *f, int labels);
double pd_y_axis(struct bt_svg *s, const struct frame *f, double max,
		 const char *unit);
void pd_heading(struct bt_svg *s, const char *title, const char *sub);
uint64_t pd_common_width(struct bt_plot *const *p, size_t n);
double pd_span_s(struct bt_plot *const *p, size_t n, uint64_t width,
		 uint32_t used);
uint32_t pd_max_used(struct bt_plot *const *p, size_t n);
void pd_col_range(char *buf, size_t len, uint32_t c, uint64_t width);

/* The kinds: each draws its picture of n traces to f; 0 or -errno. */
int pd_render_heatmap(struct bt_plot *const *p, size_t n, FILE *f);
int pd_render_offset(struct bt_plot *const *p, size_t n, FILE *f);
int pd_render_lines(struct bt_plot *const *p, size_t n, FILE *f);
int pd_render_waits(struct bt_plot *const *p, size_t n, FILE *f);

#endif /* BTKIT_PLOT_DRAW_H */
