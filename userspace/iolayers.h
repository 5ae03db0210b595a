/* SPDX-License-Identifier: GPL-2.0 */
/* iolayers reader: parsed forms of the module's debugfs files. */
#ifndef IOLAYERS_READER_H
#define IOLAYERS_READER_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "../include/uapi/iolayers.h"

#define IL_MAX_PROBES	64
#define IL_NAME_LEN	32

/** struct il_probe - One line of `layers` joined with its line of `stats`. */
struct il_probe {
	char name[IL_NAME_LEN];
	char layer[IL_NAME_LEN];
	char kind[IL_NAME_LEN];
	char state[IL_NAME_LEN];	/* attached, missing, failed, detached */
	int err;			/* errno of a failed or missing probe */
	uint64_t hits;
	int64_t nmissed;		/* -1 where the probe has no such counter */
	/* Self-accounting (stats' calls, timed, timed_ns); -1 when not shown. */
	int64_t calls;			/* handler runs */
	int64_t timed;			/* of which timed (one in 64) */
	int64_t timed_ns;		/* their total time */
};

/* stats grows with CPUs and disks: counters are allocated, up to this many. */
#define IL_MAX_COUNTERS	(1 << 20)
#define IL_MAX_COLS	16

/**
 * struct il_counter - A `name value` line of `stats`, or one cell of its
 * tables named TABLE_COLUMN (e.g. task_entries, bio_stale).
 */
struct il_counter {
	char name[IL_NAME_LEN];
	uint64_t value;
};

/* Layers and cache states: enum iolayers_layer and iolayers_cache (uapi). */
extern const char *const il_layer_names[IOLAYERS_NR_LAYERS];
extern const char *const il_cache_names[IOLAYERS_NR_CACHE];

/** struct il_hist - One (layer, cache state) histogram of `hist`, in ns. */
struct il_hist {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t min_ns;		/* UINT64_MAX when empty */
	uint64_t max_ns;
	uint64_t bytes;
	uint64_t buckets[IOLAYERS_HIST_BUCKETS];	/* bucket i: [2^i, 2^(i+1)), 0: [0, 2) */
	/*
	 * A recording's p50, p90 and p99 from its fine histograms (il_fine,
	 * within IL_FINE_ERR_PCT of the exact value), when @exact; 0: the
	 * module's, interpolated inside a log2 bucket.
	 */
	int exact;
	uint64_t pct[3];
};

/*
 * A recording holds every read's latency: its percentiles come from
 * histograms fine enough to be exact to within 0.4 % (il_fine_bucket()):
 * below 256 ns one bucket per nanosecond, from there 128 per power of
 * two, so a bucket is at most 1/128 of its values wide and its midpoint
 * at most 1/256 (0.39 %) off any of them. 7,424 buckets, 58 KiB, per
 * layer and cache state that has reads, whatever their number.
 */
#define IL_FINE_SUB_BITS	7
#define IL_FINE_LINEAR		256
#define IL_FINE_BUCKETS		(IL_FINE_LINEAR + (64 - 8) * (1 << IL_FINE_SUB_BITS))
#define IL_FINE_ERR_PCT		"0.4"

/** struct il_fine - A fine latency histogram of a recording. */
struct il_fine {
	uint64_t b[IL_FINE_BUCKETS];
};

int il_fine_bucket(uint64_t ns);
uint64_t il_fine_mid(int i);

