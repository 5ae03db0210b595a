// SPDX-License-Identifier: GPL-2.0
/*
 * iolayers reader: every view of a parsed snapshot. Numbers come from
 * parse.c only; one time formatter, one histogram printer, one flow
 * picker shared by the views.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "iolayers.h"

/* What btt users call these. */
static const char *const layer_alias[IOLAYERS_NR_LAYERS] = {
	[IOLAYERS_L_QUEUE] = "Q2I-like",
	[IOLAYERS_L_SERVICE] = "I2C-like",
	[IOLAYERS_L_DEVICE] = "D2C-like",
};

static const char *alias(int l)
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

static void print_filters(FILE *out, const struct il_snapshot *s)
{
	char t[IL_TERM_LEN(IL_NAME_LEN)];

	fprintf(out, "iolayers %s: following", il_term_str(t, sizeof(t), s->version));
	if (s->pid)
		fprintf(out, " pid %d%s", s->pid, s->children ? " and its children" : "");
	if (s->comm[0])
		fprintf(out, "%s comm %s", s->pid ? "," : "", il_term_str(t, sizeof(t), s->comm));
	if (s->view_pid)
		fprintf(out, "; showing pid %" PRId64 " only (-p)", s->view_pid);
	fputc('\n', out);
	if (s->recording)
		fprintf(out, "recording: %" PRId64 " reads, %" PRId64 " lost%s; percentiles "
			"within " IL_FINE_ERR_PCT "%% (every read's latency)\n", s->rec_reads,
			s->rec_lost, s->rec_lost ? " (not in any view)" : "");
}

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

	print_filters(out, s);
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
			il_layer_names[l], alias(l), h.count, h.bytes,
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

	print_filters(out, s);
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

	print_filters(out, s);
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++) {
		il_layer_hist(s, l, mask, &h);
		if (!h.count)
			continue;
		snprintf(label, sizeof(label), "\nlayer = %s%s%s%s, %" PRIu64 " reads",
			 il_layer_names[l], *alias(l) ? " (" : "", alias(l), *alias(l) ? ")" : "",
			 h.count);
		il_print_log2_hist(out, &h, label, unit);
	}
	/* Per segment, not per read: apart from the layers. */
	if (s->rcv.count) {
		snprintf(label, sizeof(label), "\ntcp_v4_do_rcv/tcp_v6_do_rcv = %" PRIu64
			 " segments of the followed sockets", s->rcv.count);
		il_print_log2_hist(out, &s->rcv, label, unit);
	}
}

/* Columns a UTF-8 string takes (the tree is drawn with box characters). */
static int display_width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* One line of a timeline: an event at @off ns from the read's start. */
struct tl_event {
	int64_t off;
	const char *what;
	int nested;		/* inside the FS call: drawn under it */
	char note[160];
};

struct tl {
	int n;
	struct tl_event ev[12];	/* il_view_timeline() adds 11 at most */
};

static struct tl_event *tl_add(struct tl *tl, const char *what, int64_t off, int nested)
{
	struct tl_event *e = &tl->ev[tl->n++];

	e->off = off;
	e->what = what;
	e->nested = nested;
	e->note[0] = '\0';
	return e;
}

/* The events as a tree: nested ones under the line before them. */
static void tl_print(FILE *out, const struct tl *tl)
{
	char b[16], col[96], at[24];
	int i;

	for (i = 0; i < tl->n; i++) {
		const struct tl_event *e = &tl->ev[i];
		int last = i + 1 == tl->n || (e->nested && !tl->ev[i + 1].nested);

		snprintf(col, sizeof(col), "%s%s%s", e->nested ? "\u2502   " : "",
			 last ? "\u2514\u2500 " : "\u251c\u2500 ", e->what);
		snprintf(at, sizeof(at), "(+%s)", il_fmt_ns(b, sizeof(b), (double)e->off));
		if (*e->note)
			fprintf(out, "%s%*s %-10s <- %s\n", col, 34 - display_width(col), "", at,
				e->note);
		else
			fprintf(out, "%s%*s %s\n", col, 34 - display_width(col), "", at);
	}
}

