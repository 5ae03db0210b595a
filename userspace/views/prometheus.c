// SPDX-License-Identifier: GPL-2.0
/*
 * iolayers reader: --prometheus and --openmetrics, the histograms and
 * counters as metrics in the two text formats.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "../iolayers.h"

/* Bucket bounds used for Prometheus: le = 2^(i+1) ns, i = 9..35 (1 us..69 s). */
#define PROM_FIRST	9
#define PROM_LAST	35

#define LB(l)		(1U << IOLAYERS_L_##l)
/*
 * A file read's: as a syscall, as an io_uring or AIO request (uring, aio;
 * no vfs), as a page fault (fault; no vfs, no fs).
 */
#define DISK_LAYERS	(LB(SYSCALL) | LB(VFS) | LB(FS) | LB(QUEUE) | LB(SERVICE) | LB(DEVICE) | \
			 LB(URING) | LB(AIO) | LB(FAULT))
#define SOCK_LAYERS	(LB(SYSCALL) | LB(VFS) | LB(SOCK) | LB(TCP))

/*
 * The layers a read in each state can spend time in: a series for each
 * such pair, none for the others (a file read has no socket wait, a socket
 * read no block time). A HIT can have block and device time: the async
 * readahead requests it issued and that completed before it returned. A
 * pair outside the table that has reads anyway is shown too: nothing the
 * module counted is left out.
 */
static const unsigned int prom_layers[IOLAYERS_NR_CACHE] = {
	[IOLAYERS_C_HIT] = DISK_LAYERS,
	[IOLAYERS_C_MISS] = DISK_LAYERS,
	[IOLAYERS_C_PARTIAL] = DISK_LAYERS,
	[IOLAYERS_C_DIRECT] = DISK_LAYERS,
	[IOLAYERS_C_OTHER] = LB(SYSCALL) | LB(VFS),
	[IOLAYERS_C_UNK] = DISK_LAYERS | SOCK_LAYERS | LB(WAIT),
	[IOLAYERS_C_ERROR] = DISK_LAYERS,
	[IOLAYERS_C_READY] = SOCK_LAYERS,
	[IOLAYERS_C_WAITED] = SOCK_LAYERS | LB(WAIT),
	[IOLAYERS_C_EMPTY] = SOCK_LAYERS,
};

/* Per layer: what its histogram measures (the layers nest: never add them). */
static const char *const prom_layer_help[IOLAYERS_NR_LAYERS] = {
	[IOLAYERS_L_SYSCALL] = "the read-family syscall, entry to exit",
	[IOLAYERS_L_VFS] = "from the VFS read function's entry to the syscall's exit (part of the syscall's)",
	[IOLAYERS_L_FS] = "the file system's read function (part of the VFS time)",
	[IOLAYERS_L_QUEUE] = "the block queue of its longest request, queued to issue",
	[IOLAYERS_L_SERVICE] = "the block service of its longest request, issue to completion",
	[IOLAYERS_L_DEVICE] = "the device command of its longest request (NVMe, SCSI; part of the service time)",
	[IOLAYERS_L_SOCK] = "from the socket family's recvmsg to the syscall's exit (part of the syscall's)",
	[IOLAYERS_L_TCP] = "from tcp_recvmsg to the syscall's exit (part of the socket time)",
	[IOLAYERS_L_WAIT] = "the wait for data on the socket (part of the socket time)",
	[IOLAYERS_L_URING] = "an io_uring read request, submission to its completion's CQE (instead of the syscall's)",
	[IOLAYERS_L_AIO] = "a Linux AIO read request (io_submit), submission to its completion event (instead of the syscall's)",
	[IOLAYERS_L_FAULT] = "a page fault on a file's mapping, entry to its last return, retries included (instead of the syscall's)",
};

/* A cache state as a label value: lower case. */
static const char *prom_state(int c, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len && il_cache_names[c][i]; i++)
		buf[i] = (char)tolower((unsigned char)il_cache_names[c][i]);
	buf[i] = '\0';
	return buf;
}

/*
 * A metric family's header. OpenMetrics names a counter's family without
 * its _total, and gives a unit when the name ends in one.
 */
static void prom_family(FILE *out, int om, const char *name, const char *type, const char *unit,
			const char *help)
{
	size_t n = strlen(name);

	if (om && !strcmp(type, "counter") && n > 6 && !strcmp(name + n - 6, "_total"))
		n -= 6;
	fprintf(out, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)n, name, help, (int)n, name, type);
	if (om && unit)
		fprintf(out, "# UNIT %.*s %s\n", (int)n, name, unit);
}