/** struct il_flow - One line of `flows` or `slow`; -1 where "-". */
struct il_flow {
	uint64_t seq;
	int64_t start_ns;		/* sys_enter, CLOCK_MONOTONIC ns */
	int64_t tid, tgid;
	char comm[IL_NAME_LEN];
	char syscall[IL_NAME_LEN];
	int64_t fd, pos, req, ret;
	int cache;			/* IOLAYERS_C_HIT... */
	int64_t lat[IOLAYERS_NR_LAYERS];	/* ns per layer */
	int64_t bios, rqs, bio_bytes, rq_bytes, ra_bytes, requeues, errors;
	int64_t vfs_off, fs_off, queue_off, issue_off, device_off, done_off;
	char disk[IL_NAME_LEN + 2];	/* of its first request ("+": more), "-" if none */
	char missed[IL_NAME_LEN];	/* layers that lost an event, "-" if none */
	/* Format 6: the file (-1 and "-" when not seen or not shown). */
	int64_t ino;
	char fs_dev[IL_NAME_LEN];	/* its file system's major:minor */
	char dev[IL_NAME_LEN];		/* its first request's disk's major:minor */
	/* Format 7: a socket read's kind ("-": none) and layer entries. */
	char sock[IL_NAME_LEN];
	int64_t sock_off, tcp_off;
	/*
	 * Format 8: how it was issued (enum iolayers_via, from its syscall
	 * column: "io_uring:" names an io_uring request, format 9's "aio:"
	 * a Linux AIO one and "fault" a page fault on a file's mapping;
	 * il_via_of()). Another kind's whole latency is in its own layer
	 * (iolayers_via_layer(): lat[IOLAYERS_L_URING], lat[IOLAYERS_L_AIO]
	 * or lat[IOLAYERS_L_FAULT]), lat[IOLAYERS_L_SYSCALL] -1; a syscall's
	 * the other way round. A request's (iolayers_via_request()) attempts,
	 * their time summed, the first one's start after the submission (-1
	 * when none or not a request), where they ran ("inline,iowq"; "-").
	 */
	int via;
	int64_t ur_attempts, ur_issue_ns, ur_issue_off;
	char ur_where[IL_NAME_LEN];
};

/*
 * The ways a read is issued that this reader knows: enum iolayers_via's
 * first values, each named (iolayers_via_prefix(), but the syscall's). A
 * record of another way (a newer module's, unnamed here) is read as a
 * syscall's (il_via()).
 */
#define IL_NR_VIA	(IOLAYERS_VIA_FAULT + 1)

static inline unsigned int il_via(unsigned int via)
{
	return via < IL_NR_VIA ? via : IOLAYERS_VIA_SYSCALL;
}

/*
 * How the read a syscall column names was issued: a request's column is
 * its iolayers_via_prefix(), a colon and its opcode ("io_uring:READ",
 * "aio:PREAD"); a fault's is its prefix alone ("fault"); anything else is
 * a syscall's.
 */
static inline int il_via_of(const char *syscall)
{
	int v;

	for (v = IOLAYERS_VIA_SYSCALL + 1; v < IL_NR_VIA; v++) {
		const char *prefix = iolayers_via_prefix(v);
		size_t n = strlen(prefix);

		if (!strncmp(syscall, prefix, n) &&
		    syscall[n] == (iolayers_via_request(v) ? ':' : '\0'))
			return v;
	}
	return IOLAYERS_VIA_SYSCALL;
}

/*
 * The layer that holds a flow's whole latency (sys_enter to sys_exit, a
 * request's submission to its completion, a fault's entry to its last
 * return): what the per-read views sort by and put at the end of its
 * timeline.
 */
static inline int il_flow_top(const struct il_flow *f)
{
	return iolayers_via_layer(f->via);
}

static inline int64_t il_flow_ns(const struct il_flow *f)
{
	return f->lat[il_flow_top(f)];
}

/* Whether layer @l is some kind of read's whole latency (iolayers_via_layer()). */
static inline int il_is_top(int l)
{
	int v;

	for (v = 0; v < IL_NR_VIA; v++)
		if (iolayers_via_layer(v) == l)
			return 1;
	return 0;
}

#define IL_PATH_LEN	512

/** struct il_file - A line of `files` (format 6): a file and its path. */
struct il_file {
	char fs_dev[IL_NAME_LEN];
	int64_t ino;
	char path[IL_PATH_LEN];
};

/** struct il_files - The files followed reads read. */
/*
 * (fs_dev, ino) to an index, open addressing: the files of a recording
 * (every file a database touches) and --files' per-file sums are found in
 * constant time, not by a scan per read.
 */
