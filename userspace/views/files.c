// SPDX-License-Identifier: GPL-2.0
/* iolayers reader: --files, the reads of each file, most read time first. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "views.h"

/* A file's reads' whole time: their syscalls', requests' and faults'. */
static double file_sum_time(const struct il_fsum *x)
{
	double t = 0;
	int v;

	for (v = 0; v < IL_NR_VIA; v++)
		t += x->ns[iolayers_via_layer(v)];
	return t;
}

static int file_sum_cmp(const void *a, const void *b)
{
	double xt = file_sum_time(*(const struct il_fsum *const *)a);
	double yt = file_sum_time(*(const struct il_fsum *const *)b);

	if (xt != yt)
		return xt < yt ? 1 : -1;
	return 0;
}

/*
 * --files: per file (inode number and file system; its path from `files`),
 * its reads, bytes, HIT share of its file-system reads and the total time
 * of each layer, most read time first; the top @rows.
 */
void il_view_files(FILE *out, const struct il_snapshot *s, int rows)
{
	const struct il_fsums *fs = &s->fsums;
	const struct il_fsum **v = calloc(fs->n ? fs->n : 1, sizeof(*v));
	char t[32], tp[IL_TERM_LEN(IL_PATH_LEN)];
	int i, l;

	if (!v)
		return;
	for (i = 0; i < fs->n; i++)
		v[i] = &fs->v[i];
	qsort(v, fs->n, sizeof(*v), file_sum_cmp);
	il_print_filters(out, s);
	il_reads_source(out, s);
	fprintf(out, "%8s %12s %6s", "READS", "BYTES", "HIT%");
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++)
		fprintf(out, " %9s", il_layer_names[l]);
	fprintf(out, "  FILE\n");
	for (i = 0; i < fs->n && i < rows; i++) {
		const char *path = il_file_path(s, v[i]->fs_dev, v[i]->ino);

		fprintf(out, "%8" PRId64 " %12" PRIu64, v[i]->reads, v[i]->bytes);
		if (v[i]->files)
			fprintf(out, " %5.1f%%", 100.0 * v[i]->hits / v[i]->files);
		else
			fprintf(out, " %6s", "-");
		for (l = 0; l < IOLAYERS_NR_LAYERS; l++)
			fprintf(out, " %9s", v[i]->ns[l] ? il_fmt_ns(t, sizeof(t), v[i]->ns[l]) : "-");
		if (path)
			fprintf(out, "  %s\n", il_term_str(tp, sizeof(tp), path));
		else
			fprintf(out, "  ino %" PRId64 " on %s\n", v[i]->ino,
				il_term_str(tp, sizeof(tp), v[i]->fs_dev));
	}
	if (!fs->n)
		fprintf(out, "no read with a file (format 6 names each read's file)\n");
	if (fs->dropped)
		fprintf(out, "%" PRId64 " reads of files past the first %d not summed\n",
			fs->dropped, IL_MAX_FSUMS);
	fprintf(out, "TIME: the layer's total over the file's reads; queue/service/device: "
		"the longest request of each read\n");
	free(v);
}