/*
 * In the order of their times, flat: a request's issue may return before
 * its I/O completes (an AIO read's, an io_uring O_DIRECT one's), and its
 * block events are then in no call's time. Insertion sort: stable.
 */
static void tl_sort(struct tl *tl)
{
	struct tl_event e;
	int i, j;

	for (i = 0; i < tl->n; i++)
		tl->ev[i].nested = 0;
	for (i = 1; i < tl->n; i++) {
		e = tl->ev[i];
		for (j = i; j > 0 && tl->ev[j - 1].off > e.off; j--)
			tl->ev[j] = tl->ev[j - 1];
		tl->ev[j] = e;
	}
}

/*
 * A timeline's events by how the read was issued: its start, its first
 * attempt (a request's), the end of its last one (of the FS layer's
 * time), its end. A fault has no FS layer: its I/O is drawn under its
 * entry.
 */
static const struct {
	const char *start, *attempt, *fs_end, *end;
} tl_via[IL_NR_VIA] = {
	[IOLAYERS_VIA_SYSCALL] = { "sys_enter", NULL, "fs read_iter returns", "sys_exit" },
	[IOLAYERS_VIA_URING] = { "submit", "first attempt", "last attempt returns", "CQE" },
	[IOLAYERS_VIA_AIO] = {
		"submit", "issue in io_submit", "issue returns", "completion event"
	},
	[IOLAYERS_VIA_FAULT] = { "fault entry", NULL, "fs read_iter returns", "fault returns" },
};

/*
 * The ASCII timeline of one read, every layer's start and end as offsets
 * from sys_enter; a request's from its submission (its first attempt's
 * start, and the time its attempts took) to its completion: an io_uring
 * request's CQE, an AIO request's event; a page fault's from its entry
 * (handle_mm_fault()) to its last return, its I/O between.
 */
