// SPDX-License-Identifier: GPL-2.0
/* iolayers reader: the one place that parses the module's debugfs files. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "iolayers.h"
#include "../include/uapi/iolayers.h"

const char *const il_layer_names[IOLAYERS_NR_LAYERS] = IOLAYERS_LAYER_NAMES;
const char *const il_cache_names[IOLAYERS_NR_CACHE] = IOLAYERS_CACHE_NAMES;

int il_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static struct il_probe *find_probe(struct il_snapshot *s, const char *name)
{
	int i;

	for (i = 0; i < s->nprobes; i++)
		if (!strcmp(s->probes[i].name, name))
			return &s->probes[i];
	return NULL;
}

int il_parse_version(FILE *f, struct il_snapshot *s, char *err, size_t errlen)
{
	char line[256];

	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, "iolayers %31s", s->version) != 1)
		return il_fail(err, errlen, "version: first line is not 'iolayers VERSION'");
	if (!fgets(line, sizeof(line), f) || sscanf(line, "format %d", &s->format) != 1)
		return il_fail(err, errlen, "version: second line is not 'format N'");
	/*
	 * Format 5 added the ERROR cache state, the disks' table and two
	 * columns of `flows`; format 6 columns of `flows` (the file, its
	 * device) and the stream's table in `stats`, and gave read() and
	 * readv() their file offset in pos; format 7 the socket reads'
	 * layers and columns, format 8 io_uring requests (the uring layer,
	 * the ur_* columns), format 9 Linux AIO requests (the aio layer)
	 * and page faults on a file's mapping (the fault layer). This
	 * reader reads them all.
	 */
	if (s->format < 4 || s->format > IOLAYERS_FORMAT_VERSION)
		return il_fail(err, errlen,
			    "debugfs format %d is not one this reader knows (4 to %d): use the reader built with the module",
			    s->format, IOLAYERS_FORMAT_VERSION);
	return 0;
}

int il_parse_layers(FILE *f, struct il_snapshot *s, char *err, size_t errlen)
{
	char line[256];
	int lineno = 0;

	s->nprobes = 0;
	while (fgets(line, sizeof(line), f)) {
		struct il_probe *p;
		char state[IL_NAME_LEN];
		int n, e = 0;

		if (++lineno == 1) {
			if (strncmp(line, "probe", 5))
				return il_fail(err, errlen, "layers: no header line");
			continue;
		}
		if (s->nprobes == IL_MAX_PROBES)
			return il_fail(err, errlen, "layers: more than %d probes", IL_MAX_PROBES);
		p = &s->probes[s->nprobes];
		memset(p, 0, sizeof(*p));
		p->nmissed = -1;
		p->calls = -1;
		p->timed = -1;
		p->timed_ns = -1;
		n = sscanf(line, "%31s %31s %31s %31[a-z]: %d", p->name, p->layer, p->kind,
			   state, &e);
		if (n < 4)
			return il_fail(err, errlen, "layers: line %d is garbled", lineno);
		memcpy(p->state, state, sizeof(state));
		p->err = n == 5 ? e : 0;
		s->nprobes++;
	}
	if (lineno == 0)
		return il_fail(err, errlen, "layers: empty");
	return 0;
}

/**
 * il_add_counter() - Add a counter to a snapshot.
 * @s: the snapshot
 * @name: its name (cut to IL_NAME_LEN - 1 bytes)
 * @value: its value
 *
 * Return: 0, or -1 when out of memory or past IL_MAX_COUNTERS.
 */