struct il_fmap_ent {
	int64_t ino;
	int idx;			/* -1: empty */
	char fs_dev[IL_NAME_LEN];
};

struct il_fmap {
	size_t cap, n;			/* cap: 0 or a power of two */
	struct il_fmap_ent *v;		/* malloc()ed, il_fmap_free() */
};

int il_fmap_get(const struct il_fmap *m, const char *fs_dev, int64_t ino);
int il_fmap_put(struct il_fmap *m, const char *fs_dev, int64_t ino, int idx);
void il_fmap_free(struct il_fmap *m);

struct il_files {
	int n, cap;
	struct il_file *v;		/* malloc()ed, il_snapshot_free() */
	struct il_fmap map;		/* into v */
};

/**
 * struct il_fsum - One file's reads summed (--files): its first read's
 *	file, the reads, their bytes, those of a file system (not "other")
 *	and of them the HITs, each layer's time.
 */
struct il_fsum {
	char fs_dev[IL_NAME_LEN];
	int64_t ino;
	int64_t reads, hits, files;
	uint64_t bytes;
	double ns[IOLAYERS_NR_LAYERS];
};

/** struct il_fsums - Per file sums, found by (fs_dev, ino). */
struct il_fsums {
	int n, cap;
	struct il_fsum *v;		/* malloc()ed, il_snapshot_free() */
	struct il_fmap map;		/* into v */
	int64_t dropped;		/* reads of files past IL_MAX_FSUMS */
};

/* Files --files sums at most (a recording's memory is bounded by them). */
#define IL_MAX_FSUMS	(1 << 20)

/** struct il_dsum - One disk's queue, service and device histograms (-D). */
struct il_dsum {
	char name[IL_NAME_LEN];
	struct il_hist h[3];
};

/** struct il_dsums - Per disk histograms, by its first request's disk name. */
struct il_dsums {
	int n;
	struct il_dsum *v;		/* malloc()ed, il_snapshot_free() */
	int64_t dropped;		/* reads of disks past IL_MAX_DSUMS */
};

#define IL_MAX_DSUMS	256

/** struct il_flows - The parsed lines of `flows` or `slow`. */
struct il_flows {
	int n, cap;
	struct il_flow *v;		/* malloc()ed, il_snapshot_free() */
};

/** struct il_snapshot - Everything read from one debugfs tree. */
struct il_snapshot {
	char version[IL_NAME_LEN];
	int format;
	int pid;
	char comm[IL_NAME_LEN];		/* comm filter, "" when off */
	char cgroup[4096 + 16];		/* cgroup filter's path, "" when off or not shown */
	int children;
	int nprobes;
	struct il_probe probes[IL_MAX_PROBES];
	int ncounters, counters_cap;
	struct il_counter *counters;	/* malloc()ed, il_snapshot_free() */
	struct il_hist hist[IOLAYERS_NR_LAYERS][IOLAYERS_NR_CACHE];
	struct il_flows flows;
	struct il_flows slow;
	struct il_files files;
	struct il_hist rcv;		/* format 7: the TCP receive path, per segment */
	int recording;			/* read from a recording (--from) */
	/*
	 * A recording's damage: where reading stopped and why, a missing
	 * trailer, one that does not count the lines before it; "" if none.
	 */
	char warning[320];
	/*
	 * -p: only this process's reads (their tgid) in the flows, and in a
	 * recording's histograms; 0: all. Set before the snapshot is read.
	 */
	int64_t view_pid;
	/*
	 * The per-read views' sums (--files, -D) of the reads the per-read
	 * views show (-p, -c: @view_cache_mask, a bit per state; 0 every
	 * state): built from `flows` live
	 * (il_model_sum_flows()), read by read from a recording, which keeps
	 * only the reads its view needs (@keep).
	 */
	unsigned int view_cache_mask;
	struct il_fsums fsums;
	struct il_dsums dsums;
	int64_t view_reads;		/* reads summed there */
	/*
	 * A recording: which reads it keeps in @flows (enum il_keep; @keep_n
	 * of them, or the one with @keep_seq), and whether @slow too; its
	 * lost records (@no_slow: not @slow, for a view without it); its wall-clock anchor (CLOCK_REALTIME minus the
	 * records' CLOCK_MONOTONIC, ns; 0: none); its fine histograms.
	 */
	int keep, keep_n, keep_next, no_slow, slow_next;
	int slow_max;			/* the newest slow reads kept; 0: IL_MAX_SLOW */
	int64_t slow_dropped;		/* older slow reads not kept */
	uint64_t keep_seq;
	int64_t slow_ns;		/* the recording's slow_us, in ns */
	int64_t rec_lost;
	int64_t rec_reads;		/* every read of the recording */
	int64_t realtime_off;
	int binary;			/* a binary recording */
	/*
	 * --from REC INTERVAL: the reads that ended in each interval (of
	 * @interval_ns, aligned to the wall clock) given to @on_interval as
	 * the snapshot, @rec_reads and @rec_lost then the interval's, once
	 * its last read is past; the model starts again empty after it.
	 */
	int64_t interval_ns, ival_reads, ival_lost;
	uint64_t ival_end;		/* 0: none yet */
	void (*on_interval)(const struct il_snapshot *s, int64_t end_ns);
	struct il_heat *heat;		/* --heatmap: its grid, filled read by read */
	struct il_perfetto *perfetto;	/* --perfetto: the trace, written read by read */
	struct il_fine *fine[IOLAYERS_NR_LAYERS][IOLAYERS_NR_CACHE];
};