void il_view_timeline(FILE *out, const struct il_flow *f)
{
	char a[16], t[2][IL_TERM_LEN(IL_NAME_LEN)];
	const char *kind = iolayers_via_prefix(f->via);
	int blk = f->rqs > 0;
	struct tl tl = { 0 };
	struct tl_event *e;

	/* A fault has no file descriptor (-1): none said. */
	fprintf(out, "%s%s #%" PRIu64 ": tid %" PRId64 " %s, ",
		il_term_str(t[0], sizeof(t[0]), f->syscall), kind ? "" : "()", f->seq, f->tid,
		il_term_str(t[1], sizeof(t[1]), f->comm));
	if (f->fd >= 0)
		fprintf(out, "fd %" PRId64 ", ", f->fd);
	fprintf(out, "%" PRId64 " of %" PRId64 " bytes", f->ret, f->req);
	if (f->pos >= 0)
		fprintf(out, " at %" PRId64, f->pos);
	fprintf(out, ", %s", il_cache_names[f->cache]);
	if (strcmp(f->missed, "-"))
		fprintf(out, " (lost events of: %s)", il_term_str(t[0], sizeof(t[0]), f->missed));
	fprintf(out, "\n\u2502\n");
	tl_add(&tl, tl_via[f->via].start, 0, 0);
	if (iolayers_via_request(f->via) && f->ur_issue_off >= 0) {
		e = tl_add(&tl, tl_via[f->via].attempt, f->ur_issue_off, 0);
		snprintf(e->note, sizeof(e->note), "%" PRId64 " attempt%s, %s issuing%s%s",
			 f->ur_attempts, f->ur_attempts == 1 ? "" : "s",
			 il_fmt_ns(a, sizeof(a), (double)(f->ur_issue_ns > 0 ? f->ur_issue_ns : 0)),
			 strcmp(f->ur_where, "-") ? ", " : "",
			 strcmp(f->ur_where, "-") ? il_term_str(t[0], sizeof(t[0]), f->ur_where) : "");
	}
	if (f->vfs_off >= 0)
		tl_add(&tl, "vfs_read", f->vfs_off, 0);
	if (f->fs_off >= 0)
		tl_add(&tl, "fs read_iter", f->fs_off, 0);
	if (f->queue_off >= 0)
		tl_add(&tl, "block_bio_queue (first)", f->queue_off, 1);
	if (blk) {
		e = tl_add(&tl, "block_rq_issue (first)", f->issue_off, 1);
		snprintf(e->note, sizeof(e->note), "Q %s",
			 il_fmt_ns(a, sizeof(a), (double)f->lat[IOLAYERS_L_QUEUE]));
	}
	if (f->device_off >= 0) {
		e = tl_add(&tl, "device done (last)", f->device_off, 1);
		snprintf(e->note, sizeof(e->note), "Device %s",
			 il_fmt_ns(a, sizeof(a), (double)f->lat[IOLAYERS_L_DEVICE]));
	}
	if (blk) {
		e = tl_add(&tl, "block_rq_complete (last)", f->done_off, 1);
		snprintf(e->note, sizeof(e->note), "S %s; %" PRId64 " request%s%s%s, %" PRId64
			 " bytes, readahead %" PRId64,
			 il_fmt_ns(a, sizeof(a), (double)f->lat[IOLAYERS_L_SERVICE]), f->rqs,
			 f->rqs == 1 ? "" : "s", strcmp(f->disk, "-") ? " on " : "",
			 strcmp(f->disk, "-") ? il_term_str(t[0], sizeof(t[0]), f->disk) : "",
			 f->rq_bytes, f->ra_bytes);
	}
	if (f->fs_off >= 0) {
		/* A request's FS time ends with its last attempt. */
		e = tl_add(&tl, tl_via[f->via].fs_end, f->fs_off + f->lat[IOLAYERS_L_FS], 0);
		snprintf(e->note, sizeof(e->note), "FS %s",
			 il_fmt_ns(a, sizeof(a), (double)f->lat[IOLAYERS_L_FS]));
		/* Returned before its I/O completed: the events in their order. */
		if (blk && e->off < f->done_off)
			tl_sort(&tl);
	}
	if (f->vfs_off >= 0) {
		e = tl_add(&tl, "vfs_read returns", f->vfs_off + f->lat[IOLAYERS_L_VFS], 0);
		snprintf(e->note, sizeof(e->note), "VFS %s",
			 il_fmt_ns(a, sizeof(a), (double)f->lat[IOLAYERS_L_VFS]));
	}
	e = tl_add(&tl, tl_via[f->via].end, il_flow_ns(f), 0);
	snprintf(e->note, sizeof(e->note), "%s %s", kind ? kind : "syscall",
		 il_fmt_ns(a, sizeof(a), (double)il_flow_ns(f)));
	tl_print(out, &tl);
}

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

/* Where the per-read views' reads come from. */
static void reads_source(FILE *out, const struct il_snapshot *s)
{
	if (s->recording)
		fprintf(out, "(%" PRId64 " reads recorded)\n", s->view_reads);
	else
		fprintf(out, "(the newest %" PRId64 " reads the module keeps in flows; "
			"iolayers record keeps every read)\n", s->view_reads);
}

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
	print_filters(out, s);
	reads_source(out, s);
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

	print_filters(out, s);
	reads_source(out, s);
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

/* A JSON string: the names we print are plain, but escape anyway. */
static void json_i64(FILE *out, const char *key, int64_t v, int last)
{
	fprintf(out, "\"%s\": ", key);
	if (v < 0)
		fprintf(out, "null");
	else
		fprintf(out, "%" PRId64, v);
	fprintf(out, "%s", last ? "" : ", ");
}

