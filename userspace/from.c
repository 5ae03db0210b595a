// SPDX-License-Identifier: GPL-2.0
/*
 * iolayers --from FILE: a recording (`iolayers record`: binary, or JSON
 * lines with --json) read back, read by read, into the model the live
 * views print (model.c): every read (a read-family syscall, an io_uring
 * or AIO read request, a page fault on a file's mapping) a flow, added to
 * the histograms exactly as the module adds its own (one sample per layer
 * the read reached, log2 buckets), to the fine histograms of the exact
 * percentiles, to the per-file and per-disk sums, kept if the view needs
 * it; the slow reads those at least the recording's slow_us, the files'
 * paths from its file records. JSON is parsed by jansson.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "iolayers.h"
#include "flatjson.h"

/* An integer member; null gives @null_value; anything else is an error. */
static int get_i64(json_t *o, const char *key, int null_ok, int64_t null_value, int64_t *out)
{
	json_t *v = json_object_get(o, key);

	if (v && json_is_integer(v)) {
		*out = json_integer_value(v);
		return 0;
	}
	if (null_ok && v && json_is_null(v)) {
		*out = null_value;
		return 0;
	}
	return -1;
}

static int get_str(json_t *o, const char *key, int null_ok, char *buf, size_t len,
		   const char *null_value)
{
	json_t *v = json_object_get(o, key);
	const char *s;

	if (null_ok && v && json_is_null(v))
		s = null_value;
	else if (v && json_is_string(v))
		s = json_string_value(v);
	else
		return -1;
	if (strlen(s) >= len)
		return -1;
	strcpy(buf, s);
	return 0;
}

/* A flat object's integer member; null gives @null_value; anything else is an error. */
static int fj_i64(struct il_fj *o, const char *key, int null_ok, int64_t null_value, int64_t *out)
{
	const struct il_fj_val *v = il_fj_get(o, key);

	if (v && v->type == IL_FJ_INT) {
		*out = v->i;
		return 0;
	}
	if (null_ok && v && v->type == IL_FJ_NULL) {
		*out = null_value;
		return 0;
	}
	return -1;
}

static int fj_str(struct il_fj *o, const char *key, int null_ok, char *buf, size_t len,
		  const char *null_value)
{
	const struct il_fj_val *v = il_fj_get(o, key);
	const char *s;

	if (null_ok && v && v->type == IL_FJ_NULL)
		s = null_value;
	else if (v && v->type == IL_FJ_STR)
		s = v->s;
	else
		return -1;
	return il_json_bytes_to(buf, len, s);
}

/* An array of names, comma-separated into @buf ("-" for none); -1 if not one or too long. */
static int fj_names(const struct il_fj_val *v, char *buf, size_t len)
{
	const char *name = v->s;
	size_t at = 0, k;
	int i;

	if (v->type != IL_FJ_ARR)
		return -1;
	for (i = 0; i < v->n; i++, name = il_fj_next_str(name)) {
		k = strlen(name);
		if (at + k + 2 > len)
			return -1;
		if (i)
			buf[at++] = ',';
		memcpy(buf + at, name, k);
		at += k;
	}
	if (!v->n)
		buf[at++] = '-';
	buf[at] = '\0';
	return 0;
}

/*
 * A request's columns (io_uring's from format 8, AIO's from format 9):
 * ur_attempts, ur_issue_ns, ur_issue_off (null: none, or a syscall's) and
 * ur_where (an array of IOLAYERS_URING_WHERE_NAMES, null for a syscall)
 * into @f; -1 and "-" when absent (older records). Return: 0, or -1 for
 * a bad value.
 */
static int from_req(struct il_fj *o, struct il_flow *f)
{
	const struct il_fj_val *where;

	f->ur_attempts = f->ur_issue_ns = f->ur_issue_off = -1;
	strcpy(f->ur_where, "-");
	if (!il_fj_get(o, "ur_attempts"))
		return 0;
	if (fj_i64(o, "ur_attempts", 1, -1, &f->ur_attempts) ||
	    fj_i64(o, "ur_issue_ns", 1, -1, &f->ur_issue_ns) ||
	    fj_i64(o, "ur_issue_off", 1, -1, &f->ur_issue_off))
		return -1;
	where = il_fj_get(o, "ur_where");
	if (where && where->type == IL_FJ_NULL)
		return 0;
	return where ? fj_names(where, f->ur_where, sizeof(f->ur_where)) : -1;
}

