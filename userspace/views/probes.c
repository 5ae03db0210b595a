// SPDX-License-Identifier: GPL-2.0
/* iolayers reader: -P, the probe points and the module's counters. */
#include <inttypes.h>
#include <stdio.h>
#include "views.h"

/* "-" for -1 (not shown by the module), else the number. */
static const char *i64_or_dash(char *buf, size_t size, int64_t v)
{
	if (v < 0)
		return "-";
	snprintf(buf, size, "%" PRId64, v);
	return buf;
}

/*
 * -P: every probe point, its state, hits and missed, its handlers' cost
 * (runs, sampled mean, estimated total = mean x runs), then the counters.
 */
void il_view_probes(FILE *out, const struct il_snapshot *s)
{
	double est_total = 0, clock = 0;
	int64_t calls_total = 0;
	uint64_t clock_ns;
	int i, costs = 0;

	/* Each timed run includes about one clock read: taken out of EST_MS. */
	if (!il_counter(s, "clock_ns", &clock_ns))
		clock = (double)clock_ns;

	il_print_filters(out, s);
	fputc('\n', out);
	fprintf(out, "%-8s %-28s %-11s %-10s %12s %8s %12s %8s %10s\n", "LAYER", "PROBE", "KIND",
		"STATE", "HITS", "MISSED", "CALLS", "AVG_NS", "EST_MS");
	for (i = 0; i < s->nprobes; i++) {
		const struct il_probe *p = &s->probes[i];
		char missed[24], calls[24], avg[24] = "-", est[24] = "-";
		char t[4][IL_TERM_LEN(IL_NAME_LEN) + 28];

		if (p->calls >= 0 && p->timed > 0 && p->timed_ns >= 0) {
			double mean = (double)p->timed_ns / (double)p->timed;

			snprintf(avg, sizeof(avg), "%.0f", mean);
			mean = mean > clock ? mean - clock : 0;
			snprintf(est, sizeof(est), "%.3f", mean * (double)p->calls / 1e6);
			est_total += mean * (double)p->calls;
		}
		if (p->calls >= 0) {
			costs = 1;
			calls_total += p->calls;
		}
		fprintf(out, "%s %s %s %s %12" PRIu64 " %8s %12s %8s %10s\n",
			il_term_pad(t[0], sizeof(t[0]), p->layer, 8),
			il_term_pad(t[1], sizeof(t[1]), p->name, 28),
			il_term_pad(t[2], sizeof(t[2]), p->kind, 11),
			il_term_pad(t[3], sizeof(t[3]), p->state, 10), p->hits,
			i64_or_dash(missed, sizeof(missed), p->nmissed),
			i64_or_dash(calls, sizeof(calls), p->calls), avg, est);
	}
	if (costs)
		fprintf(out, "\nhandlers: %" PRId64 " runs, about %.3f ms in iolayers' code "
			"(one run in 64 timed per CPU and probe, less %.0f ns of clock read "
			"each; the probe mechanism's own cost is not in it)\n", calls_total,
			est_total / 1e6, clock);
	else if (s->nprobes)
		fputs("\nhandlers: runs not counted (the module counts and times them when "
		      "loaded with cost=1)\n", out);
	if (s->ncounters)
		fputc('\n', out);
	for (i = 0; i < s->ncounters; i++) {
		char t[IL_TERM_LEN(IL_NAME_LEN)];

		fprintf(out, "%-20s %12" PRIu64 "\n",
			il_term_str(t, sizeof(t), s->counters[i].name), s->counters[i].value);
	}
}
