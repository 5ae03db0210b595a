// SPDX-License-Identifier: GPL-2.0
/* iolayers reader: -t and -f, the timeline of one read as a tree. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "../iolayers.h"

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