static void json_hist(FILE *out, const struct il_hist *h)
{
	int i, first = 1;

	fprintf(out, "{\"count\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"sum_ns\": %" PRIu64,
		h->count, h->bytes, h->sum_ns);
	if (h->count)
		fprintf(out, ", \"min_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64
			", \"p50_ns\": %" PRIu64 ", \"p90_ns\": %" PRIu64 ", \"p99_ns\": %" PRIu64,
			h->min_ns, h->max_ns, il_hist_percentile(h, 50), il_hist_percentile(h, 90),
			il_hist_percentile(h, 99));
	fprintf(out, ", \"buckets\": [");
	for (i = 0; i < IOLAYERS_HIST_BUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		fprintf(out, "%s{\"low_ns\": %" PRIu64 ", \"high_ns\": %" PRIu64 ", \"count\": %"
			PRIu64 "}", first ? "" : ", ", il_bucket_lo(i), il_bucket_hi(i), h->buckets[i]);
		first = 0;
	}
	fprintf(out, "]}");
}

static void json_flows(FILE *out, const struct il_flows *fl)
{
	int i, l;

	fprintf(out, "[");
	for (i = 0; i < fl->n; i++) {
		const struct il_flow *f = &fl->v[i];

		fprintf(out, "%s\n    {\"seq\": %" PRIu64 ", ", i ? "," : "", f->seq);
		json_i64(out, "start_ns", f->start_ns, 0);
		json_i64(out, "tid", f->tid, 0);
		json_i64(out, "tgid", f->tgid, 0);
		fprintf(out, "\"comm\": ");
		il_json_str(out, f->comm, SIZE_MAX);
		fprintf(out, ", \"syscall\": ");
		il_json_str(out, f->syscall, SIZE_MAX);
		fprintf(out, ", \"cache\": \"%s\", ", il_cache_names[f->cache]);
		json_i64(out, "fd", f->fd, 0);
		fprintf(out, "\"pos\": %" PRId64 ", ", f->pos);
		json_i64(out, "req", f->req, 0);
		fprintf(out, "\"ret\": %" PRId64 ", \"latency_ns\": {", f->ret);
		for (l = 0; l < IOLAYERS_NR_LAYERS; l++) {
			fprintf(out, "\"%s\": ", il_layer_names[l]);
			if (f->lat[l] < 0)
				fprintf(out, "null");
			else
				fprintf(out, "%" PRId64, f->lat[l]);
			fprintf(out, "%s", l == IOLAYERS_NR_LAYERS - 1 ? "}, " : ", ");
		}
		json_i64(out, "bios", f->bios, 0);
		json_i64(out, "requests", f->rqs, 0);
		json_i64(out, "bio_bytes", f->bio_bytes, 0);
		json_i64(out, "request_bytes", f->rq_bytes, 0);
		json_i64(out, "readahead_bytes", f->ra_bytes, 0);
		json_i64(out, "requeues", f->requeues, 0);
		json_i64(out, "errors", f->errors, 0);
		fprintf(out, "\"disk\": ");
		if (strcmp(f->disk, "-"))
			il_json_str(out, f->disk, SIZE_MAX);
		else
			fprintf(out, "null");
		fprintf(out, ", \"missed\": ");
		if (strcmp(f->missed, "-"))
			il_json_str(out, f->missed, SIZE_MAX);
		else
			fprintf(out, "null");
		fprintf(out, ", \"sock\": ");
		if (strcmp(f->sock, "-"))
			il_json_str(out, f->sock, SIZE_MAX);
		else
			fprintf(out, "null");
		/*
		 * A request's attempts (io_uring's from format 8, AIO's from
		 * format 9); null for a syscall or a fault.
		 */
		fprintf(out, ", \"uring\": ");
		if (iolayers_via_request(f->via)) {
			fprintf(out, "{");
			json_i64(out, "attempts", f->ur_attempts, 0);
			json_i64(out, "issue_ns", f->ur_issue_ns, 0);
			json_i64(out, "issue_offset_ns", f->ur_issue_off, 0);
			fprintf(out, "\"where\": ");
			if (strcmp(f->ur_where, "-"))
				il_json_str(out, f->ur_where, SIZE_MAX);
			else
				fprintf(out, "null");
			fprintf(out, "}");
		} else {
			fprintf(out, "null");
		}
		fprintf(out, ", \"offset_ns\": {");
		json_i64(out, "vfs", f->vfs_off, 0);
		json_i64(out, "fs", f->fs_off, 0);
		json_i64(out, "sock", f->sock_off, 0);
		json_i64(out, "tcp", f->tcp_off, 0);
		json_i64(out, "queue", f->queue_off, 0);
		json_i64(out, "issue", f->issue_off, 0);
		json_i64(out, "device_done", f->device_off, 0);
		json_i64(out, "done", f->done_off, 1);
		fprintf(out, "}}");
	}
	fprintf(out, "%s]", fl->n ? "\n  " : "");
}

