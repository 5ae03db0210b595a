// SPDX-License-Identifier: GPL-2.0
/*
 * --heatmap FILE.svg: a recording's latency over time, the way performance
 * engineers read it (Brendan Gregg's latency heat maps): per layer and
 * cache state with reads, a grid of time (columns, by when each read
 * ended) against latency (rows, two per power of two of nanoseconds),
 * each cell's colour its count of reads on a log scale. Built read by
 * read (il_heat_add()) in bounded memory: the columns start 1 ms wide and
 * double, folding pairs, whenever the recording outgrows IL_HEAT_COLS of
 * them, so a recording of any length ends with at most 720 columns (360
 * to 720 once it outgrew the first 720 ms). A read that ended before the
 * first read (its CPU's record came later) is drawn in the first column.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../iolayers.h"

/**
 * il_heat_row() - A latency's row: two per power of two.
 * @ns: the latency
 *
 * Return: 2e for [2^e, 1.5 * 2^e), 2e + 1 for [1.5 * 2^e, 2^(e+1)); 0 below 2.
 */
int il_heat_row(uint64_t ns)
{
	int e;

	if (ns < 2)
		return 0;
	e = 63 - __builtin_clzll(ns);
	return 2 * e + (int)((ns >> (e - 1)) & 1);
}

/* The lowest latency of row @r. */
static uint64_t row_lo(int r)
{
	int e = r / 2;

	if (r < 2)
		return 0;
	return ((uint64_t)1 << e) + (r & 1 ? (uint64_t)1 << (e - 1) : 0);
}

/* The columns twice as wide: each pair folded into one. */
static void heat_fold(struct il_heat *h)
{
	int l, c, i, r;

	for (l = 0; l < IOLAYERS_NR_LAYERS; l++)
		for (c = 0; c < IOLAYERS_NR_CACHE; c++) {
			struct il_heat_panel *p = h->p[l][c];

			if (!p)
				continue;
			for (i = 0; i < IL_HEAT_COLS / 2; i++)
				for (r = 0; r < IL_HEAT_ROWS; r++) {
					uint64_t sum = (uint64_t)p->cell[2 * i][r] +
						       p->cell[2 * i + 1][r];

					p->cell[i][r] = sum > UINT32_MAX ? UINT32_MAX :
									   (uint32_t)sum;
				}
			memset(p->cell[IL_HEAT_COLS / 2], 0,
			       sizeof(p->cell[0]) * (IL_HEAT_COLS - IL_HEAT_COLS / 2));
		}
	h->width_ns *= 2;
	h->ncols = (h->ncols + 1) / 2;
}

/**
 * il_heat_add() - A read into the heatmap, in every layer it reached.
 * @h: the heatmap
 * @f: the read
 * @realtime_off: the recording's wall-clock anchor (columns start on
 *	whole milliseconds of the wall clock)
 *
 * A read that ended before the first column (its CPU's record came after
 * a later read's) is counted in the first.
 *
 * Return: 0, or -1 when out of memory.
 */
int il_heat_add(struct il_heat *h, const struct il_flow *f, int64_t realtime_off)
{
	int64_t end = f->start_ns + il_flow_ns(f);
	uint64_t col;
	int l;

	if (!h->width_ns) {
		h->width_ns = 1000000;
		/* Unsigned: a read's end and the anchor are each below 2^63, not their sum. */
		h->t0 = end - (int64_t)(((uint64_t)end + (uint64_t)realtime_off) % 1000000);
	}
	col = end < h->t0 ? 0 : ((uint64_t)end - (uint64_t)h->t0) / (uint64_t)h->width_ns;
	while (col >= IL_HEAT_COLS) {
		heat_fold(h);
		col = ((uint64_t)end - (uint64_t)h->t0) / (uint64_t)h->width_ns;
	}
	if ((int)col + 1 > h->ncols)
		h->ncols = (int)col + 1;
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++) {
		struct il_heat_panel *p;
		uint32_t *cell;

		if (f->lat[l] < 0)
			continue;
		p = h->p[l][f->cache];
		if (!p) {
			p = calloc(1, sizeof(*p));
			if (!p)
				return -1;
			h->p[l][f->cache] = p;
		}
		cell = &p->cell[col][il_heat_row((uint64_t)f->lat[l])];
		if (*cell < UINT32_MAX)
			(*cell)++;
		p->count++;
	}
	return 0;
}

/**
 * il_heat_free() - A heatmap's panels.
 * @h: the heatmap
 */
void il_heat_free(struct il_heat *h)
{
	int l, c;

	for (l = 0; l < IOLAYERS_NR_LAYERS; l++)
		for (c = 0; c < IOLAYERS_NR_CACHE; c++) {
			free(h->p[l][c]);
			h->p[l][c] = NULL;
		}
}

/* A panel's lowest and highest rows with reads, and its largest cell. */
static void heat_rows(const struct il_heat *h, const struct il_heat_panel *p, int *lo, int *hi,
		      uint32_t *max)
{
	int i, r;

	*lo = IL_HEAT_ROWS;
	*hi = -1;
	if (max)
		*max = 0;
	for (i = 0; i < h->ncols; i++)
		for (r = 0; r < IL_HEAT_ROWS; r++)
			if (p->cell[i][r]) {
				*lo = r < *lo ? r : *lo;
				*hi = r > *hi ? r : *hi;
				if (max && p->cell[i][r] > *max)
					*max = p->cell[i][r];
			}
}

