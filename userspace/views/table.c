// SPDX-License-Identifier: GPL-2.0
/*
 * iolayers reader: the default view, a table of the layers per cache
 * state, and its line of every state's reads.
 */
#include <inttypes.h>
#include <stdio.h>
#include "views.h"

void il_view_cache_line(FILE *out, const struct il_snapshot *s)
{
	uint64_t files = 0, socks = 0, of, n;
	int c;

	for (c = 0; c < IOLAYERS_NR_CACHE; c++)
		if (c >= IOLAYERS_C_FIRST_SOCK)
			socks += il_cache_reads(s, c);
		else if (c != IOLAYERS_C_OTHER)
			files += il_cache_reads(s, c);
	/* File states' shares are of the file reads, socket states' of those. */
	fprintf(out, "cache:");
	for (c = 0; c < IOLAYERS_C_FIRST_SOCK; c++) {
		n = il_cache_reads(s, c);
		if (c == IOLAYERS_C_OTHER || !files)
			fprintf(out, " %s %" PRIu64, il_cache_names[c], n);
		else
			fprintf(out, " %s %" PRIu64 " (%.1f%%)", il_cache_names[c], n,
				100.0 * n / files);
		fputc(c == IOLAYERS_C_FIRST_SOCK - 1 ? '\n' : ' ', out);
	}
	if (!socks)
		return;
	fprintf(out, "sockets:");
	for (c = IOLAYERS_C_FIRST_SOCK; c < IOLAYERS_NR_CACHE; c++) {
		n = il_cache_reads(s, c);
		of = socks;
		fprintf(out, " %s %" PRIu64 " (%.1f%%)", il_cache_names[c], n, 100.0 * n / of);
		fputc(c == IOLAYERS_NR_CACHE - 1 ? '\n' : ' ', out);
	}
}

static void table_rows(FILE *out, const struct il_snapshot *s, unsigned int mask)
{
	struct il_hist sys, h;
	char b[5][16];
	int l;

	/* The reads' whole time: their syscalls', requests' and faults'. */
	il_reads_hist(s, mask, &sys);
	fprintf(out, "  %-8s %-8s %9s %12s %8s %8s %8s %8s %6s\n", "LAYER", "", "COUNT", "BYTES",
		"P50", "P90", "P99", "MAX", "SHARE");
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++) {
		il_layer_hist(s, l, mask, &h);
		if (!h.count)
			continue;
		fprintf(out, "  %-8s %-8s %9" PRIu64 " %12" PRIu64 " %8s %8s %8s %8s %5.1f%%\n",
			il_layer_names[l], il_layer_alias(l), h.count, h.bytes,
			il_fmt_ns(b[0], 16, il_hist_percentile(&h, 50)),
			il_fmt_ns(b[1], 16, il_hist_percentile(&h, 90)),
			il_fmt_ns(b[2], 16, il_hist_percentile(&h, 99)),
			il_fmt_ns(b[3], 16, h.max_ns),
			sys.sum_ns ? 100.0 * h.sum_ns / sys.sum_ns : 0.0);
	}
}

/*
 * The default view: per cache state with reads (of those in @mask), a row
 * per layer (count, bytes, p50/p90/p99, max, share of the reads' whole
 * time: their syscalls', requests' (io_uring, AIO) and page faults'),
 * then the ratio of every state.
 */
void il_view_table(FILE *out, const struct il_snapshot *s, unsigned int mask)
{
	int c;

	il_print_filters(out, s);
	for (c = 0; c < IOLAYERS_NR_CACHE; c++) {
		if (!(mask & 1U << c) || !il_cache_reads(s, c))
			continue;
		fprintf(out, "\n%s: %" PRIu64 " reads\n", il_cache_names[c], il_cache_reads(s, c));
		table_rows(out, s, 1U << c);
	}
	fputc('\n', out);
	il_view_cache_line(out, s);
	if (s->rcv.count) {
		char b[3][16];

		fprintf(out, "tcp receive path: %" PRIu64 " segments of the followed sockets, "
			"p50 %s p99 %s max %s\n", s->rcv.count,
			il_fmt_ns(b[0], 16, il_hist_percentile(&s->rcv, 50)),
			il_fmt_ns(b[1], 16, il_hist_percentile(&s->rcv, 99)),
			il_fmt_ns(b[2], 16, s->rcv.max_ns));
	}
}
