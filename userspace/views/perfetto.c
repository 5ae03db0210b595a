// SPDX-License-Identifier: GPL-2.0
/*
 * --perfetto FILE: a recording as a trace that ui.perfetto.dev and
 * Perfetto's trace processor open (Chrome's JSON trace-event format,
 * which both read): a track per process and thread; each read() or page
 * fault a slice on its thread with its layers nested inside (VFS, FS,
 * SOCK, TCP, the wait for data), each io_uring or AIO request an async
 * slice of its own (a thread has many in flight, which a thread's
 * slices cannot show) with its first attempt's issue inside; the block
 * and device time, which runs in other contexts, as slices on a track
 * per disk, joined to their read by a flow arrow; lost records as
 * instant events. Written read by read as the recording is read:
 * nothing is kept but the names of the threads and disks already named.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "../iolayers.h"

/* Disks with tracks, and lanes (tracks) per disk. */
#define PF_DISKS	64
#define PF_LANES	32

/* The process whose threads are the disks' tracks, and the stream's own. */
#define PF_DISKS_PID	0x7ffffff0
#define PF_STREAM_PID	0x7ffffff1

/*
 * Tracks already named: an open-addressed table of (pid, tid) pairs, each
 * with the end of the last read() slice put on the thread.
 */
struct pf_track {
	uint64_t key;		/* pid << 32 | tid, + 1; 0 empty */
	int64_t end;
};

struct pf_named {
	size_t cap, n;
	struct pf_track *v;
};

/** struct il_perfetto - A trace being written. */
struct il_perfetto {
	FILE *out;
	struct pf_named named;
	char disks[PF_DISKS][IL_NAME_LEN];
	int ndisks;
	/*
	 * A disk's lanes, each a track of slices that start after the last
	 * one's end: a disk's requests overlap, a track's slices may not.
	 */
	int64_t lane_end[PF_DISKS][PF_LANES];
	int64_t dropped;	/* disk slices past every lane */
	uint64_t flow_id;
	int64_t last_ns;	/* the last read's end: where a loss is shown */
	int first;		/* no event written yet */
};

static size_t pf_slot(const struct pf_track *v, size_t cap, uint64_t key)
{
	size_t i = (size_t)(key * 0x9e3779b97f4a7c15ULL) & (cap - 1);

	while (v[i].key && v[i].key != key)
		i = (i + 1) & (cap - 1);
	return i;
}

/*
 * The track of (@pid, @tid); *@fresh set when it is new (to be named).
 * NULL: out of memory.
 */
static struct pf_track *pf_track(struct pf_named *s, uint32_t pid, uint32_t tid, int *fresh)
{
	uint64_t key = ((uint64_t)pid << 32 | tid) + 1;
	size_t i, j;

	if (s->n * 2 >= s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct pf_track *v = calloc(cap, sizeof(*v));

		if (!v)
			return NULL;
		for (j = 0; j < s->cap; j++)
			if (s->v[j].key)
				v[pf_slot(v, cap, s->v[j].key)] = s->v[j];
		free(s->v);
		s->v = v;
		s->cap = cap;
	}
	i = pf_slot(s->v, s->cap, key);
	*fresh = !s->v[i].key;
	if (*fresh) {
		s->v[i].key = key;
		s->v[i].end = INT64_MIN;
		s->n++;
	}
	return &s->v[i];
}

/* An event's start: its comma after the one before. */
static void pf_next(struct il_perfetto *p)
{
	fputs(p->first ? "\n" : ",\n", p->out);
	p->first = 0;
}

/* A time in the format's microseconds, to the nanosecond. */
static void pf_us(FILE *out, const char *key, int64_t ns)
{
	fprintf(out, ", \"%s\": %" PRId64 ".%03d", key, ns / 1000, (int)(ns % 1000));
}

/* A track's name (a metadata event): @what "process_name" or "thread_name". */
static void pf_name(struct il_perfetto *p, const char *what, uint32_t pid, uint32_t tid,
		    const char *name, size_t max)
{
	pf_next(p);
	fprintf(p->out, "{\"ph\": \"M\", \"name\": \"%s\", \"pid\": %" PRIu32 ", \"tid\": %" PRIu32
		", \"args\": {\"name\": ", what, pid, tid);
	il_json_str(p->out, name, max);
	fputs("}}", p->out);
}

/* A complete slice [@ns, @ns + @dur] on (@pid, @tid). */
static void pf_slice(struct il_perfetto *p, uint32_t pid, uint32_t tid, const char *name,
		     int64_t ns, int64_t dur, const struct il_flow *f)
{
	pf_next(p);
	fputs("{\"ph\": \"X\", \"name\": ", p->out);
	il_json_str(p->out, name, IL_NAME_LEN);
	fprintf(p->out, ", \"pid\": %" PRIu32 ", \"tid\": %" PRIu32, pid, tid);
	pf_us(p->out, "ts", ns);
	pf_us(p->out, "dur", dur);
	if (f)
		fprintf(p->out, ", \"args\": {\"id\": %" PRIu64 ", \"cache\": \"%s\", \"ret\": %"
			PRId64 "}", f->seq, il_cache_names[f->cache], f->ret);
	fputc('}', p->out);
}