int il_add_counter(struct il_snapshot *s, const char *name, uint64_t value)
{
	struct il_counter *c;

	if (s->ncounters == s->counters_cap) {
		int cap = s->counters_cap ? 2 * s->counters_cap : 128;

		if (cap > IL_MAX_COUNTERS)
			return -1;
		c = realloc(s->counters, (size_t)cap * sizeof(*c));
		if (!c)
			return -1;
		s->counters = c;
		s->counters_cap = cap;
	}
	c = &s->counters[s->ncounters++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->value = value;
	return 0;
}

static int add_counter(struct il_snapshot *s, const char *prefix, const char *name,
		       uint64_t value, char *err, size_t errlen)
{
	char full[IL_NAME_LEN * 2 + 2];

	/* Each part is under IL_NAME_LEN (checked where parsed): the bound says so to gcc. */
	snprintf(full, sizeof(full), "%.*s%s%.*s", IL_NAME_LEN - 1, prefix, *prefix ? "_" : "",
		 IL_NAME_LEN - 1, name);
	if (il_add_counter(s, full, value))
		return il_fail(err, errlen, "stats: more than %d counters, or out of memory",
			       IL_MAX_COUNTERS);
	return 0;
}

/*
 * The part of `stats` after the probes, in blank-line separated sections:
 * a table (a `table` or `disk` header line naming the columns, then one
 * row per table or disk, stored as ROW_COLUMN counters) or `name value`
 * lines.
 */
static int parse_counters(FILE *f, struct il_snapshot *s, int lineno, char *err, size_t errlen)
{
	char line[512], cols[IL_MAX_COLS][IL_NAME_LEN], name[IL_NAME_LEN];
	int ncols = 0;	/* > 0 inside a table section */

	s->ncounters = 0;
	while (fgets(line, sizeof(line), f)) {
		char *tok, *save, *end;
		uint64_t v;
		int n;

		lineno++;
		tok = strtok_r(line, " \t\n", &save);
		if (!tok) {
			ncols = 0;
			continue;
		}
		if (strlen(tok) >= IL_NAME_LEN)
			return il_fail(err, errlen, "stats: line %d is garbled", lineno);
		/*
		 * format 5 added the disks' table, its header's first word
		 * "disk"; format 6 the stream's buffers' ("buffer")
		 */
		if (!strcmp(tok, "table") || !strcmp(tok, "disk") || !strcmp(tok, "buffer")) {
			for (ncols = 0; (tok = strtok_r(NULL, " \t\n", &save)); ncols++) {
				if (ncols == IL_MAX_COLS || strlen(tok) >= IL_NAME_LEN)
					return il_fail(err, errlen,
						    "stats: line %d: bad table header", lineno);
				strcpy(cols[ncols], tok);
			}
			continue;
		}
		strcpy(name, tok);
		for (n = 0; (tok = strtok_r(NULL, " \t\n", &save)); n++) {
			errno = 0;
			v = strtoull(tok, &end, 10);
			if (errno || *end || *tok == '-' || n >= (ncols ? ncols : 1))
				return il_fail(err, errlen, "stats: line %d is garbled", lineno);
			if (add_counter(s, ncols ? name : "", ncols ? cols[n] : name, v,
					err, errlen))
				return -1;
		}
		if (n != (ncols ? ncols : 1))
			return il_fail(err, errlen, "stats: line %d is garbled", lineno);
	}
	return 0;
}

int il_counter(const struct il_snapshot *s, const char *name, uint64_t *value)
{
	int i;

	for (i = 0; i < s->ncounters; i++) {
		if (!strcmp(s->counters[i].name, name)) {
			*value = s->counters[i].value;
			return 0;
		}
	}
	return -1;
}

static int name_index(const char *const *names, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

/* A decimal u64 that fits an int64_t, the whole token. */
static int parse_i64(const char *tok, int64_t *out)
{
	unsigned long long v;
	char *end;

	if (!tok || *tok < '0' || *tok > '9')
		return -1;
	errno = 0;
	v = strtoull(tok, &end, 10);
	if (errno || *end || v > INT64_MAX)
		return -1;
	*out = (int64_t)v;
	return 0;
}

/*
 * `stats`: "probe hits nmissed" and, from the self-accounting on, "calls
 * timed timed_ns avg_ns"; those are found by their header names, so the
 * format 4 files written before them still parse (they stay -1).
 */
int il_parse_stats(FILE *f, struct il_snapshot *s, char *err, size_t errlen)
{
	static const char *const opt_names[] = { "calls", "timed", "timed_ns" };
	int opt_col[3] = { -1, -1, -1 };
	char line[512];
	int lineno = 0, i;

	while (fgets(line, sizeof(line), f)) {
		char *tok[16], *save = NULL, *t;
		int ntok = 0;
		struct il_probe *p;
		int64_t hits, *opt[3];

		if (!strchr(line, '\n') && !feof(f))
			return il_fail(err, errlen, "stats: line %d is too long", lineno + 1);
		for (t = strtok_r(line, " \t\n", &save); t && ntok < 16;
		     t = strtok_r(NULL, " \t\n", &save))
			tok[ntok++] = t;
		if (++lineno == 1) {
			if (ntok < 3 || strcmp(tok[0], "probe"))
				return il_fail(err, errlen, "stats: no header line");
			for (i = 0; i < ntok; i++) {
				int k = name_index(opt_names, 3, tok[i]);

				if (k >= 0)
					opt_col[k] = i;
			}
			continue;
		}
		if (ntok == 0) {
			uint64_t cost;
			int j;

			if (parse_counters(f, s, lineno, err, errlen))
				return -1;
			/*
			 * Loaded without cost=1, the module counted no handler
			 * run: its zeros are "not measured", not "none".
			 */
			if (!il_counter(s, "cost", &cost) && !cost)
				for (j = 0; j < s->nprobes; j++)
					s->probes[j].calls = s->probes[j].timed =
						s->probes[j].timed_ns = -1;
			return 0;
		}
		if (ntok < 3 || parse_i64(tok[1], &hits))
			return il_fail(err, errlen, "stats: line %d is garbled", lineno);
		p = find_probe(s, tok[0]);
		if (!p)
			return il_fail(err, errlen, "stats: probe '%s' is not in layers", tok[0]);
		p->hits = (uint64_t)hits;
		if (strcmp(tok[2], "-") && parse_i64(tok[2], &p->nmissed))
			return il_fail(err, errlen, "stats: line %d: bad nmissed", lineno);
		opt[0] = &p->calls;
		opt[1] = &p->timed;
		opt[2] = &p->timed_ns;
		for (i = 0; i < 3; i++) {
			if (opt_col[i] < 0)
				continue;
			if (opt_col[i] >= ntok || parse_i64(tok[opt_col[i]], opt[i]))
				return il_fail(err, errlen, "stats: line %d: bad %s", lineno,
					    opt_names[i]);
		}
	}
	if (lineno == 0)
		return il_fail(err, errlen, "stats: empty");
	return 0;
}

int il_cache_index(const char *name)
{
	return name_index(il_cache_names, IOLAYERS_NR_CACHE, name);
}

static void hist_init(struct il_snapshot *s)
{
	int l, c;

	memset(s->hist, 0, sizeof(s->hist));
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++)
		for (c = 0; c < IOLAYERS_NR_CACHE; c++)
			s->hist[l][c].min_ns = UINT64_MAX;
}

/*
 * One bucket line "low high count" of `hist` or `rcv` into @h: the edges
 * of a log2 bucket, not seen before, its count within what @h->count
 * leaves after the @in counted so far (which it adds to). Returns 0, -1
 * for a garbled line, -2 for a bad bucket.
 */
static int parse_bucket(const char *line, struct il_hist *h, uint64_t *in)
{
	uint64_t lo, hi, n;
	char extra;
	int i;

	if (sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %c", &lo, &hi, &n, &extra) != 3)
		return -1;
	for (i = 0; i < IOLAYERS_HIST_BUCKETS; i++)
		if (lo == (i ? 1ULL << i : 0))
			break;
	if (i == IOLAYERS_HIST_BUCKETS ||
	    hi != (i == IOLAYERS_HIST_BUCKETS - 1 ? UINT64_MAX : (2ULL << i) - 1) ||
	    h->buckets[i] || !n || n > h->count - *in)
		return -2;
	h->buckets[i] = n;
	*in += n;
	return 0;
}

/*
 * `hist`: per (layer, cache state) with samples, a line
 * "layer L cache C count N sum_ns S min_ns M max_ns X bytes B", then
 * "low high count" per non-empty bucket. The bucket counts must add up.
 */
int il_parse_hist(FILE *f, struct il_snapshot *s, char *err, size_t errlen)
{
	char line[512], layer[IL_NAME_LEN], cache[IL_NAME_LEN], extra;
	struct il_hist *h = NULL, t = { 0 };
	uint64_t in = 0;
	int lineno = 0, l, c, i;

	hist_init(s);
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strncmp(line, "layer ", 6)) {
			if (h && in != h->count)
				return il_fail(err, errlen, "hist: buckets before line %d do not add up",
					    lineno);
			if (sscanf(line, "layer %31s cache %31s count %" SCNu64 " sum_ns %" SCNu64
				   " min_ns %" SCNu64 " max_ns %" SCNu64 " bytes %" SCNu64 " %c",
				   layer, cache, &t.count, &t.sum_ns, &t.min_ns, &t.max_ns, &t.bytes,
				   &extra) != 7 || !t.count || t.min_ns > t.max_ns)
				return il_fail(err, errlen, "hist: line %d is garbled", lineno);
			l = name_index(il_layer_names, IOLAYERS_NR_LAYERS, layer);
			c = il_cache_index(cache);
			if (l < 0 || c < 0)
				return il_fail(err, errlen, "hist: line %d: unknown layer or cache state",
					    lineno);
			h = &s->hist[l][c];
			if (h->count)
				return il_fail(err, errlen, "hist: line %d: %s/%s twice", lineno, layer,
					    cache);
			*h = t;
			in = 0;
			continue;
		}
		if (!h)
			return il_fail(err, errlen, "hist: line %d is garbled", lineno);
		i = parse_bucket(line, h, &in);
		if (i < 0)
			return il_fail(err, errlen, i == -1 ? "hist: line %d is garbled" :
				       "hist: line %d: bad bucket", lineno);
	}
	if (h && in != h->count)
		return il_fail(err, errlen, "hist: the last buckets do not add up");
	return 0;
}