/* The end of the last column, at most INT64_MAX. */
static int64_t heat_end(const struct il_heat *h)
{
	uint64_t span = (uint64_t)h->ncols * (uint64_t)h->width_ns;
	int64_t end;

	if (span > INT64_MAX || __builtin_add_overflow(h->t0, (int64_t)span, &end))
		return INT64_MAX;
	return end;
}

/* A count's colour: light yellow to dark red, on a log scale up to @max. */
static void heat_colour(char *buf, size_t len, uint32_t n, uint32_t max)
{
	double v = max > 1 ? log((double)n) / log((double)max) : 1;
	int r = (int)(255 - 66 * v), g = (int)(255 - 255 * v), b = (int)(204 - 166 * v);

	snprintf(buf, len, "#%02x%02x%02x", r, g, b < 0 ? 0 : b);
}

/**
 * il_view_heatmap() - The heatmap as SVG.
 * @out: where it goes
 * @s: a recording read with @s->heat
 *
 * Return: the panels drawn.
 */
int il_view_heatmap(FILE *out, const struct il_snapshot *s)
{
	const struct il_heat *h = s->heat;
	const double x0 = 90, width = 900, rowh = 5, gap = 60;
	char a[48], b[48], colour[16];
	int l, c, i, r, panels = 0, lo, hi;
	double y = 60, cw, height = 80;

	/* The height first: each panel's rows from its lowest to its highest. */
	for (l = 0; h && l < IOLAYERS_NR_LAYERS; l++)
		for (c = 0; c < IOLAYERS_NR_CACHE; c++)
			if (h->p[l][c] && h->p[l][c]->count) {
				heat_rows(h, h->p[l][c], &lo, &hi, NULL);
				height += gap + 6 + (hi - lo + 1) * rowh;
			}
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"font-family=\"monospace\" font-size=\"11\">\n", x0 + width + 30, height);
	fprintf(out, "<text x=\"10\" y=\"20\" font-size=\"14\">iolayers ");
	il_xml_str(out, s->version, SIZE_MAX);
	fprintf(out, ": latency over time, per layer and cache state (%" PRId64 " reads, "
		"%" PRId64 " lost)</text>\n", s->rec_reads, s->rec_lost);
	if (!h || !h->ncols) {
		fprintf(out, "<text x=\"10\" y=\"40\">no read</text>\n</svg>\n");
		return 0;
	}
	fprintf(out, "<text x=\"10\" y=\"38\">columns of %.3f ms by when each read ended; "
		"rows two per power of two of its latency; colour: reads, log scale</text>\n",
		h->width_ns / 1e6);
	cw = width / h->ncols;
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++)
		for (c = 0; c < IOLAYERS_NR_CACHE; c++) {
			const struct il_heat_panel *p = h->p[l][c];
			uint32_t max = 0;

			if (!p || !p->count)
				continue;
			heat_rows(h, p, &lo, &hi, &max);
			panels++;
			y += 16;
			fprintf(out, "<g class=\"panel\" data-layer=\"%s\" data-cache=\"%s\" "
				"data-reads=\"%" PRIu64 "\">\n<text x=\"10\" y=\"%.0f\">%s, %s: %"
				PRIu64 " reads, most in one cell %u</text>\n", il_layer_names[l],
				il_cache_names[c], p->count, y, il_layer_names[l], il_cache_names[c],
				p->count, max);
			y += 6;
			/* Highest latency on top. */
			for (r = hi; r >= lo; r--) {
				double ry = y + (hi - r) * rowh;

				/*
				 * A label every other power of two (4 rows, 20 px),
				 * and the top row's when no label is near it.
				 */
				if (!(r % 4) || (r == hi && r % 4 >= 2)) {
					il_fmt_ns(a, sizeof(a), (double)row_lo(r));
					fprintf(out, "<text x=\"%.0f\" y=\"%.1f\" "
						"text-anchor=\"end\" font-size=\"9\">%s</text>\n",
						x0 - 4, ry + rowh, a);
				}
				for (i = 0; i < h->ncols; i++) {
					uint32_t n = p->cell[i][r];

					if (!n)
						continue;
					heat_colour(colour, sizeof(colour), n, max);
					fprintf(out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
						"height=\"%.1f\" fill=\"%s\"/>\n", x0 + i * cw, ry,
						cw, rowh, colour);
				}
			}
			y += (hi - lo + 1) * rowh;
			fprintf(out, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.1f\" "
				"fill=\"none\" stroke=\"#999\"/>\n", x0,
				y - (hi - lo + 1) * rowh, width, (hi - lo + 1) * rowh);
			il_fmt_wall(a, sizeof(a), h->t0, s->realtime_off, "%Y-%m-%d %H:%M:%S");
			il_fmt_wall(b, sizeof(b), heat_end(h), s->realtime_off, "%H:%M:%S");
			fprintf(out, "<text x=\"%.0f\" y=\"%.1f\">%s</text>\n<text x=\"%.0f\" "
				"y=\"%.1f\" text-anchor=\"end\">%s</text>\n</g>\n", x0, y + 12, a,
				x0 + width, y + 12, b);
			y += gap - 16;
		}
	fprintf(out, "</svg>\n");
	return panels;
}