/* The slow reads a recording keeps at most for --slow: the newest. */
#define IL_MAX_SLOW	10000

/**
 * enum il_keep - The reads a recording read keeps, for its view.
 * @IL_KEEP_ALL: every one (the tests' parsers)
 * @IL_KEEP_NONE: none: the table, -H, --files, -D, Prometheus
 * @IL_KEEP_SLOWEST: the @keep_n slowest: -t, --svg
 * @IL_KEEP_NEWEST: the @keep_n newest: -j, as the module's flows
 * @IL_KEEP_SEQ: the one with @keep_seq: -f
 */
enum il_keep {
	IL_KEEP_ALL,
	IL_KEEP_NONE,
	IL_KEEP_SLOWEST,
	IL_KEEP_NEWEST,
	IL_KEEP_SEQ,
};

/*
 * heatmap.c: --heatmap, a grid of IL_HEAT_COLS columns of time (each
 * @width_ns from @t0, CLOCK_MONOTONIC) by IL_HEAT_ROWS rows of latency
 * (il_heat_row()) per layer and cache state.
 */
#define IL_HEAT_COLS	720
#define IL_HEAT_ROWS	128

/** struct il_heat_panel - One layer's and cache state's grid: reads per cell. */
struct il_heat_panel {
	uint32_t cell[IL_HEAT_COLS][IL_HEAT_ROWS];
	uint64_t count;
};

/** struct il_heat - A recording's heatmap: its columns, its panels (NULL: no read). */
struct il_heat {
	int64_t width_ns, t0;
	int ncols;
	struct il_heat_panel *p[IOLAYERS_NR_LAYERS][IOLAYERS_NR_CACHE];
};

int il_heat_row(uint64_t ns);
int il_heat_add(struct il_heat *h, const struct il_flow *f, int64_t realtime_off);
void il_heat_free(struct il_heat *h);
int il_view_heatmap(FILE *out, const struct il_snapshot *s);

/* perfetto.c: --perfetto, Chrome's JSON trace events, which Perfetto opens. */
struct il_perfetto;
struct il_perfetto *il_perfetto_open(FILE *out);
int il_perfetto_read(struct il_perfetto *p, const struct il_flow *f);
void il_perfetto_lost(struct il_perfetto *p, int64_t n);
void il_perfetto_close(struct il_perfetto *p);