/* Each layer's member, "syscall_ns" to "fault_ns": made once. */
static const char *lat_key(int l)
{
	static char keys[IOLAYERS_NR_LAYERS][IL_NAME_LEN + 4];

	if (!keys[l][0])
		snprintf(keys[l], sizeof(keys[l]), "%s_ns", il_layer_names[l]);
	return keys[l];
}

/*
 * One read's object into @f. Return: 0,
 * 1 for a read of another process than @s->view_pid (left out), -1 for
 * an object that is not a read's, -2 for a read whose numbers no kernel
 * writes (il_flow_check()).
 */
static int from_read(struct il_fj *o, struct il_snapshot *s, struct il_flow *f)
{
	static const char *const offs[] = {
		"vfs_off", "fs_off", "queue_off", "issue_off", "device_off", "done_off",
	};
	int64_t *offv[] = {
		&f->vfs_off, &f->fs_off, &f->queue_off, &f->issue_off, &f->device_off, &f->done_off,
	};
	int64_t seq = 0, ndisks = 0, pos = 0, ret = 0;
	const struct il_fj_val *missed;
	char cache[IL_NAME_LEN];
	size_t i;
	int l, bad = 0;

	memset(f, 0, sizeof(*f));
	bad |= fj_i64(o, "seq", 0, 0, &seq) || seq < 0;
	f->seq = (uint64_t)seq;
	bad |= fj_i64(o, "start_ns", 0, 0, &f->start_ns);
	bad |= fj_i64(o, "tid", 0, 0, &f->tid) | fj_i64(o, "tgid", 0, 0, &f->tgid);
	bad |= fj_str(o, "comm", 0, f->comm, sizeof(f->comm), NULL);
	bad |= fj_str(o, "syscall", 0, f->syscall, sizeof(f->syscall), NULL);
	bad |= fj_i64(o, "fd", 0, 0, &f->fd) | fj_i64(o, "pos", 0, 0, &pos);
	bad |= fj_i64(o, "req", 0, 0, &f->req) | fj_i64(o, "ret", 0, 0, &ret);
	f->pos = pos;
	f->ret = ret;
	bad |= fj_str(o, "cache", 0, cache, sizeof(cache), NULL);
	if (bad)
		return -1;
	f->cache = il_cache_index(cache);
	if (f->cache < 0)
		return -1;
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++) {
		/*
		 * The socket layers are not in format 6's records, the uring
		 * layer not in format 7's, the aio layer not in format 8's,
		 * the fault layer not in the first format 9 recorder's.
		 */
		f->lat[l] = -1;
		if (l >= IOLAYERS_L_SOCK && !il_fj_get(o, lat_key(l)))
			continue;
		if (fj_i64(o, lat_key(l), 1, -1, &f->lat[l]) || f->lat[l] < -1)
			return -1;
	}
	/*
	 * A request or a fault has its whole latency in its layer's member
	 * (an io_uring request's in uring_ns from format 8, an AIO one's in
	 * aio_ns and a fault's in fault_ns from format 9), syscall_ns null; a
	 * syscall the other way round.
	 */
	f->via = il_via_of(f->syscall);
	if (!il_flow_tops_ok(f) || from_req(o, f))
		return -1;
	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
		if (fj_i64(o, offs[i], 1, -1, offv[i]))
			return -1;
	if (fj_i64(o, "bios", 0, 0, &f->bios) || fj_i64(o, "rqs", 0, 0, &f->rqs) ||
	    fj_i64(o, "bio_bytes", 0, 0, &f->bio_bytes) ||
	    fj_i64(o, "rq_bytes", 0, 0, &f->rq_bytes) ||
	    fj_i64(o, "ra_bytes", 0, 0, &f->ra_bytes) ||
	    fj_i64(o, "requeues", 0, 0, &f->requeues) ||
	    fj_i64(o, "errors", 0, 0, &f->errors) || fj_i64(o, "ndisks", 0, 0, &ndisks) ||
	    fj_str(o, "disk", 1, f->disk, IL_NAME_LEN, "-"))
		return -1;
	if (f->rq_bytes < 0 || f->bio_bytes < 0)
		return -1;
	if (ndisks > 1)
		strcat(f->disk, "+");
	strcpy(f->sock, "-");
	f->sock_off = f->tcp_off = -1;
	if (il_fj_get(o, "sock") &&	/* format 7 */
	    (fj_str(o, "sock", 1, f->sock, sizeof(f->sock), "-") ||
	     fj_i64(o, "sock_off", 1, -1, &f->sock_off) ||
	     fj_i64(o, "tcp_off", 1, -1, &f->tcp_off)))
		return -1;
	if (fj_i64(o, "ino", 1, -1, &f->ino) ||
	    fj_str(o, "fs_dev", 1, f->fs_dev, sizeof(f->fs_dev), "-") ||
	    fj_str(o, "dev", 1, f->dev, sizeof(f->dev), "-"))
		return -1;
	missed = il_fj_get(o, "missed");
	if (!missed || fj_names(missed, f->missed, sizeof(f->missed)))
		return -1;
	if (il_flow_check(f))
		return -2;
	if (s->view_pid && f->tgid != s->view_pid)
		return 1;
	return 0;
}

