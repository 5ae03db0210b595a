// SPDX-License-Identifier: GPL-2.0
/* iolayers reader: -D, the block layers' histograms per disk. */
#include <inttypes.h>
#include <stdio.h>
#include "views.h"

/*
 * -D: per disk, the log2 histograms of the queue, service and device
 * layers of the reads that had requests on it (its first request's
 * disk), like biolatency -D.
 */
void il_view_disks(FILE *out, const struct il_snapshot *s, int unit)
{
	static const int layers[] = { IOLAYERS_L_QUEUE, IOLAYERS_L_SERVICE, IOLAYERS_L_DEVICE };
	char label[256], t[IL_TERM_LEN(IL_NAME_LEN)];
	int d, k;

	il_print_filters(out, s);
	il_reads_source(out, s);
	if (!s->dsums.n)
		fprintf(out, "no read with requests\n");
	for (d = 0; d < s->dsums.n; d++) {
		for (k = 0; k < 3; k++) {
			const struct il_hist *h = &s->dsums.v[d].h[k];

			if (!h->count)
				continue;
			snprintf(label, sizeof(label), "\ndisk = %s, layer = %s, %" PRIu64 " reads",
				 il_term_str(t, sizeof(t), s->dsums.v[d].name),
				 il_layer_names[layers[k]], h->count);
			il_print_log2_hist(out, h, label, unit);
		}
	}
	if (s->dsums.dropped)
		fprintf(out, "%" PRId64 " reads of disks past the first %d not shown\n",
			s->dsums.dropped, IL_MAX_DSUMS);
}
