// SPDX-License-Identifier: GPL-2.0
/* iolayers reader: --svg, a waterfall of the slowest reads. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "../iolayers.h"

/* Layer colours of the SVG, and of its legend (grey: a layer not named here). */
static const char *const svg_colours[IOLAYERS_NR_LAYERS] = {
	"#c6dbef", "#6baed6", "#2171b5", "#fdae6b", "#e6550d", "#31a354", "#bcbddc", "#756bb1",
	"#969696", "#c7e9c0", "#fdd0a2", "#fcbba1",
};

static const char *svg_colour(int l)
{
	return svg_colours[l] ? svg_colours[l] : "#d9d9d9";
}

static int cmp_slowest(const void *a, const void *b)
{
	const struct il_flow *x = *(const struct il_flow *const *)a;
	const struct il_flow *y = *(const struct il_flow *const *)b;

	return (il_flow_ns(x) < il_flow_ns(y)) - (il_flow_ns(x) > il_flow_ns(y));
}

static void svg_seg(FILE *out, double x0, double scale, int64_t off, int64_t len, double y,
		    double hgt, int layer, const struct il_flow *f)
{
	char a[16], b[16];

	if (off < 0 || len < 0)
		return;
	fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">"
		"<title>#%" PRIu64 " %s: +%s for %s</title></rect>\n", x0 + off * scale, y,
		len * scale < 0.5 ? 0.5 : len * scale, hgt, svg_colour(layer), f->seq,
		il_layer_names[layer], il_fmt_ns(a, sizeof(a), (double)off),
		il_fmt_ns(b, sizeof(b), (double)len));
}

/*
 * --svg: a waterfall of the @max slowest reads (one row each, aligned on
 * their sys_enter, a request's submission or a fault's entry), a segment
 * per layer at its real offset and length.
 */
int il_view_svg(FILE *out, const struct il_snapshot *s, int max)
{
	const double x0 = 260, width = 900, row = 18;
	/* The legend across the picture, every layer's colour and name. */
	const int key = (int)((x0 + width) / IOLAYERS_NR_LAYERS);
	const struct il_flow **v;
	double scale, y;
	int64_t tmax = 1;
	char a[16];
	int i, n, l, t;

	n = s->flows.n;
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < n; i++)
		v[i] = &s->flows.v[i];
	qsort(v, n, sizeof(*v), cmp_slowest);
	if (n > max)
		n = max;
	for (i = 0; i < n; i++)
		if (il_flow_ns(v[i]) > tmax)
			tmax = il_flow_ns(v[i]);
	scale = width / tmax;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"font-family=\"monospace\" font-size=\"11\">\n", x0 + width + 40,
		90 + row * (n + 1));
	fprintf(out, "<text x=\"10\" y=\"18\" font-size=\"14\">iolayers ");
	il_xml_str(out, s->version, SIZE_MAX);
	fprintf(out, ": the %d slowest reads, each from its sys_enter (an io_uring or AIO "
		"request: its submission; a page fault: its entry)</text>\n", n);
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++)
		fprintf(out, "<rect x=\"%d\" y=\"28\" width=\"12\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"37\">%s</text>\n", 10 + key * l, svg_colour(l),
			26 + key * l, il_layer_names[l]);
	for (t = 0; t <= 4; t++) {
		double x = x0 + width * t / 4;

		fprintf(out, "<line x1=\"%.1f\" y1=\"50\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#ddd\"/>"
			"<text x=\"%.1f\" y=\"62\" text-anchor=\"middle\">%s</text>\n", x, x,
			70 + row * (n + 1), x, il_fmt_ns(a, sizeof(a), (double)tmax * t / 4));
	}
	for (i = 0; i < n; i++) {
		const struct il_flow *f = v[i];

		y = 70 + row * i;
		fprintf(out, "<text x=\"10\" y=\"%.1f\">#%" PRIu64 " ", y + 12, f->seq);
		il_xml_str(out, f->comm, 10);
		fprintf(out, " %s %" PRId64 "B</text>\n", il_cache_names[f->cache], f->ret);
		svg_seg(out, x0, scale, 0, il_flow_ns(f), y, 14, il_flow_top(f), f);
		svg_seg(out, x0, scale, f->vfs_off, f->lat[IOLAYERS_L_VFS], y + 2, 10, IOLAYERS_L_VFS, f);
		svg_seg(out, x0, scale, f->fs_off, f->lat[IOLAYERS_L_FS], y + 4, 6, IOLAYERS_L_FS, f);
		if (f->rqs > 0) {
			svg_seg(out, x0, scale, f->queue_off, f->issue_off - f->queue_off, y + 5, 4,
				IOLAYERS_L_QUEUE, f);
			svg_seg(out, x0, scale, f->issue_off, f->done_off - f->issue_off, y + 5, 4,
				IOLAYERS_L_SERVICE, f);
		}
		if (f->device_off >= 0)
			svg_seg(out, x0, scale, f->device_off - f->lat[IOLAYERS_L_DEVICE], f->lat[IOLAYERS_L_DEVICE],
				y + 11, 2, IOLAYERS_L_DEVICE, f);
	}
	fprintf(out, "</svg>\n");
	free(v);
	return 0;
}