/* model.c: the reads into the model, the model's histograms. */
int il_model_add(struct il_snapshot *s, const struct il_flow *f);
void il_model_finish(struct il_snapshot *s);
void il_model_lost(struct il_snapshot *s, int64_t n);
int il_model_sum_flows(struct il_snapshot *s);
void il_model_free(struct il_snapshot *s);
void il_hist_range(const struct il_snapshot *s, unsigned int lmask, unsigned int cmask,
		   struct il_hist *out);

/*
 * JSON text (jsonw.c): il_put* store at p and return the end (no NUL);
 * strings are escaped, bytes outside printable ASCII as \u00XX (a comm
 * or path need not be UTF-8), at most IL_JSON_STR_MAX(len) bytes.
 */
#define IL_JSON_STR_MAX(len) (6 * (len) + 2)
char *il_put(char *p, const char *lit);
char *il_put_u64(char *p, uint64_t v);
char *il_put_i64(char *p, int64_t v);
char *il_put_str(char *p, const char *s, size_t max);
void il_json_str(FILE *out, const char *s, size_t max);
int il_json_bytes_to(char *buf, size_t len, const char *s);

/* escape.c: strings for a terminal and for XML. */
#define IL_TERM_LEN(len) (4 * (len) + 1)
char *il_term_str(char *dst, size_t size, const char *src);
char *il_term_pad(char *dst, size_t size, const char *src, int width);
void il_xml_str(FILE *out, const char *src, size_t max);

int il_preflight(const char *root, FILE *out);

/* Write an error message for the parsers; returns -1. */
int il_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int il_parse_version(FILE *f, struct il_snapshot *s, char *err, size_t errlen);
int il_parse_layers(FILE *f, struct il_snapshot *s, char *err, size_t errlen);
int il_parse_stats(FILE *f, struct il_snapshot *s, char *err, size_t errlen);
int il_counter(const struct il_snapshot *s, const char *name, uint64_t *value);
int il_add_counter(struct il_snapshot *s, const char *name, uint64_t value);
int il_parse_hist(FILE *f, struct il_snapshot *s, char *err, size_t errlen);
int il_parse_flows(FILE *f, struct il_flows *fl, char *err, size_t errlen);
int il_parse_files(FILE *f, struct il_snapshot *s, char *err, size_t errlen);
int il_add_file(struct il_files *fs, const char *fs_dev, int64_t ino, const char *path);
/* A flow whose numbers no kernel writes (a damaged or hostile file): -1. */
int il_flow_check(const struct il_flow *f);
/* Its whole latency in its top layer, every other read's top layer -1: 1. */
int il_flow_tops_ok(const struct il_flow *f);
/* The largest time, offset or size a flow's field may hold: 2^62. */
#define IL_MAX_PLAUSIBLE	((int64_t)1 << 62)
const char *il_file_path(const struct il_snapshot *s, const char *fs_dev, int64_t ino);
int il_read_snapshot(const char *root, struct il_snapshot *s, char *err, size_t errlen);
void il_snapshot_free(struct il_snapshot *s);
int il_cache_index(const char *name);
/*
 * Sums of a histogram's counts, nanoseconds and bytes stop at UINT64_MAX:
 * a saved tree or a recording can hold any number, and a sum that wrapped
 * would print a small one.
 */
static inline uint64_t il_sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

void il_hist_merge(struct il_hist *into, const struct il_hist *h);
void il_fmt_wall(char *buf, size_t len, int64_t ns, int64_t off, const char *fmt);
uint64_t il_hist_percentile(const struct il_hist *h, unsigned int pct);
uint64_t il_pct_rank(uint64_t count, unsigned int pct);
/* The log2 bucket of a value, as the module's histograms count it. */
int il_bucket(uint64_t ns);
uint64_t il_bucket_lo(int i);
uint64_t il_bucket_hi(int i);

/* snapshot.c: a snapshot's sums the views print, a flow to draw, interval deltas. */
void il_layer_hist(const struct il_snapshot *s, int layer, unsigned int mask,
		   struct il_hist *out);