/*
 * The header object (a JSON recording's first line, a binary one's after
 * its magic): the module's version and settings, and the wall-clock
 * anchor of recordings from the first binary recorder on ("clock": the
 * CLOCK_REALTIME and CLOCK_MONOTONIC read together at the start).
 */
static int from_header(json_t *o, struct il_snapshot *s, const char *where, char *err,
		       size_t errlen)
{
	json_t *st = json_object_get(o, "settings"), *clk = json_object_get(o, "clock");
	char buf[IL_NAME_LEN], module[IL_NAME_LEN * 2];
	int64_t v, fmt, rt, mono;
	char *end;

	if (get_i64(o, "iolayers_record", 0, 0, &v) || v != 1 || !json_is_object(st) ||
	    get_i64(o, "format", 0, 0, &fmt) || get_str(o, "module", 0, module, sizeof(module), NULL))
		return il_fail(err, errlen, "%s is not an iolayers recording's header", where);
	s->format = (int)fmt;
	if (sscanf(module, "iolayers %31s", s->version) != 1)
		snprintf(s->version, sizeof(s->version), "?");
	if (!get_str(st, "pid", 0, buf, sizeof(buf), NULL))
		s->pid = atoi(buf);
	if (json_is_string(json_object_get(st, "comm")))
		il_json_bytes_to(s->comm, sizeof(s->comm),
				 json_string_value(json_object_get(st, "comm")));
	if (json_is_string(json_object_get(st, "cgroup")))
		il_json_bytes_to(s->cgroup, sizeof(s->cgroup),
				 json_string_value(json_object_get(st, "cgroup")));
	if (!get_str(st, "children", 0, buf, sizeof(buf), NULL))
		s->children = atoi(buf);
	s->slow_ns = 10000000;
	/* "" where the recorder could not read it: the default. */
	if (!get_str(st, "slow_us", 0, buf, sizeof(buf), NULL) && buf[0]) {
		errno = 0;
		v = strtoll(buf, &end, 10);
		if (errno || *end || v < 0 || v > INT64_MAX / 1000)
			return il_fail(err, errlen, "%s: bad slow_us '%s'", where, buf);
		s->slow_ns = v * 1000;
	}
	/* An anchor no clock gives (before 1970, past 2116) is none. */
	if (json_is_object(clk) && !get_i64(clk, "realtime_ns", 0, 0, &rt) &&
	    !get_i64(clk, "monotonic_ns", 0, 0, &mono) && rt > mono && mono >= 0 &&
	    rt < IL_MAX_PLAUSIBLE)
		s->realtime_off = rt - mono;
	return 0;
}