/* Columns of `flows` the reader uses; others are ignored. */
enum col_kind { COL_U64, COL_I64, COL_STR, COL_CACHE, COL_INO };

static const struct {
	const char *name;
	enum col_kind kind;
	size_t off;
	int optional;	/* not in every format: "-" when absent */
} flow_cols[] = {
#define COL(n, k, field) { n, k, offsetof(struct il_flow, field), 0 }
	COL("seq", COL_U64, seq), COL("start_ns", COL_I64, start_ns), COL("tid", COL_I64, tid), COL("tgid", COL_I64, tgid),
	COL("comm", COL_STR, comm), COL("syscall", COL_STR, syscall), COL("fd", COL_I64, fd),
	COL("pos", COL_I64, pos), COL("req", COL_I64, req), COL("ret", COL_I64, ret),
	COL("cache", COL_CACHE, cache), COL("syscall_ns", COL_I64, lat[IOLAYERS_L_SYSCALL]),
	COL("vfs_ns", COL_I64, lat[IOLAYERS_L_VFS]), COL("fs_ns", COL_I64, lat[IOLAYERS_L_FS]),
	COL("queue_ns", COL_I64, lat[IOLAYERS_L_QUEUE]), COL("service_ns", COL_I64, lat[IOLAYERS_L_SERVICE]),
	COL("device_ns", COL_I64, lat[IOLAYERS_L_DEVICE]), COL("bios", COL_I64, bios),
	COL("rqs", COL_I64, rqs), COL("bio_bytes", COL_I64, bio_bytes),
	COL("rq_bytes", COL_I64, rq_bytes), COL("ra_bytes", COL_I64, ra_bytes),
	COL("requeues", COL_I64, requeues), COL("errors", COL_I64, errors),
	COL("vfs_off", COL_I64, vfs_off), COL("fs_off", COL_I64, fs_off),
	COL("queue_off", COL_I64, queue_off), COL("issue_off", COL_I64, issue_off),
	COL("device_off", COL_I64, device_off), COL("done_off", COL_I64, done_off),
	{ "disk", COL_STR, offsetof(struct il_flow, disk), 1 },	/* format 5 */
	{ "missed", COL_STR, offsetof(struct il_flow, missed), 1 },	/* format 5 */
	{ "ino", COL_INO, offsetof(struct il_flow, ino), 1 },	/* format 6 */
	{ "fs_dev", COL_STR, offsetof(struct il_flow, fs_dev), 1 },	/* format 6 */
	{ "dev", COL_STR, offsetof(struct il_flow, dev), 1 },	/* format 6 */
	{ "sock", COL_STR, offsetof(struct il_flow, sock), 1 },	/* format 7 */
	{ "sock_ns", COL_I64, offsetof(struct il_flow, lat[IOLAYERS_L_SOCK]), 1 },
	{ "tcp_ns", COL_I64, offsetof(struct il_flow, lat[IOLAYERS_L_TCP]), 1 },
	{ "wait_ns", COL_I64, offsetof(struct il_flow, lat[IOLAYERS_L_WAIT]), 1 },
	{ "sock_off", COL_I64, offsetof(struct il_flow, sock_off), 1 },
	{ "tcp_off", COL_I64, offsetof(struct il_flow, tcp_off), 1 },
	{ "ur_attempts", COL_I64, offsetof(struct il_flow, ur_attempts), 1 },	/* format 8 */
	{ "ur_issue_ns", COL_I64, offsetof(struct il_flow, ur_issue_ns), 1 },
	{ "ur_issue_off", COL_I64, offsetof(struct il_flow, ur_issue_off), 1 },
	{ "ur_where", COL_STR, offsetof(struct il_flow, ur_where), 1 },
#undef COL
};
#define NCOLS ((int)(sizeof(flow_cols) / sizeof(flow_cols[0])))
#define MAX_LINE_COLS 64