/* An async slice's begin or end (@ph "b" or "e"), id the read's. */
static void pf_async(struct il_perfetto *p, const char *ph, const struct il_flow *f,
		     const char *name, int64_t ns)
{
	pf_next(p);
	fprintf(p->out, "{\"ph\": \"%s\", \"cat\": \"read\", \"id\": %" PRIu64 ", \"name\": ",
		ph, f->seq);
	il_json_str(p->out, name, IL_NAME_LEN);
	fprintf(p->out, ", \"pid\": %" PRIu32 ", \"tid\": %" PRIu32, (uint32_t)f->tgid,
		(uint32_t)f->tid);
	pf_us(p->out, "ts", ns);
	if (*ph == 'b' && name == f->syscall) {
		fprintf(p->out, ", \"args\": {\"id\": %" PRIu64 ", \"cache\": \"%s\", \"ret\": %"
			PRId64 "}", f->seq, il_cache_names[f->cache], f->ret);
	}
	fputc('}', p->out);
}

/* A flow arrow's end (@ph "s" on the read, "f" on the disk), at @ns. */
static void pf_flow(struct il_perfetto *p, const char *ph, uint64_t id, uint32_t pid,
		    uint32_t tid, int64_t ns)
{
	pf_next(p);
	fprintf(p->out, "{\"ph\": \"%s\", \"cat\": \"io\", \"name\": \"request\", \"id\": %" PRIu64
		", \"pid\": %" PRIu32 ", \"tid\": %" PRIu32 "%s", ph, id, pid, tid,
		*ph == 'f' ? ", \"bp\": \"e\"" : "");
	pf_us(p->out, "ts", ns);
	fputc('}', p->out);
}

/* The track of the disk a read's first request went to; -1: none, or past 64 disks. */
static int pf_disk(struct il_perfetto *p, const struct il_flow *f)
{
	size_t len = strcspn(f->disk, "+");
	int d;

	if (f->rqs <= 0 || !strcmp(f->disk, "-"))
		return -1;
	for (d = 0; d < p->ndisks; d++)
		if (strlen(p->disks[d]) == len && !strncmp(p->disks[d], f->disk, len))
			return d;
	if (p->ndisks == PF_DISKS || len >= IL_NAME_LEN)
		return -1;
	memcpy(p->disks[d], f->disk, len);
	p->disks[d][len] = '\0';
	p->ndisks++;
	for (int i = 0; i < PF_LANES; i++)
		p->lane_end[d][i] = INT64_MIN;
	return d;
}

/* The lane of disk @d a slice [@from, @to] fits after; its track, or 0: none fits. */
static uint32_t pf_lane(struct il_perfetto *p, int d, int64_t from, int64_t to)
{
	int i;

	for (i = 0; i < PF_LANES; i++)
		if (p->lane_end[d][i] <= from) {
			char name[IL_NAME_LEN + 16];

			if (p->lane_end[d][i] == INT64_MIN) {
				snprintf(name, sizeof(name), "%s #%d", p->disks[d], i);
				pf_name(p, "thread_name", PF_DISKS_PID,
					(uint32_t)(d * PF_LANES + i + 1), name, sizeof(name));
			}
			p->lane_end[d][i] = to;
			return (uint32_t)(d * PF_LANES + i + 1);
		}
	p->dropped++;
	return 0;
}

/**
 * il_perfetto_open() - A trace's start.
 * @out: where it goes
 *
 * Return: the trace, or NULL when out of memory.
 */
struct il_perfetto *il_perfetto_open(FILE *out)
{
	struct il_perfetto *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->out = out;
	p->first = 1;
	fputs("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [", out);
	pf_name(p, "process_name", PF_DISKS_PID, 0, "disks (iolayers: block and device time)",
		SIZE_MAX);
	pf_name(p, "process_name", PF_STREAM_PID, 0, "iolayers stream", SIZE_MAX);
	return p;
}

/**
 * il_perfetto_read() - A read's events.
 * @p: the trace
 * @f: the read
 *
 * Return: 0, or -1 when out of memory.
 */
