// SPDX-License-Identifier: GPL-2.0
/*
 * iolayers reader: what several views print alike: one time formatter,
 * the names btt users give the block layers, the line of filters the text
 * views start with, and where the per-read views' reads come from.
 */
#include <inttypes.h>
#include <stdio.h>
#include "views.h"

/* What btt users call these. */
static const char *const layer_alias[IOLAYERS_NR_LAYERS] = {
	[IOLAYERS_L_QUEUE] = "Q2I-like",
	[IOLAYERS_L_SERVICE] = "I2C-like",
	[IOLAYERS_L_DEVICE] = "D2C-like",
};

const char *il_layer_alias(int l)
{
	return layer_alias[l] ? layer_alias[l] : "";
}

/* "123ns", "45.6us", "7.89ms", "1.23s": 3 significant digits. */
const char *il_fmt_ns(char *buf, size_t len, double ns)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	int u = 0;

	while (ns >= 1000 && u < 3) {
		ns /= 1000;
		u++;
	}
	if (u == 0 || ns >= 100)
		snprintf(buf, len, "%.0f%s", ns, unit[u]);
	else if (ns >= 10)
		snprintf(buf, len, "%.1f%s", ns, unit[u]);
	else
		snprintf(buf, len, "%.2f%s", ns, unit[u]);
	return buf;
}

void il_print_filters(FILE *out, const struct il_snapshot *s)
{
	char t[IL_TERM_LEN(IL_NAME_LEN)];

	fprintf(out, "iolayers %s: following", il_term_str(t, sizeof(t), s->version));
	if (s->pid)
		fprintf(out, " pid %d%s", s->pid, s->children ? " and its children" : "");
	if (s->comm[0])
		fprintf(out, "%s comm %s", s->pid ? "," : "", il_term_str(t, sizeof(t), s->comm));
	if (s->cgroup[0]) {
		char c[IL_TERM_LEN(sizeof(s->cgroup))];

		fprintf(out, "%s cgroup %s", s->pid || s->comm[0] ? "," : "",
			il_term_str(c, sizeof(c), s->cgroup));
	}
	if (s->view_pid)
		fprintf(out, "; showing pid %" PRId64 " only (-p)", s->view_pid);
	fputc('\n', out);
	if (s->recording)
		fprintf(out, "recording: %" PRId64 " reads, %" PRId64 " lost%s; percentiles "
			"within " IL_FINE_ERR_PCT "%% (every read's latency)\n", s->rec_reads,
			s->rec_lost, s->rec_lost ? " (not in any view)" : "");
}

/* Where the per-read views' reads come from. */
void il_reads_source(FILE *out, const struct il_snapshot *s)
{
	if (s->recording)
		fprintf(out, "(%" PRId64 " reads recorded)\n", s->view_reads);
	else
		fprintf(out, "(the newest %" PRId64 " reads the module keeps in flows; "
			"iolayers record keeps every read)\n", s->view_reads);
}