static int set_col(struct il_flow *fw, int col, const char *tok)
{
	char *p = (char *)fw + flow_cols[col].off, *end;
	long long v;

	switch (flow_cols[col].kind) {
	case COL_STR:
		if (strlen(tok) >= IL_NAME_LEN)
			return -1;
		strcpy(p, tok);
		return 0;
	case COL_CACHE:
		return (*(int *)p = il_cache_index(tok)) < 0 ? -1 : 0;
	default:
		if (!strcmp(tok, "-")) {
			*(int64_t *)p = -1;
			return 0;
		}
		errno = 0;
		if (flow_cols[col].kind == COL_INO) {
			unsigned long long u;

			if (*tok == '-')
				return -1;
			u = strtoull(tok, &end, 10);
			/*
			 * Past 2^63 (overlayfs's xino puts its layer in the
			 * top bits): no file seen, as a recording has it.
			 */
			*(int64_t *)p = u > INT64_MAX ? -1 : (int64_t)u;
		} else if (flow_cols[col].kind == COL_U64) {
			if (*tok == '-')
				return -1;
			*(uint64_t *)p = strtoull(tok, &end, 10);
		} else {
			v = strtoll(tok, &end, 10);
			*(int64_t *)p = v;
		}
		return errno || end == tok || *end ? -1 : 0;
	}
}