/* Note @fmt in @s->warning, after what is there. */
static void __attribute__((format(printf, 2, 3))) warn(struct il_snapshot *s, const char *fmt, ...)
{
	size_t len = strlen(s->warning);
	va_list ap;

	if (len && len + 2 < sizeof(s->warning)) {
		strcpy(s->warning + len, "; ");
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(s->warning + len, sizeof(s->warning) - len, fmt, ap);
	va_end(ap);
}

/* What reading a recording found, for the warnings both kinds give. */
struct from_state {
	int64_t reads, lost;
	int unknown, ended;
	const char *damage;
	char where[48];		/* of the damage: "line N (byte B)", "byte B" */
};

/* A read of the recording into the model: 0, or -1 when out of memory. */
static int from_flow(struct il_snapshot *s, struct from_state *st, const struct il_flow *f)
{
	st->reads++;
	if (s->view_pid && f->tgid != s->view_pid)
		return 0;	/* another process's (-p) */
	return il_model_add(s, f);
}

/* A count of lost records: -1 for one no kernel writes. */
static int from_lost(struct il_snapshot *s, struct from_state *st, int64_t v)
{
	if (v < 0 || v >= IL_MAX_PLAUSIBLE - st->lost)
		return -1;
	st->lost += v;
	il_model_lost(s, v);
	return 0;
}

/*
 * A read's line, flat, into the model: 0, 1 when it is damaged (reading
 * stops), -1 when out of memory.
 */
static int from_line_read(struct il_snapshot *s, struct from_state *st, struct il_fj *fj)
{
	struct il_flow fw;
	int r = from_read(fj, s, &fw);

	if (r < 0) {
		st->damage = r == -1 ? "not a read's record" :
			     "a read with numbers no kernel writes";
		return 1;
	}
	if (r) {
		st->reads++;	/* another process's (-p) */
		return 0;
	}
	return from_flow(s, st, &fw) ? -1 : 0;
}

/* A JSON lines recording, after its first byte was peeked. */
static int from_json_lines(FILE *f, struct il_snapshot *s, struct from_state *st, char *err,
			   size_t errlen)
{
	struct il_fj fj = { 0 };
	int lineno = 0, r;
	int64_t v, off = 0, at = 0;
	char *line = NULL;
	size_t len = 0;
	ssize_t n;
	int ret = -1;

	for (; (n = getline(&line, &len, f)) > 0; off += n) {
		json_error_t jerr;
		json_t *o;

		lineno++;
		at = off;
		snprintf(st->where, sizeof(st->where), "line %d (byte %lld)", lineno,
			 (long long)at);
		if (strspn(line, " \t\r\n") == (size_t)n)
			continue;	/* a blank line (an editor's last newline) */
		if (st->ended) {
			st->damage = "a line after the trailer";
			break;
		}
		/* A read's line: the flat parser first, jansson for what it does not take. */
		if (lineno > 1 && !il_fj_parse(&fj, line, (size_t)n) && il_fj_get(&fj, "seq"))
			goto a_read;
		o = json_loadb(line, (size_t)n, JSON_REJECT_DUPLICATES | JSON_DISABLE_EOF_CHECK, &jerr);
		if (!o || !json_is_object(o)) {
			json_decref(o);
			if (lineno == 1) {
				il_fail(err, errlen, "line 1 is not a JSON object: %s",
					o ? "another value" : jerr.text);
				goto out;
			}
			st->damage = line[n - 1] == '\n' ? "not a JSON object" :
				     "cut short (no end of line)";
			break;
		}
		if (lineno == 1) {
			r = from_header(o, s, "line 1", err, errlen);
			json_decref(o);
			if (r)
				goto out;
			continue;
		} else if (json_object_get(o, "seq")) {
			r = il_fj_from_jansson(&fj, o);
			json_decref(o);
			if (r == -2) {
				st->damage = "a read with more members than this reader takes";
				break;
			}
			if (r)
				goto oom;
a_read:
			r = from_line_read(s, st, &fj);
			if (r < 0)
				goto oom;
			if (r)
				break;
			continue;
		} else if (json_is_object(json_object_get(o, "file"))) {
			json_t *fo = json_object_get(o, "file");
			char dev[IL_NAME_LEN], path[IL_PATH_LEN];
			json_t *pv = json_object_get(fo, "path");
			int64_t ino;

			if (get_str(fo, "fs_dev", 0, dev, sizeof(dev), NULL) ||
			    get_i64(fo, "ino", 0, 0, &ino) || ino < 0 || !json_is_string(pv) ||
			    il_json_bytes_to(path, sizeof(path), json_string_value(pv))) {
				json_decref(o);
				st->damage = "not a file's record";
				break;
			}
			if (il_add_file(&s->files, dev, ino, path)) {
				il_fail(err, errlen, "line %d: out of memory", lineno);
				json_decref(o);
				goto out;
			}
		} else if (json_is_true(json_object_get(o, "end"))) {
			int64_t reads = -1, tlost = -1;

			/* The trailer counts what came before it. */
			if (get_i64(o, "reads", 0, 0, &reads) || get_i64(o, "lost", 0, 0, &tlost) ||
			    reads != st->reads || tlost != st->lost)
				warn(s, "its trailer (line %d) counts %lld reads and %lld lost, "
				     "the lines before it %lld and %lld (a recording filtered "
				     "with grep or jq?)", lineno, (long long)reads, (long long)tlost,
				     (long long)st->reads, (long long)st->lost);
			st->ended = 1;
		} else if (!get_i64(o, "lost", 0, 0, &v)) {
			if (from_lost(s, st, v)) {
				json_decref(o);
				st->damage = "a count of lost records no kernel writes";
				break;
			}
		} else {
			st->unknown++;
		}
		json_decref(o);
	}
	if (!lineno) {
		il_fail(err, errlen, "empty recording");
		goto out;
	}
	if (!st->damage && !st->ended)
		snprintf(st->where, sizeof(st->where), "line %d", lineno);
	ret = 0;
	goto out;
oom:
	il_fail(err, errlen, "line %d: out of memory", lineno);
out:
	il_fj_free(&fj);
	free(line);
	return ret;
}

/* A walk of a binary recording into the model (il_rec_walk()'s callbacks). */
struct from_walk {
	struct il_rec_walk w;
	struct il_snapshot *s;
	struct from_state *st;
};

static int from_bin_read(struct il_rec_walk *w, const struct iolayers_rec_read *r)
{
	struct from_walk *fw = (void *)w;
	struct il_flow f;

	if (il_flow_from_rec(r, &f)) {
		w->damage = "a read with numbers no kernel writes";
		return 1;
	}
	return from_flow(fw->s, fw->st, &f);
}

static int from_bin_lost(struct il_rec_walk *w, uint32_t cpu, uint64_t count)
{
	struct from_walk *fw = (void *)w;

	(void)cpu;
	if (from_lost(fw->s, fw->st, (int64_t)count)) {
		w->damage = "a count of lost records no kernel writes";
		return 1;
	}
	return 0;
}

static int from_bin_start(struct il_rec_walk *w, const struct iolayers_rec_start *rs)
{
	struct from_walk *fw = (void *)w;

	if (rs->version > IOLAYERS_STREAM_VERSION)
		warn(fw->s, "stream version %u, this reader knows %u: what a newer module adds "
		     "to its records is left out", rs->version, IOLAYERS_STREAM_VERSION);
	return 0;
}

/* A file's record: its path into @s->files. */
static int from_bin_file(struct il_rec_walk *w, const struct il_rec_file *fr, const char *p)
{
	struct from_walk *fw = (void *)w;
	char dev[IL_NAME_LEN], path[IL_PATH_LEN];

	if (fr->ino > INT64_MAX)
		return 0;	/* its reads have no file (il_flow_from_rec()) */
	memcpy(path, p, fr->path_len);	/* shorter than IL_PATH_LEN: il_rec_walk() */
	path[fr->path_len] = '\0';
	snprintf(dev, sizeof(dev), "%u:%u", fr->fs_major, fr->fs_minor);
	return il_add_file(&fw->s->files, dev, (int64_t)fr->ino, path) ? -1 : 0;
}

static int from_bin_end(struct il_rec_walk *w, const struct il_rec_end *e)
{
	struct from_walk *fw = (void *)w;

	if (e->reads != (uint64_t)w->reads || e->lost != (uint64_t)w->nlost)
		warn(fw->s, "its trailer (byte %lld) counts %llu reads and %llu lost, the records "
		     "before it %lld and %lld", (long long)w->where, (unsigned long long)e->reads,
		     (unsigned long long)e->lost, (long long)w->reads, (long long)w->nlost);
	return 0;
}

/* A binary recording, its magic peeked. */
static int from_binary(FILE *f, struct il_snapshot *s, struct from_state *st, char *err,
		       size_t errlen)
{
	struct from_walk fw = {
		.w = { .read = from_bin_read, .lost = from_bin_lost, .start = from_bin_start,
		       .file = from_bin_file, .end = from_bin_end },
		.s = s,
		.st = st,
	};
	struct il_recfile_head head;
	char *json;
	json_error_t jerr;
	json_t *o;
	int ret = -1;

	if (fread(&head, 1, sizeof(head), f) != sizeof(head) ||
	    memcmp(head.magic, IL_RECFILE_MAGIC, sizeof(head.magic)))
		return il_fail(err, errlen, "not an iolayers recording (its first bytes)");
	json = il_recfile_json(f, &head, err, errlen);
	if (!json)
		return -1;
	o = json_loadb(json, head.json_len, JSON_REJECT_DUPLICATES, &jerr);
	if (!json_is_object(o)) {
		json_decref(o);
		il_fail(err, errlen, "a binary recording whose header is not a JSON object");
		goto out;
	}
	ret = from_header(o, s, "its header", err, errlen);
	json_decref(o);
	if (ret)
		goto out;
	s->binary = 1;
	ret = il_rec_walk(f, (int64_t)(sizeof(head) + (head.json_len + 7) / 8 * 8), &fw.w);
	if (ret) {
		il_fail(err, errlen, "out of memory");
		goto out;
	}
	st->damage = fw.w.damage;
	st->ended = fw.w.ended;
	st->unknown = fw.w.unknown;
	snprintf(st->where, sizeof(st->where), "byte %lld", (long long)fw.w.where);
out:
	free(json);
	return ret;
}

/**
 * il_parse_recording() - Read a recording into a snapshot, read by read.
 * @f: the recording: binary (`iolayers record`) or JSON lines (`--json`)
 * @s: zeroed, its filters and what to keep set (enum il_keep); filled
 *	(free with il_snapshot_free())
 * @err: what is wrong, on failure
 * @errlen: its size
 *
 * A recording damaged after its header (a recorder killed mid-record, a
 * full disk, an edit) is read up to the damage, and @s->warning says
 * where it stopped and what it holds; one without its trailer, or whose
 * trailer does not count the reads before it (a JSON one filtered with
 * grep or jq), is read whole, with a warning. Records of kinds this
 * reader does not know (a newer recorder's) are skipped, and counted in
 * the warning.
 *
 * Return: 0, or -1 with @err set (no header, out of memory).
 */
int il_parse_recording(FILE *f, struct il_snapshot *s, char *err, size_t errlen)
{
	struct from_state st = { 0 };
	int c, ret;

	s->recording = 1;
	s->warning[0] = '\0';
	c = getc(f);
	if (c == EOF)
		return il_fail(err, errlen, "empty recording");
	ungetc(c, f);
	if (c == (unsigned char)IL_RECFILE_MAGIC[0])
		ret = from_binary(f, s, &st, err, errlen);
	else
		ret = from_json_lines(f, s, &st, err, errlen);
	if (ret)
		return -1;
	if (st.damage)
		warn(s, "reading stopped at %s: %s; read the %lld reads and %lld lost records "
		     "before it", st.where, st.damage, (long long)st.reads, (long long)st.lost);
	else if (!st.ended)
		warn(s, "no trailer after %s: the recording was not ended (a recorder killed, "
		     "a full disk?); read its %lld reads and %lld lost records", st.where,
		     (long long)st.reads, (long long)st.lost);
	if (st.unknown)
		warn(s, "%d %s of no kind this reader knows skipped (a newer recorder's?)",
		     st.unknown, s->binary ? "records" : "objects");
	il_model_finish(s);
	s->rec_reads = st.reads;
	s->rec_lost = st.lost;
	/* What the recording lost, as `stats` would say it. */
	if (il_add_counter(s, "stream_lost", (uint64_t)st.lost))
		return il_fail(err, errlen, "out of memory");
	return 0;
}