/* -j: one strict JSON object (schema in Documentation/iolayers.rst, JSON). */
void il_view_json(FILE *out, const struct il_snapshot *s)
{
	struct il_hist h;
	int i, l, c;

	fprintf(out, "{\n  \"version\": ");
	il_json_str(out, s->version, SIZE_MAX);
	fprintf(out, ",\n  \"format\": %d,\n  \"filters\": {\"pid\": %d, \"comm\": ", s->format,
		s->pid);
	il_json_str(out, s->comm, SIZE_MAX);
	fprintf(out, ", \"children\": %s},\n  \"probes\": [", s->children ? "true" : "false");
	for (i = 0; i < s->nprobes; i++) {
		const struct il_probe *p = &s->probes[i];

		fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
		il_json_str(out, p->name, SIZE_MAX);
		fprintf(out, ", \"layer\": ");
		il_json_str(out, p->layer, SIZE_MAX);
		fprintf(out, ", \"kind\": ");
		il_json_str(out, p->kind, SIZE_MAX);
		fprintf(out, ", \"state\": ");
		il_json_str(out, p->state, SIZE_MAX);
		fprintf(out, ", \"hits\": %" PRIu64 ", ", p->hits);
		json_i64(out, "nmissed", p->nmissed, 0);
		json_i64(out, "calls", p->calls, 0);
		json_i64(out, "timed", p->timed, 0);
		json_i64(out, "timed_ns", p->timed_ns, 1);
		fprintf(out, "}");
	}
	fprintf(out, "\n  ],\n  \"counters\": {");
	for (i = 0; i < s->ncounters; i++) {
		fprintf(out, "%s\n    ", i ? "," : "");
		il_json_str(out, s->counters[i].name, SIZE_MAX);
		fprintf(out, ": %" PRIu64, s->counters[i].value);
	}
	fprintf(out, "\n  },\n  \"cache\": {");
	for (c = 0; c < IOLAYERS_NR_CACHE; c++)
		fprintf(out, "%s\"%s\": %" PRIu64, c ? ", " : "", il_cache_names[c],
			il_cache_reads(s, c));
	fprintf(out, "},\n  \"layers\": {");
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++) {
		fprintf(out, "%s\n    \"%s\": {\"all\": ", l ? "," : "", il_layer_names[l]);
		il_layer_hist(s, l, ~0U, &h);
		json_hist(out, &h);
		for (c = 0; c < IOLAYERS_NR_CACHE; c++) {
			fprintf(out, ",\n      \"%s\": ", il_cache_names[c]);
			json_hist(out, &s->hist[l][c]);
		}
		fprintf(out, "}");
	}
	fprintf(out, "\n  },\n  \"flows\": ");
	json_flows(out, &s->flows);
	fprintf(out, ",\n  \"slow\": ");
	json_flows(out, &s->slow);
	fprintf(out, "\n}\n");
}

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

static void prom_view(FILE *out, const struct il_snapshot *s, int om)
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