/*
 * A line's read issued otherwise than by a syscall (a request, its
 * syscall column "io_uring:READ" from format 8, "aio:PREAD" from format
 * 9; a page fault, "fault", from format 9): `flows` shows its whole
 * latency (submission to completion, a fault's entry to its return) in
 * syscall_ns; the reader keeps it in its kind's layer (uring, aio,
 * fault), as the module's histograms do, and never in the syscall layer.
 */
static void flow_via(struct il_flow *fw)
{
	fw->via = il_via_of(fw->syscall);
	if (fw->via != IOLAYERS_VIA_SYSCALL) {
		fw->lat[il_flow_top(fw)] = fw->lat[IOLAYERS_L_SYSCALL];
		fw->lat[IOLAYERS_L_SYSCALL] = -1;
	}
}

/* `flows`/`slow`: a header naming the columns, then one read() per line. */
int il_parse_flows(FILE *f, struct il_flows *fl, char *err, size_t errlen)
{
	int map[MAX_LINE_COLS], ncol = 0, lineno = 1, cap = 0, seen = 0, need = 0, i;
	char line[2048], *tok, *save;

	fl->n = 0;
	fl->v = NULL;
	if (!fgets(line, sizeof(line), f))
		return il_fail(err, errlen, "flows: empty");
	for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		if (ncol == MAX_LINE_COLS)
			return il_fail(err, errlen, "flows: too many columns");
		map[ncol] = -1;
		for (i = 0; i < NCOLS; i++)
			if (!strcmp(tok, flow_cols[i].name)) {
				map[ncol] = i;
				seen += !flow_cols[i].optional;
			}
		ncol++;
	}
	for (i = 0; i < NCOLS; i++)
		need += !flow_cols[i].optional;
	if (seen != need)
		return il_fail(err, errlen, "flows: header lacks columns this reader needs");
	while (fgets(line, sizeof(line), f)) {
		struct il_flow *fw;
		int n = 0;

		lineno++;
		if (!strchr(line, '\n') && !feof(f))
			return il_fail(err, errlen, "flows: line %d is too long", lineno);
		if (fl->n == cap) {
			struct il_flow *v;

			cap = cap ? 2 * cap : 256;
			v = realloc(fl->v, cap * sizeof(*v));
			if (!v)
				return il_fail(err, errlen, "flows: out of memory");
			fl->v = v;
		}
		fw = &fl->v[fl->n];
		memset(fw, 0, sizeof(*fw));
		strcpy(fw->disk, "-");	/* format 4: no disk or missed column */
		strcpy(fw->missed, "-");
		fw->ino = -1;		/* format 5: no file columns */
		strcpy(fw->fs_dev, "-");
		strcpy(fw->dev, "-");
		strcpy(fw->sock, "-");	/* format 6: no socket columns */
		fw->lat[IOLAYERS_L_SOCK] = fw->lat[IOLAYERS_L_TCP] = fw->lat[IOLAYERS_L_WAIT] = -1;
		fw->sock_off = fw->tcp_off = -1;
		/* format 7: no io_uring columns; no other kind's layer is a column */
		for (i = IOLAYERS_VIA_SYSCALL + 1; i < IL_NR_VIA; i++)
			fw->lat[iolayers_via_layer(i)] = -1;
		fw->ur_attempts = fw->ur_issue_ns = fw->ur_issue_off = -1;
		strcpy(fw->ur_where, "-");
		for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
			if (n == ncol || (map[n] >= 0 && set_col(fw, map[n], tok)))
				return il_fail(err, errlen, "flows: line %d is garbled", lineno);
			n++;
		}
		if (n != ncol)
			return il_fail(err, errlen, "flows: line %d is garbled", lineno);
		flow_via(fw);
		if (il_flow_check(fw))
			return il_fail(err, errlen, "flows: line %d: numbers no kernel writes",
				       lineno);
		fl->n++;
	}
	return 0;
}

