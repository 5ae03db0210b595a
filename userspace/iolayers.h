/* SPDX-License-Identifier: GPL-2.0 */
/* iolayers reader: parsed forms of the module's debugfs files. */
#ifndef IOLAYERS_READER_H
#define IOLAYERS_READER_H

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
};

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
	char disk[IL_NAME_LEN];		/* of its first request, "-" if none */
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

/** struct il_flows - The parsed lines of `flows` or `slow`. */
struct il_flows {
	int n;
	struct il_flow *v;		/* malloc()ed, il_snapshot_free() */
};

/** struct il_snapshot - Everything read from one debugfs tree. */
struct il_snapshot {
	char version[IL_NAME_LEN];
	int format;
	int pid;
	char comm[IL_NAME_LEN];		/* comm filter, "" when off */
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
};

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
uint64_t il_hist_percentile(const struct il_hist *h, unsigned int pct);
/* The log2 bucket of a value, as the module's histograms count it. */
int il_bucket(uint64_t ns);
uint64_t il_bucket_lo(int i);
uint64_t il_bucket_hi(int i);

/* output.c: the views. */
const char *il_fmt_ns(char *buf, size_t len, double ns);
void il_layer_hist(const struct il_snapshot *s, int layer, unsigned int mask,
		   struct il_hist *out);
void il_reads_hist(const struct il_snapshot *s, unsigned int mask, struct il_hist *out);
uint64_t il_cache_reads(const struct il_snapshot *s, int cache);
void il_view_probes(FILE *out, const struct il_snapshot *s);
void il_view_cache_line(FILE *out, const struct il_snapshot *s);
void il_view_table(FILE *out, const struct il_snapshot *s, unsigned int mask);
/* The unit histograms are printed in (-H, -D): ns as bcc, us and ms as bpftrace. */
enum { IL_UNIT_NS, IL_UNIT_US, IL_UNIT_MS };
void il_print_log2_hist(FILE *out, const struct il_hist *h, const char *label, int unit);
void il_view_hist(FILE *out, const struct il_snapshot *s, unsigned int mask, int unit);
const struct il_flow *il_pick_flow(const struct il_flows *fl, uint64_t seq, int cache);
void il_view_timeline(FILE *out, const struct il_flow *f);
void il_view_slow(FILE *out, const struct il_flows *fl);
void il_view_files(FILE *out, const struct il_snapshot *s, int rows);
void il_view_disks(FILE *out, const struct il_snapshot *s, int unit);
void il_view_json(FILE *out, const struct il_snapshot *s);
void il_view_prometheus(FILE *out, const struct il_snapshot *s);
void il_view_openmetrics(FILE *out, const struct il_snapshot *s);
int il_view_svg(FILE *out, const struct il_snapshot *s, int max);
void il_snapshot_delta(struct il_snapshot *d, const struct il_snapshot *now,
		       const struct il_snapshot *before);

/* A recording read back (from.c). */
int il_parse_recording(FILE *f, struct il_snapshot *s, char *err, size_t errlen);

/* `iolayers record` (record.c): the exit status. */
int il_record_main(int argc, char **argv);
int il_set_param(const char *name, const char *value);
const char *il_params_dir(void);
void il_say_not_loaded(void);

#endif