/* A label value, escaped as the text formats want (backslash, quote, newline). */
static void prom_label(FILE *out, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', out);
		if (*v == '\n')
			fputs("\\n", out);
		else
			fputc(*v, out);
	}
}

/* A probe point's series name and labels, up to its value. */
static void prom_probe(FILE *out, const char *family, const struct il_probe *p)
{
	fprintf(out, "%s{probe=\"", family);
	prom_label(out, p->name);
	fputs("\",layer=\"", out);
	prom_label(out, p->layer);
	fputs("\"} ", out);
}

/* One layer's latency histogram family: a series per possible cache state. */
static void prom_layer(FILE *out, int om, const struct il_snapshot *s, int l)
{
	char name[64], help[192], st[IL_NAME_LEN];
	int c, i;

	snprintf(name, sizeof(name), "iolayers_%s_latency_seconds", il_layer_names[l]);
	snprintf(help, sizeof(help), "Seconds per read(): %s.",
		 prom_layer_help[l] ? prom_layer_help[l] : il_layer_names[l]);
	prom_family(out, om, name, "histogram", "seconds", help);
	for (c = 0; c < IOLAYERS_NR_CACHE; c++) {
		const struct il_hist *h = &s->hist[l][c];
		uint64_t cum = 0;

		if (!(prom_layers[c] & (1U << l)) && !h->count)
			continue;
		prom_state(c, st, sizeof(st));
		for (i = 0; i < IOLAYERS_HIST_BUCKETS; i++) {
			cum += h->buckets[i];
			if (i < PROM_FIRST || i > PROM_LAST)
				continue;
			fprintf(out, "%s_bucket{cache=\"%s\",le=\"%.12g\"} %" PRIu64 "\n", name, st,
				(double)(il_bucket_hi(i) + 1) / 1e9, cum);
		}
		fprintf(out, "%s_bucket{cache=\"%s\",le=\"+Inf\"} %" PRIu64 "\n", name, st, h->count);
		fprintf(out, "%s_sum{cache=\"%s\"} %.9f\n", name, st, h->sum_ns / 1e9);
		fprintf(out, "%s_count{cache=\"%s\"} %" PRIu64 "\n", name, st, h->count);
	}
}

/*
 * The single counters of `stats` that say what was lost or could not be
 * attributed, as metrics (a line only when the module shows the counter).
 */
static const struct {
	const char *stat, *metric, *unit, *help;
} prom_losses[] = {
	{ "reads_missed", "iolayers_reads_missed_events_total", NULL,
	  "Reads a layer's probe skipped an event of (the recursion guard); their flows name the layer." },
	{ "fentry_unmatched", "iolayers_fentry_unmatched_events_total", NULL,
	  "Function entry callbacks of a probe group that matched none of its functions: events lost (none expected)." },
	{ "requests_late", "iolayers_requests_late_total", NULL,
	  "Requests that completed after their read had returned (async readahead); in no read's time." },
	{ "late_bytes", "iolayers_requests_late_bytes_total", "bytes", "Bytes of the late requests." },
	{ "flow_overflow", "iolayers_request_flow_overflow_total", NULL,
	  "Bios of more reads than a request entry holds: those reads miss that request." },
	{ "disk_overflow", "iolayers_disk_overflow_total", NULL,
	  "Requests on disks beyond the 16 the disk table holds (not in per-disk counts)." },
	{ "clock_gaps", "iolayers_clock_gaps_total", NULL,
	  "Reads whose start time may be off: the clocks could not be read close together." },
	{ "stream_lost", "iolayers_stream_lost_records_total", NULL,
	  "Reads the stream's reader lost (overwritten before it read them, vanished)." },
	{ "stream_vanished", "iolayers_stream_vanished_records_total", NULL,
	  "Reads missing from a CPU's ring that it did not count as overwritten: none should be (in stream_lost too)." },
};

/* Table drop causes in `stats`, as the cause label. */
static const char *const prom_drop_causes[] = { "table_full", "nomem", "stale", "expired" };