void il_reads_hist(const struct il_snapshot *s, unsigned int mask, struct il_hist *out);
uint64_t il_cache_reads(const struct il_snapshot *s, int cache);
const struct il_flow *il_pick_flow(const struct il_flows *fl, uint64_t seq, int cache);
void il_snapshot_delta(struct il_snapshot *d, const struct il_snapshot *now,
		       const struct il_snapshot *before);

/* views/: the views, a file each; one time formatter (common.c) for all. */
const char *il_fmt_ns(char *buf, size_t len, double ns);
void il_view_probes(FILE *out, const struct il_snapshot *s);
void il_view_cache_line(FILE *out, const struct il_snapshot *s);
void il_view_table(FILE *out, const struct il_snapshot *s, unsigned int mask);
/* The unit histograms are printed in (-H, -D): ns as bcc, us and ms as bpftrace. */
enum { IL_UNIT_NS, IL_UNIT_US, IL_UNIT_MS };
void il_print_log2_hist(FILE *out, const struct il_hist *h, const char *label, int unit);
void il_view_hist(FILE *out, const struct il_snapshot *s, unsigned int mask, int unit);
void il_view_timeline(FILE *out, const struct il_flow *f);
void il_view_slow(FILE *out, const struct il_flows *fl);
void il_view_files(FILE *out, const struct il_snapshot *s, int rows);
void il_view_disks(FILE *out, const struct il_snapshot *s, int unit);
void il_view_json(FILE *out, const struct il_snapshot *s);
void il_view_prometheus(FILE *out, const struct il_snapshot *s);
void il_view_openmetrics(FILE *out, const struct il_snapshot *s);

/**
 * struct il_exporter - what `iolayers serve` adds to each scrape.
 * @up: the module's files were read
 * @seconds: the scrape's time, reading and formatting
 * @scrapes: scrapes answered, this one included
 * @failed: of those, how many could not read the module
 * @timeouts: connections closed at the timeout
 */
struct il_exporter {
	int up;
	double seconds;
	uint64_t scrapes, failed, timeouts;
};

void il_view_prom_body(FILE *out, const struct il_snapshot *s, int om);
void il_view_prom_exporter(FILE *out, int om, const struct il_exporter *e);
int il_view_svg(FILE *out, const struct il_snapshot *s, int max);

/* A recording read back (from.c). */
int il_parse_recording(FILE *f, struct il_snapshot *s, char *err, size_t errlen);

/*
 * A binary recording (`iolayers record`'s default): struct il_recfile_head,
 * its header object as JSON (the JSON lines recording's first line, less
 * its newline), zeros to a multiple of 8 bytes, then records framed as
 * stream/raw's (struct iolayers_rec_hdr): the module's as it gave them
 * (its start record first), then the recorder's own: a file's path per
 * file read (IL_REC_FILE), the trailer (IL_REC_END). Little-endian.
 */
#define IL_RECFILE_MAGIC	"\x89IOLREC\n"
#define IL_RECFILE_VERSION	1
#define IL_RECFILE_MAX_JSON	(1 << 20)

/** struct il_recfile_head - The first bytes of a binary recording. */
struct il_recfile_head {
	char magic[8];			/* IL_RECFILE_MAGIC, no NUL */
	uint32_t version;		/* IL_RECFILE_VERSION */
	uint32_t json_len;		/* the header object's bytes */
};

/* The recorder's record types: apart from the module's enum iolayers_rec_type. */
enum {
	IL_REC_FILE = 0x4001,
	IL_REC_END = 0x4002,
};

/**
 * struct il_rec_file - A file's path: a line of the module's `files`.
 * @hdr: IL_REC_FILE; @hdr.size covers the path and its padding
 * @fs_major: its file system's device, major
 * @fs_minor: and minor
 * @ino: its inode number
 * @path_len: the path's bytes after this struct (no NUL)
 * @pad: zero
 */
