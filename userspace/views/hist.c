// SPDX-License-Identifier: GPL-2.0
/* iolayers reader: -H, and the one log2 histogram printer (-H, -D). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "views.h"

/*
 * A bucket edge of @ns in @unit (IL_UNIT_US or IL_UNIT_MS): 4 significant
 * digits, whole units from 1000 on (no exponents).
 */
static void fmt_edge(char *buf, size_t len, uint64_t ns, int unit)
{
	double v = (double)ns / (unit == IL_UNIT_MS ? 1e6 : 1e3);
	const char *u = unit == IL_UNIT_MS ? "ms" : "us";

	if (!ns)
		snprintf(buf, len, "0");
	else if (v >= 1000)
		snprintf(buf, len, "%.0f%s", v, u);
	else
		snprintf(buf, len, "%.4g%s", v, u);
}

/*
 * The one histogram printer. The module's buckets are powers of two of
 * nanoseconds, [2^i, 2^(i+1)): in ns (the default) they are printed
 * exactly as bcc's tools print theirs ("nsecs : count distribution",
 * "lo -> hi" with both edges included, as funclatency does); in us or ms
 * the edges are not whole numbers, and they are printed as bpftrace
 * prints a histogram's ("[lo, hi)", @ bars), each edge in that unit.
 */
void il_print_log2_hist(FILE *out, const struct il_hist *h, const char *label, int unit)
{
	uint64_t max = 0;
	int i, first = -1, last = -1, j, stars;

	for (i = 0; i < IOLAYERS_HIST_BUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		if (first < 0)
			first = i;
		last = i;
		if (h->buckets[i] > max)
			max = h->buckets[i];
	}
	fprintf(out, "%s\n", label);
	if (last < 0) {
		fprintf(out, "     (no samples)\n");
		return;
	}
	if (unit != IL_UNIT_NS) {
		char range[IOLAYERS_HIST_BUCKETS][56];
		int width = 0;

		for (i = first; i <= last; i++) {
			char lo[24], hi[24];

			fmt_edge(lo, sizeof(lo), il_bucket_lo(i), unit);
			if (i == IOLAYERS_HIST_BUCKETS - 1)
				snprintf(hi, sizeof(hi), "...");
			else
				fmt_edge(hi, sizeof(hi), il_bucket_hi(i) + 1, unit);
			snprintf(range[i], sizeof(range[i]), "[%s, %s)", lo, hi);
			if ((int)strlen(range[i]) > width)
				width = (int)strlen(range[i]);
		}
		for (i = first; i <= last; i++) {
			stars = max ? (int)(h->buckets[i] * 52 / max) : 0;
			fprintf(out, "%-*s %8" PRIu64 " |", width, range[i], h->buckets[i]);
			for (j = 0; j < 52; j++)
				fputc(j < stars ? '@' : ' ', out);
			fprintf(out, "|\n");
		}
		return;
	}
	fprintf(out, "%24s : count    distribution\n", "nsecs");
	for (i = first; i <= last; i++) {
		char range[48];

		snprintf(range, sizeof(range), "%" PRIu64 " -> %" PRIu64, il_bucket_lo(i),
			 il_bucket_hi(i));
		stars = max ? (int)(h->buckets[i] * 40 / max) : 0;
		fprintf(out, "%24s : %-8" PRIu64 " |", range, h->buckets[i]);
		for (j = 0; j < 40; j++)
			fputc(j < stars ? '*' : ' ', out);
		fprintf(out, "|\n");
	}
}

/* -H: a histogram per layer for the cache states in @mask. */
void il_view_hist(FILE *out, const struct il_snapshot *s, unsigned int mask, int unit)
{
	struct il_hist h;
	char label[128];
	int l;

	il_print_filters(out, s);
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++) {
		il_layer_hist(s, l, mask, &h);
		if (!h.count)
			continue;
		snprintf(label, sizeof(label), "\nlayer = %s%s%s%s, %" PRIu64 " reads",
			 il_layer_names[l], *il_layer_alias(l) ? " (" : "", il_layer_alias(l),
			 *il_layer_alias(l) ? ")" : "", h.count);
		il_print_log2_hist(out, &h, label, unit);
	}
	/* Per segment, not per read: apart from the layers. */
	if (s->rcv.count) {
		snprintf(label, sizeof(label), "\ntcp_v4_do_rcv/tcp_v6_do_rcv = %" PRIu64
			 " segments of the followed sockets", s->rcv.count);
		il_print_log2_hist(out, &s->rcv, label, unit);
	}
}