int il_perfetto_read(struct il_perfetto *p, const struct il_flow *f)
{
	static const struct {
		int layer;
		const char *name;
	} inner[] = {
		{ IOLAYERS_L_VFS, "vfs" }, { IOLAYERS_L_FS, "fs" }, { IOLAYERS_L_SOCK, "sock" },
		{ IOLAYERS_L_TCP, "tcp" },
	};
	int64_t ns = il_flow_ns(f), start = f->start_ns, q, d0;
	const int64_t offs[4] = { f->vfs_off, f->fs_off, f->sock_off, f->tcp_off };
	uint32_t pid = (uint32_t)f->tgid, tid = (uint32_t)f->tid, lane;
	struct pf_track *t;
	int fresh, i, disk, arrow, sync;

	if (!pf_track(&p->named, pid, 0, &fresh))
		return -1;
	if (fresh)
		pf_name(p, "process_name", pid, 0, f->comm, IL_NAME_LEN);
	t = pf_track(&p->named, pid, tid, &fresh);
	if (!t)
		return -1;
	if (fresh)
		pf_name(p, "thread_name", pid, tid, f->comm, IL_NAME_LEN);
	/*
	 * A read() is a slice of its thread's track, after the one before it
	 * there; requests overlap on their thread, a fault may overlap a
	 * read(), and a read() whose record says it overlaps the last (no
	 * kernel writes that) would break the track's nesting: async slices.
	 */
	sync = f->via == IOLAYERS_VIA_SYSCALL && start >= t->end;
	if (sync)
		t->end = start + ns;
	if (!sync) {
		pf_async(p, "b", f, f->syscall, start);
		if (f->ur_issue_off >= 0 && f->ur_issue_ns >= 0 &&
		    f->ur_issue_off + f->ur_issue_ns <= ns) {
			pf_async(p, "b", f, "issue", start + f->ur_issue_off);
			pf_async(p, "e", f, "issue", start + f->ur_issue_off + f->ur_issue_ns);
		}
		pf_async(p, "e", f, f->syscall, start + ns);
	} else {
		int64_t from = 0, to = ns;

		pf_slice(p, pid, tid, f->syscall, start, ns, f);
		/*
		 * Each layer from its entry to its end, inside the one before
		 * (its end clipped to that one's: separate clock reads).
		 */
		for (i = 0; i < 4; i++) {
			int64_t lat = f->lat[inner[i].layer], end;

			if (offs[i] < from || lat < 0 || offs[i] > to)
				continue;
			end = offs[i] + lat < to ? offs[i] + lat : to;
			pf_slice(p, pid, tid, inner[i].name, start + offs[i], end - offs[i], NULL);
			from = offs[i];
			to = end;
		}
	}
	if (start + ns > p->last_ns)
		p->last_ns = start + ns;
	disk = pf_disk(p, f);
	if (disk < 0 || (f->queue_off < 0 && f->issue_off < 0))
		return 0;
	/* The longest request's times on the disk's track, the arrow from the read to them. */
	q = f->queue_off >= 0 ? f->queue_off : f->issue_off;
	d0 = f->done_off >= 0 ? f->done_off : q;
	if (d0 < q)
		return 0;
	lane = pf_lane(p, disk, start + q, start + d0);
	if (!lane)
		return 0;
	/* The arrow from a read()'s slice (requests and faults are async: none). */
	arrow = sync && q <= ns;
	p->flow_id += arrow;
	if (arrow)
		pf_flow(p, "s", p->flow_id, pid, tid, start + q);
	pf_slice(p, PF_DISKS_PID, lane, f->syscall, start + q, d0 - q, f);
	if (arrow)
		pf_flow(p, "f", p->flow_id, PF_DISKS_PID, lane, start + q);
	if (f->issue_off >= q && f->lat[IOLAYERS_L_SERVICE] >= 0 &&
	    f->issue_off + f->lat[IOLAYERS_L_SERVICE] <= d0) {
		pf_slice(p, PF_DISKS_PID, lane, "service", start + f->issue_off,
			 f->lat[IOLAYERS_L_SERVICE], NULL);
		if (f->device_off >= 0 && f->lat[IOLAYERS_L_DEVICE] >= 0 &&
		    f->device_off - f->lat[IOLAYERS_L_DEVICE] >= f->issue_off &&
		    f->device_off <= f->issue_off + f->lat[IOLAYERS_L_SERVICE])
			pf_slice(p, PF_DISKS_PID, lane, "device",
				 start + f->device_off - f->lat[IOLAYERS_L_DEVICE],
				 f->lat[IOLAYERS_L_DEVICE], NULL);
	}
	return 0;
}

/**
 * il_perfetto_lost() - Records the recording lost: an instant event on the
 *	stream's track, where the last read ended.
 * @p: the trace
 * @n: how many
 */
void il_perfetto_lost(struct il_perfetto *p, int64_t n)
{
	pf_next(p);
	fprintf(p->out, "{\"ph\": \"i\", \"s\": \"g\", \"name\": \"lost %" PRId64 " records\", "
		"\"pid\": %d, \"tid\": 0", n, PF_STREAM_PID);
	pf_us(p->out, "ts", p->last_ns);
	fputc('}', p->out);
}

/**
 * il_perfetto_close() - A trace's end; @p freed.
 * @p: the trace
 */
void il_perfetto_close(struct il_perfetto *p)
{
	if (p->dropped) {
		pf_next(p);
		fprintf(p->out, "{\"ph\": \"i\", \"s\": \"g\", \"name\": \"%" PRId64 " block "
			"slices left out: more than %d requests at once on a disk\", \"pid\": %d, "
			"\"tid\": 0", p->dropped, PF_LANES, PF_STREAM_PID);
		pf_us(p->out, "ts", p->last_ns);
		fputc('}', p->out);
	}
	fputs("\n]}\n", p->out);
	free(p->named.v);
	free(p);
}