/* Loss and drop counters: every read or event the module could not keep. */
static void prom_losses_show(FILE *out, int om, const struct il_snapshot *s)
{
	size_t k, n;
	uint64_t v;
	int i, any;

	prom_family(out, om, "iolayers_probe_missed_total", "counter", NULL,
		    "Probe callbacks skipped (kretprobe instances, the function entries' recursion guard).");
	for (i = 0; i < s->nprobes; i++)
		if (s->probes[i].nmissed >= 0) {
			prom_probe(out, "iolayers_probe_missed_total", &s->probes[i]);
			fprintf(out, "%" PRId64 "\n", s->probes[i].nmissed);
		}
	/* Tables: a TABLE_table_full counter names a table. */
	any = 0;
	for (i = 0; i < s->ncounters; i++) {
		const char *name = s->counters[i].name;
		char key[2 * IL_NAME_LEN];

		n = strlen(name);
		if (n <= 11 || strcmp(name + n - 11, "_table_full"))
			continue;
		if (!any++)
			prom_family(out, om, "iolayers_table_drops_total", "counter", NULL,
				    "Entries the module's tables could not take or dropped, by cause; each a read, bio or request not followed whole.");
		for (k = 0; k < sizeof(prom_drop_causes) / sizeof(prom_drop_causes[0]); k++) {
			snprintf(key, sizeof(key), "%.*s_%s", (int)(n - 11), name, prom_drop_causes[k]);
			if (il_counter(s, key, &v))
				continue;
			snprintf(key, sizeof(key), "%.*s", (int)(n - 11), name);
			fputs("iolayers_table_drops_total{table=\"", out);
			prom_label(out, key);
			fprintf(out, "\",cause=\"%s\"} %" PRIu64 "\n", prom_drop_causes[k], v);
		}
	}
	for (k = 0; k < sizeof(prom_losses) / sizeof(prom_losses[0]); k++) {
		if (il_counter(s, prom_losses[k].stat, &v))
			continue;
		prom_family(out, om, prom_losses[k].metric, "counter", prom_losses[k].unit,
			    prom_losses[k].help);
		fprintf(out, "%s %" PRIu64 "\n", prom_losses[k].metric, v);
	}
	/* The rings' rows: stream/CPU and slow/CPU. */
	any = 0;
	for (i = 0; i < s->ncounters; i++) {
		const char *name = s->counters[i].name, *slash = strchr(name, '/');
		char buf[IL_NAME_LEN];

		n = strlen(name);
		if (!slash || n <= 8 || strcmp(name + n - 8, "_dropped"))
			continue;
		if (!any++)
			prom_family(out, om, "iolayers_buffer_dropped_records_total", "counter", NULL,
				    "Completed reads a CPU had no ring for (none should be).");
		/* Names from the file: escaped like every label value. */
		snprintf(buf, sizeof(buf), "%.*s", (int)(slash - name), name);
		fputs("iolayers_buffer_dropped_records_total{buffer=\"", out);
		prom_label(out, buf);
		snprintf(buf, sizeof(buf), "%.*s", (int)(n - 8 - (slash + 1 - name)), slash + 1);
		fputs("\",cpu=\"", out);
		prom_label(out, buf);
		fprintf(out, "\"} %" PRIu64 "\n", s->counters[i].value);
	}
}

/* What made these numbers: the reader, the module, its debugfs format. */
static void prom_build_info(FILE *out, int om, const struct il_snapshot *s)
{
	prom_family(out, om, "iolayers_build_info", "gauge", NULL,
		    "The reader's and the module's versions and the module's debugfs format (always 1).");
	fprintf(out, "iolayers_build_info{reader=\"%s\",module=\"", IOLAYERS_VERSION_STRING);
	prom_label(out, s->version);
	fprintf(out, "\",format=\"%d\"} 1\n", s->format);
}

/**
 * il_view_prom_body() - the metrics of --prometheus or --openmetrics
 * without OpenMetrics' closing "# EOF".
 * @out: where to
 * @s: the module's snapshot
 * @om: OpenMetrics (1) or Prometheus text (0)
 */