static uint64_t fmap_hash(const char *fs_dev, int64_t ino)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)ino;	/* FNV-1a */

	for (; *fs_dev; fs_dev++)
		h = (h ^ (unsigned char)*fs_dev) * 1099511628211ULL;
	return h ^ (h >> 29);
}

/* The slot of (@fs_dev, @ino): its entry, or the empty one to take. */
static struct il_fmap_ent *fmap_slot(const struct il_fmap *m, const char *fs_dev, int64_t ino)
{
	size_t i = (size_t)fmap_hash(fs_dev, ino) & (m->cap - 1);

	while (m->v[i].idx >= 0 && (m->v[i].ino != ino || strcmp(m->v[i].fs_dev, fs_dev)))
		i = (i + 1) & (m->cap - 1);
	return &m->v[i];
}

/**
 * il_fmap_get() - The index kept for a file.
 * @m: the map
 * @fs_dev: its file system's major:minor
 * @ino: its inode number
 *
 * Return: the index, or -1 when there is none.
 */
int il_fmap_get(const struct il_fmap *m, const char *fs_dev, int64_t ino)
{
	return m->cap ? fmap_slot(m, fs_dev, ino)->idx : -1;
}

/**
 * il_fmap_put() - Keep an index for a file not in the map.
 * @m: the map
 * @fs_dev: its file system's major:minor (shorter than IL_NAME_LEN)
 * @ino: its inode number
 * @idx: the index (not negative)
 *
 * Return: 0, or -1 when out of memory.
 */
int il_fmap_put(struct il_fmap *m, const char *fs_dev, int64_t ino, int idx)
{
	struct il_fmap_ent *e;
	size_t i;

	if (strlen(fs_dev) >= IL_NAME_LEN)
		return -1;
	/* At most half full: short probe runs. */
	if (2 * (m->n + 1) > m->cap) {
		struct il_fmap old = *m;

		m->cap = old.cap ? 2 * old.cap : 64;
		m->v = malloc(m->cap * sizeof(*m->v));
		if (!m->v) {
			*m = old;
			return -1;
		}
		for (i = 0; i < m->cap; i++)
			m->v[i].idx = -1;
		for (i = 0; i < old.cap; i++)
			if (old.v[i].idx >= 0)
				*fmap_slot(m, old.v[i].fs_dev, old.v[i].ino) = old.v[i];
		free(old.v);
	}
	e = fmap_slot(m, fs_dev, ino);
	e->ino = ino;
	e->idx = idx;
	strcpy(e->fs_dev, fs_dev);
	m->n++;
	return 0;
}

/**
 * il_fmap_free() - Free a map's table; it is empty again.
 * @m: the map
 */
