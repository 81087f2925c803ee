/* SPDX-License-Identifier: MIT */
/*
 * plot_int.h - what lib/plot.c and the renderers (plot_render.c and a
 * file per picture kind, plot_draw.h) share: the binning
 * grid behind every picture and the accumulated data of one trace.  The
 * grid has a fixed number of time columns that merge pairwise when a time
 * falls past the last one (the column width doubles), and optionally value
 * rows that do the same when a value falls past the top row; so memory is
 * fixed when the grid is made, whatever the trace's length or extent.
 * Widths only ever double from the same start, so two grids can always be
 * brought to one width (bt_bins_coarsen) and share an axis.
 */
#ifndef BTKIT_PLOT_INT_H
#define BTKIT_PLOT_INT_H

#include <stdint.h>
#include "internal.h"

struct bt_bins {
	uint64_t origin;	/* ns: start of column 0 */
	uint64_t width;		/* ns per column */
	uint64_t rwidth;	/* value units per row; 0: rows are indices */
	uint32_t ncols;		/* columns held (even) */
	uint32_t nrows;		/* rows held (even when rwidth) */
	uint32_t used;		/* columns up to the last one touched */
	uint32_t rused;		/* rows up to the last one touched */
	uint64_t *cell;		/* ncols x nrows, column after column */
};

/*
 * ncols columns of width ns from origin; nrows rows, each rwidth units of
 * value wide (bt_bins_row) or, rwidth 0, indexed by the caller.
 * 0 or -ENOMEM / -EINVAL.
 */
int bt_bins_init(struct bt_bins *b, uint32_t ncols, uint32_t nrows,
		 uint64_t origin, uint64_t width, uint64_t rwidth);
void bt_bins_free(struct bt_bins *b);
/* The column of time t, after merging columns until it fits; t before origin: 0. */
uint32_t bt_bins_col(struct bt_bins *b, uint64_t t);
/* The row of value v (rwidth grids), after merging rows until it fits. */
uint32_t bt_bins_row(struct bt_bins *b, uint64_t v);
/* Add v to the cell of time t and row. */
void bt_bins_add(struct bt_bins *b, uint64_t t, uint32_t row, uint64_t v);
/* Add to each column of row the ns that [from, to) overlaps it. */
void bt_bins_span(struct bt_bins *b, uint64_t from, uint64_t to,
		  uint32_t row);
/* Merge columns (rows) pairwise until width (rwidth) is at least w. */
void bt_bins_coarsen(struct bt_bins *b, uint64_t w);
void bt_bins_coarsen_rows(struct bt_bins *b, uint64_t w);
static inline uint64_t bt_bins_at(const struct bt_bins *b, uint32_t col,
				  uint32_t row)
{
	return b->cell[(size_t)col * b->nrows + row];
}

/* Power-of-two bucket of a latency: k holds [2^k, 2^(k+1)) us; k = 0 also < 1 us. */
#define BT_PLOT_LAT_ROWS	32
unsigned bt_plot_lat_bucket(uint64_t ns);

/* log2(x) for x >= 1 without libm, to 1/1024 (colour scales). */
double bt_plot_log2(double x);

/*
 * "Nice" ticks over [0, max]: step 1, 2 or 5 times a power of ten such
 * that about want ticks fit.  Returns the step (> 0).
 */
double bt_plot_tick_step(double max, unsigned want);

/* ------------------------------------------------ one trace's picture data */

enum { BT_PLOT_OPS = 5 };	/* R, W, discard, flush, other */

#define BT_PLOT_GROUPS		16	/* offset: comm groups kept, the rest "others" */
#define BT_PLOT_LANES		128	/* waits: processes kept, the rest "others" */

/* waits: rows of a lane */
enum { BT_LANE_FSYNC, BT_LANE_SLICE_MSG, BT_LANE_SLICE_EV, BT_LANE_SERVED,
       BT_LANE_ROWS };

struct bt_plot_lane {
	uint32_t pid;
	char comm[17];
	uint64_t total[BT_LANE_ROWS];	/* ns */
	uint64_t count[BT_LANE_ROWS];	/* episodes (requests for SERVED) */
	uint64_t max[BT_LANE_ROWS];	/* ns */
};

struct bt_plot_group {
	char comm[17];
	uint64_t ios[2], bytes[2];	/* [0] reads, [1] writes */
	struct bt_bins grid[2];		/* rows: sectors */
};

struct bt_plot {
	struct bt_plot_opts o;
	char label[64];
	uint64_t first, last;		/* ns: first and last event */
	uint64_t samples;		/* what was binned */
	uint64_t max_sector;		/* offset: highest end sector */
	int has_msg;			/* slice waits from scheduler messages seen */
	int use_msg;			/* render: draw those (every plot has them) */
	struct bt_bins bins;		/* heatmap, iops, depth, waits */
	/* offset */
	struct bt_plot_group *groups;	/* BT_PLOT_GROUPS + 1 ("others") */
	unsigned ngroups;
	/* waits */
	struct bt_plot_lane *lanes;	/* BT_PLOT_LANES + 1 ("others") */
	unsigned nlanes;
	struct bt_map lane_map;		/* pid -> lane index + 1 */
};

#endif