void il_view_prom_body(FILE *out, const struct il_snapshot *s, int om)
{
	char st[IL_NAME_LEN];
	struct il_hist h;
	int l, c, i;

	prom_build_info(out, om, s);
	prom_family(out, om, "iolayers_reads_total", "counter", NULL,
		    "read() calls, io_uring and AIO read requests and page faults on mapped files of the followed processes, by cache state (sockets: ready, waited, empty).");
	for (c = 0; c < IOLAYERS_NR_CACHE; c++)
		fprintf(out, "iolayers_reads_total{cache=\"%s\"} %" PRIu64 "\n",
			prom_state(c, st, sizeof(st)), il_cache_reads(s, c));
	prom_family(out, om, "iolayers_read_bytes_total", "counter", "bytes",
		    "Bytes the followed read() calls, io_uring and AIO read requests returned and page faults mapped, by cache state.");
	for (c = 0; c < IOLAYERS_NR_CACHE; c++) {
		il_reads_hist(s, 1U << c, &h);
		fprintf(out, "iolayers_read_bytes_total{cache=\"%s\"} %" PRIu64 "\n",
			prom_state(c, st, sizeof(st)), h.bytes);
	}
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++)
		prom_layer(out, om, s, l);
	prom_losses_show(out, om, s);
	prom_family(out, om, "iolayers_probe_hits_total", "counter", NULL,
		    "Events of followed reads seen per probe point.");
	for (i = 0; i < s->nprobes; i++) {
		prom_probe(out, "iolayers_probe_hits_total", &s->probes[i]);
		fprintf(out, "%" PRIu64 "\n", s->probes[i].hits);
	}
	/* Self-accounting, when the module shows it (not in older files). */
	if (s->nprobes && s->probes[0].calls >= 0) {
		prom_family(out, om, "iolayers_probe_handler_calls_total", "counter", NULL,
			    "Handler runs per probe point, followed or not.");
		for (i = 0; i < s->nprobes; i++)
			if (s->probes[i].calls >= 0) {
				prom_probe(out, "iolayers_probe_handler_calls_total", &s->probes[i]);
				fprintf(out, "%" PRId64 "\n", s->probes[i].calls);
			}
		prom_family(out, om, "iolayers_probe_handler_timed_calls_total", "counter", NULL,
			    "Handler runs timed (one in 64).");
		for (i = 0; i < s->nprobes; i++)
			if (s->probes[i].timed >= 0) {
				prom_probe(out, "iolayers_probe_handler_timed_calls_total", &s->probes[i]);
				fprintf(out, "%" PRId64 "\n", s->probes[i].timed);
			}
		prom_family(out, om, "iolayers_probe_handler_timed_seconds_total", "counter", "seconds",
			    "Time in the timed handler runs.");
		for (i = 0; i < s->nprobes; i++)
			if (s->probes[i].timed_ns >= 0) {
				prom_probe(out, "iolayers_probe_handler_timed_seconds_total",
					   &s->probes[i]);
				fprintf(out, "%.9f\n", (double)s->probes[i].timed_ns / 1e9);
			}
	}
}

/**
 * il_view_prom_exporter() - what `iolayers serve` adds to a scrape, after
 * the module's metrics (none when it could not read them), and
 * OpenMetrics' "# EOF".
 * @out: where to
 * @om: OpenMetrics (1) or Prometheus text (0)
 * @e: the scrape's outcome and the exporter's counters
 */
void il_view_prom_exporter(FILE *out, int om, const struct il_exporter *e)
{
	if (!e->up) {
		prom_family(out, om, "iolayers_build_info", "gauge", NULL,
			    "The reader's version (the module could not be read).");
		fprintf(out, "iolayers_build_info{reader=\"%s\",module=\"\",format=\"0\"} 1\n",
			IOLAYERS_VERSION_STRING);
	}
	prom_family(out, om, "iolayers_up", "gauge", NULL,
		    "1 when this scrape read the module's files, 0 when it could not (module not loaded, debugfs not mounted, no permission).");
	fprintf(out, "iolayers_up %d\n", e->up ? 1 : 0);
	prom_family(out, om, "iolayers_scrape_duration_seconds", "gauge", "seconds",
		    "Time this scrape took to read the module's files and write their metrics.");
	fprintf(out, "iolayers_scrape_duration_seconds %.6f\n", e->seconds);
	prom_family(out, om, "iolayers_exporter_scrapes_total", "counter", NULL,
		    "Scrapes this exporter answered since it started, this one included.");
	fprintf(out, "iolayers_exporter_scrapes_total %" PRIu64 "\n", e->scrapes);
	prom_family(out, om, "iolayers_exporter_scrape_errors_total", "counter", NULL,
		    "Scrapes that could not read the module (iolayers_up 0).");
	fprintf(out, "iolayers_exporter_scrape_errors_total %" PRIu64 "\n", e->failed);
	prom_family(out, om, "iolayers_exporter_connection_timeouts_total", "counter", NULL,
		    "Client connections closed at --web.timeout before their request or answer was through.");
	fprintf(out, "iolayers_exporter_connection_timeouts_total %" PRIu64 "\n", e->timeouts);
	if (om)
		fputs("# EOF\n", out);
}

static void prom_view(FILE *out, const struct il_snapshot *s, int om)
{
	il_view_prom_body(out, s, om);
	if (om)
		fputs("# EOF\n", out);
}

/* --prometheus: text exposition format 0.0.4, for node_exporter's textfile collector. */
void il_view_prometheus(FILE *out, const struct il_snapshot *s)
{
	prom_view(out, s, 0);
}

/* --openmetrics: OpenMetrics 1.0 text (units, counters' families, # EOF). */
void il_view_openmetrics(FILE *out, const struct il_snapshot *s)
{
	prom_view(out, s, 1);
}