void il_fmap_free(struct il_fmap *m)
{
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/**
 * il_add_file() - Add a file to a snapshot's files (once per fs_dev, ino).
 * @fs: the files
 * @fs_dev: its file system's major:minor
 * @ino: its inode number
 * @path: its path
 *
 * Return: 0, or -1 when out of memory or a field is too long.
 */
int il_add_file(struct il_files *fs, const char *fs_dev, int64_t ino, const char *path)
{
	if (strlen(fs_dev) >= IL_NAME_LEN || strlen(path) >= IL_PATH_LEN)
		return -1;
	if (il_fmap_get(&fs->map, fs_dev, ino) >= 0)
		return 0;
	if (fs->n == fs->cap) {
		int ncap = fs->cap ? 2 * fs->cap : 64;
		struct il_file *v = ncap > 0 ? realloc(fs->v, (size_t)ncap * sizeof(*v)) : NULL;

		if (!v)
			return -1;
		fs->v = v;
		fs->cap = ncap;
	}
	if (il_fmap_put(&fs->map, fs_dev, ino, fs->n))
		return -1;
	strcpy(fs->v[fs->n].fs_dev, fs_dev);
	fs->v[fs->n].ino = ino;
	strcpy(fs->v[fs->n].path, path);
	fs->n++;
	return 0;
}

const char *il_file_path(const struct il_snapshot *s, const char *fs_dev, int64_t ino)
{
	int i = il_fmap_get(&s->files.map, fs_dev, ino);

	return i >= 0 ? s->files.v[i].path : NULL;
}

static int plausible(int64_t v, int64_t lo)
{
	return v >= lo && v < IL_MAX_PLAUSIBLE;
}

/**
 * il_flow_tops_ok() - Whether a flow's whole latency is where its kind's is.
 * @f: the flow, its via valid
 *
 * A syscall's is in the syscall layer, a request's or a fault's in its
 * own (uring, aio, fault; the syscall layer's -1 then); the other kinds'
 * layers are -1.
 *
 * Return: 1 when so, 0 when not.
 */
int il_flow_tops_ok(const struct il_flow *f)
{
	int v;

	for (v = 0; v < IL_NR_VIA; v++)
		if ((v == f->via) != (f->lat[iolayers_via_layer(v)] >= 0))
			return 0;
	return 1;
}

/**
 * il_flow_check() - Refuse a flow whose numbers no kernel writes.
 * @f: the flow, as parsed
 *
 * Times and offsets are nanoseconds below 2^62 (146 years), -1 where a
 * layer was not reached; a read's whole latency is its syscall's, or a
 * request's or a fault's in its layer (il_flow_tops_ok()); sizes and
 * counts below 2^62 bytes; ids within their kernel types (a fault's fd
 * -1). The views add and subtract these: within these bounds no sum
 * overflows.
 *
 * Return: 0, or -1.
 */
int il_flow_check(const struct il_flow *f)
{
	const int64_t offs[] = {
		f->vfs_off, f->fs_off, f->queue_off, f->issue_off, f->device_off, f->done_off,
		f->sock_off, f->tcp_off, f->ur_issue_ns, f->ur_issue_off,
	};
	const int64_t sizes[] = {
		f->req, f->bios, f->rqs, f->bio_bytes, f->rq_bytes, f->ra_bytes, f->requeues,
		f->errors,
	};
	size_t i;
	int l;

	if (f->via < 0 || f->via >= IL_NR_VIA || !il_flow_tops_ok(f) ||
	    f->ur_attempts < -1 || f->ur_attempts > UINT8_MAX)
		return -1;
	if (!plausible(f->start_ns, 0) || !plausible(il_flow_ns(f), 0) ||
	    f->tid < 0 || f->tid > INT32_MAX || f->tgid < 0 || f->tgid > INT32_MAX ||
	    f->fd < -1 || f->fd > INT32_MAX || f->pos < -1 || !plausible(f->ret, -4095) ||
	    f->ino < -1)
		return -1;
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++)
		if (!plausible(f->lat[l], -1))
			return -1;
	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
		if (!plausible(offs[i], -1))
			return -1;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (!plausible(sizes[i], 0))
			return -1;
	return 0;
}

/* `files` (format 6): "fs_dev ino path", then MAJ:MIN INO PATH (with blanks). */
int il_parse_files(FILE *f, struct il_snapshot *s, char *err, size_t errlen)
{
	char line[IL_PATH_LEN + 64], dev[IL_NAME_LEN];
	unsigned int ma, mi;
	int lineno = 1, n;
	unsigned long long ino;

	if (!fgets(line, sizeof(line), f) || strcmp(line, "fs_dev ino path\n"))
		return il_fail(err, errlen, "files: no header line");
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strchr(line, '\n'))
			return il_fail(err, errlen, "files: line %d is too long", lineno);
		line[strcspn(line, "\n")] = '\0';
		n = 0;
		/* The inode number unsigned, as the module prints it (digits only). */
		if (sscanf(line, "%u:%u %llu %n", &ma, &mi, &ino, &n) != 3 || !n || !line[n] ||
		    strchr(line, ' ')[1] < '0' || strchr(line, ' ')[1] > '9')
			return il_fail(err, errlen, "files: line %d is garbled", lineno);
		if (ino > INT64_MAX)
			continue;	/* its reads show no file (set_col()) */
		snprintf(dev, sizeof(dev), "%u:%u", ma, mi);
		if (il_add_file(&s->files, dev, (int64_t)ino, line + n))
			return il_fail(err, errlen, "files: line %d: out of memory or too long", lineno);
	}
	return 0;
}

typedef int (*il_parser)(FILE *, struct il_snapshot *, char *, size_t);

/* Is there a file @name under @root (one a newer module added)? */
static int il_has_file(const char *root, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", root, name);
	return access(path, F_OK) == 0;
}

static int parse_file(const char *root, const char *name, il_parser fn,
		      struct il_snapshot *s, char *err, size_t errlen)
{
	char path[4096];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	f = fopen(path, "r");
	if (!f)
		return il_fail(err, errlen, "%s: %s", path, strerror(errno));
	ret = fn(f, s, err, errlen);
	fclose(f);
	return ret;
}

static int parse_pid(FILE *f, struct il_snapshot *s, char *err, size_t errlen)
{
	if (fscanf(f, "%d", &s->pid) != 1)
		return il_fail(err, errlen, "pid: not a number");
	return 0;
}

static int parse_comm(FILE *f, struct il_snapshot *s, char *err, size_t errlen)
{
	char line[64];

	(void)err;
	(void)errlen;
	s->comm[0] = 0;
	if (fgets(line, sizeof(line), f) && sscanf(line, "%31s", s->comm) < 0)
		s->comm[0] = 0;
	return 0;
}

