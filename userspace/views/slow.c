// SPDX-License-Identifier: GPL-2.0
/* iolayers reader: --slow, one read per line with each layer's time. */
#include <inttypes.h>
#include <stdio.h>
#include "../iolayers.h"

static void ms_col(FILE *out, int64_t ns)
{
	if (ns < 0)
		fprintf(out, " %8s", "-");
	else
		fprintf(out, " %8.3f", ns / 1e6);
}

/* --slow: one read per line, like ext4slower and biosnoop; its ID is what -f takes. */
void il_view_slow(FILE *out, const struct il_flows *fl)
{
	int i, l;

	fprintf(out, "%-12s %-10s %-15s %7s %10s %12s %-7s", "ID", "END(s)", "COMM", "TID",
		"BYTES", "OFF", "CACHE");
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++)
		fprintf(out, " %8s", l == IOLAYERS_L_SYSCALL ? "SYS(ms)" : il_layer_names[l]);
	fputc('\n', out);
	for (i = 0; i < fl->n; i++) {
		const struct il_flow *f = &fl->v[i];
		char t[IL_TERM_LEN(IL_NAME_LEN) + 15];

		fprintf(out, "%-12" PRIu64 " %-10.6f %s %7" PRId64 " %10" PRId64 " %12" PRId64
			" %-7s", f->seq, (f->start_ns + il_flow_ns(f)) / 1e9,
			il_term_pad(t, sizeof(t), f->comm, 15), f->tid, f->ret, f->pos,
			il_cache_names[f->cache]);
		for (l = 0; l < IOLAYERS_NR_LAYERS; l++)
			ms_col(out, f->lat[l]);
		fputc('\n', out);
	}
}