struct il_rec_file {
	struct iolayers_rec_hdr hdr;
	uint32_t fs_major;
	uint32_t fs_minor;
	uint64_t ino;
	uint32_t path_len;
	uint32_t pad;
};

/**
 * struct il_rec_end - The trailer: what the recording holds, and the
 *	clocks at its end.
 * @hdr: IL_REC_END
 * @reads: read records before it
 * @lost: records the module said lost
 * @realtime_ns: CLOCK_REALTIME at the end
 * @monotonic_ns: CLOCK_MONOTONIC then
 */
struct il_rec_end {
	struct iolayers_rec_hdr hdr;
	uint64_t reads;
	uint64_t lost;
	uint64_t realtime_ns;
	uint64_t monotonic_ns;
};

/* The size of a read's record before format 7 added its socket part. */
#define IL_REC_READ_V6 offsetof(struct iolayers_rec_read, sock_ns)

/* recbin.c: a module's read record, as this reader's struct, and as a flow. */
char *il_recfile_json(FILE *f, const struct il_recfile_head *head, char *err, size_t errlen);
int il_rec_read_get(unsigned int type, const void *p, size_t size, struct iolayers_rec_read *r);

/* Is a record of this type a read's (full or brief)? */
static inline int il_rec_is_read(unsigned int type)
{
	return type == IOLAYERS_REC_READ || type == IOLAYERS_REC_BRIEF;
}

/* The fewest bytes a read's record of this type has (il_rec_read_get()). */
static inline size_t il_rec_read_min(unsigned int type)
{
	return type == IOLAYERS_REC_BRIEF ? sizeof(struct iolayers_rec_brief) : IL_REC_READ_V6;
}
int il_flow_from_rec(const struct iolayers_rec_read *r, struct il_flow *f);

/**
 * struct il_rec_walk - A walk over a binary recording's records, after
 *	its header (il_rec_walk()): what each kind of record goes to, and
 *	what the walk found.
 * @ctx: the callbacks' own
 * @read: a read's record, as the full one (il_rec_read_get())
 * @lost: a loss's record: @count records of CPU @cpu lost
 * @start: the module's start record (NULL, as @end: nothing to do)
 * @file: a file's record, its path @fr->path_len bytes at @path (not
 *	NUL-terminated)
 * @end: the trailer
 *	Each callback returns 0, 1 when the record makes no sense (its
 *	words in @damage: the walk stops there), -1 when out of memory.
 * @reads: the reads walked (each read's record the walk checked)
 * @nlost: the records they say were lost
 * @unknown: records of types this reader does not know, skipped
 * @ended: the trailer was walked
 * @damage: NULL, or what is wrong at byte @where (the walk stopped)
 * @where: that byte of the file, or, with no damage, where the walk ended
 */
struct il_rec_walk {
	void *ctx;
	int (*read)(struct il_rec_walk *w, const struct iolayers_rec_read *r);
	int (*lost)(struct il_rec_walk *w, uint32_t cpu, uint64_t count);
	int (*start)(struct il_rec_walk *w, const struct iolayers_rec_start *st);
	int (*file)(struct il_rec_walk *w, const struct il_rec_file *fr, const char *path);
	int (*end)(struct il_rec_walk *w, const struct il_rec_end *e);
	int64_t reads, nlost, where;
	int unknown, ended;
	const char *damage;
};

int il_rec_walk(FILE *f, int64_t base, struct il_rec_walk *w);

/* `iolayers record` (record.c): the exit status. */
int il_record_main(int argc, char **argv);
int il_recording_json_lines(FILE *in, FILE *out, char *err, size_t errlen);
/* --set-cgroup and --unit (target.c). */
int il_cgroup2_mount(char *buf, size_t len);
int il_cgroup_target(const char *arg, int unit, char *out, size_t len);
/* `iolayers serve` (serve.c): the exit status. */
int il_serve_main(int argc, char **argv);
int il_set_param(const char *name, const char *value);
const char *il_params_dir(void);
void il_say_not_loaded(void);

#endif