/* `cgroup` (the cgroup= setting's path; a module before it has none). */
static int parse_cgroup(FILE *f, struct il_snapshot *s, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	s->cgroup[0] = 0;
	if (fgets(s->cgroup, sizeof(s->cgroup), f))
		s->cgroup[strcspn(s->cgroup, "\n")] = 0;
	return 0;
}

static int parse_children(FILE *f, struct il_snapshot *s, char *err, size_t errlen)
{
	if (fscanf(f, "%d", &s->children) != 1)
		return il_fail(err, errlen, "children: not a number");
	return 0;
}

/*
 * `rcv` (format 7): "layer tcp_rcv count N sum_ns S min_ns M max_ns X",
 * then `hist`'s bucket lines, which must add up.
 */
static int parse_rcv(FILE *f, struct il_snapshot *s, char *err, size_t errlen)
{
	struct il_hist *h = &s->rcv;
	uint64_t in = 0;
	char line[512], extra;
	int i;

	memset(h, 0, sizeof(*h));
	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, "layer tcp_rcv count %" SCNu64 " sum_ns %" SCNu64 " min_ns %" SCNu64
		   " max_ns %" SCNu64 " %c", &h->count, &h->sum_ns, &h->min_ns, &h->max_ns,
		   &extra) != 4 || h->min_ns > h->max_ns)
		return il_fail(err, errlen, "rcv: the first line is garbled");
	while (fgets(line, sizeof(line), f)) {
		i = parse_bucket(line, h, &in);
		if (i < 0)
			return il_fail(err, errlen, i == -1 ? "rcv: a bucket line is garbled" :
				       "rcv: bad bucket");
	}
	if (in != h->count)
		return il_fail(err, errlen, "rcv: the buckets do not add up");
	if (!h->count)
		h->min_ns = UINT64_MAX;
	return 0;
}

static int parse_flows_file(FILE *f, struct il_snapshot *s, char *err, size_t errlen)
{
	return il_parse_flows(f, &s->flows, err, errlen);
}

static int parse_slow_file(FILE *f, struct il_snapshot *s, char *err, size_t errlen)
{
	return il_parse_flows(f, &s->slow, err, errlen);
}

int il_read_snapshot(const char *root, struct il_snapshot *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	hist_init(s);
	if (parse_file(root, IOLAYERS_FILE_VERSION, il_parse_version, s, err, errlen) ||
	    parse_file(root, IOLAYERS_FILE_LAYERS, il_parse_layers, s, err, errlen) ||
	    parse_file(root, IOLAYERS_FILE_STATS, il_parse_stats, s, err, errlen) ||
	    parse_file(root, IOLAYERS_FILE_PID, parse_pid, s, err, errlen) ||
	    parse_file(root, IOLAYERS_FILE_COMM, parse_comm, s, err, errlen) ||
	    parse_file(root, IOLAYERS_FILE_CHILDREN, parse_children, s, err, errlen) ||
	    (il_has_file(root, IOLAYERS_FILE_CGROUP) &&
	     parse_file(root, IOLAYERS_FILE_CGROUP, parse_cgroup, s, err, errlen)) ||
	    parse_file(root, IOLAYERS_FILE_HIST, il_parse_hist, s, err, errlen) ||
	    parse_file(root, IOLAYERS_FILE_FLOWS, parse_flows_file, s, err, errlen) ||
	    parse_file(root, IOLAYERS_FILE_SLOW, parse_slow_file, s, err, errlen) ||
	    (s->format >= 6 &&
	     parse_file(root, IOLAYERS_FILE_FILES, il_parse_files, s, err, errlen)) ||
	    (s->format >= 7 && parse_file(root, IOLAYERS_FILE_RCV, parse_rcv, s, err, errlen))) {
		il_snapshot_free(s);
		return -1;
	}
	if (il_model_sum_flows(s)) {
		il_fail(err, errlen, "out of memory");
		il_snapshot_free(s);
		return -1;
	}
	return 0;
}

void il_snapshot_free(struct il_snapshot *s)
{
	il_model_free(s);
	free(s->flows.v);
	free(s->slow.v);
	free(s->files.v);
	il_fmap_free(&s->files.map);
	free(s->counters);
	s->counters = NULL;
	s->ncounters = s->counters_cap = 0;
	s->flows.v = s->slow.v = NULL;
	s->files.v = NULL;
	s->flows.n = s->slow.n = s->files.n = s->files.cap = 0;
	s->flows.cap = s->slow.cap = 0;
}

