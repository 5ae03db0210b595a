// SPDX-License-Identifier: GPL-2.0
/*
 * iolayers --from FILE: a recording (`iolayers record`, JSON lines) read
 * back into the snapshot the live views print: every read (a read-family
 * syscall, an io_uring or AIO read request, a page fault on a file's
 * mapping) a flow, the histograms built from the reads exactly as the
 * module builds its own (one sample per layer the read reached, log2
 * buckets), the slow reads those at least the recording's slow_us, the
 * files' paths from its file objects. JSON is parsed by jansson.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "iolayers.h"

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

static void hist_add(struct il_hist *h, int64_t ns, int64_t bytes)
{
	uint64_t v = (uint64_t)ns;
	int b = il_bucket(v);

	if (!h->count || v < h->min_ns)
		h->min_ns = v;
	if (v > h->max_ns)
		h->max_ns = v;
	h->count = il_sat_add(h->count, 1);
	h->sum_ns = il_sat_add(h->sum_ns, v);
	h->bytes = il_sat_add(h->bytes, (uint64_t)bytes);
	h->buckets[b] = il_sat_add(h->buckets[b], 1);
}

/*
 * A request's columns (io_uring's from format 8, AIO's from format 9):
 * ur_attempts, ur_issue_ns, ur_issue_off (null: none, or a syscall's) and
 * ur_where (an array of IOLAYERS_URING_WHERE_NAMES, null for a syscall)
 * into @f; -1 and "-" when absent (older records). Return: 0, or -1 for
 * a bad value.
 */
static int from_req(json_t *o, struct il_flow *f)
{
	json_t *where = json_object_get(o, "ur_where"), *w;
	size_t i;

	f->ur_attempts = f->ur_issue_ns = f->ur_issue_off = -1;
	strcpy(f->ur_where, "-");
	if (!json_object_get(o, "ur_attempts"))
		return 0;
	if (get_i64(o, "ur_attempts", 1, -1, &f->ur_attempts) ||
	    get_i64(o, "ur_issue_ns", 1, -1, &f->ur_issue_ns) ||
	    get_i64(o, "ur_issue_off", 1, -1, &f->ur_issue_off))
		return -1;
	if (json_is_null(where))
		return 0;
	if (!json_is_array(where))
		return -1;
	if (json_array_size(where))
		f->ur_where[0] = '\0';
	json_array_foreach(where, i, w) {
		const char *name = json_string_value(w);

		if (!name || strlen(f->ur_where) + strlen(name) + 2 > sizeof(f->ur_where))
			return -1;
		if (i)
			strcat(f->ur_where, ",");
		strcat(f->ur_where, name);
	}
	return 0;
}

/*
 * One read's object into @f, its samples into @s's histograms. Return: 0,
 * 1 for a read of another process than @s->view_pid (left out), -1 for
 * an object that is not a read's, -2 for a read whose numbers no kernel
 * writes (il_flow_check()).
 */
static int from_read(json_t *o, struct il_snapshot *s, struct il_flow *f)
{
	static const char *const offs[] = {
		"vfs_off", "fs_off", "queue_off", "issue_off", "device_off", "done_off",
	};
	int64_t *offv[] = {
		&f->vfs_off, &f->fs_off, &f->queue_off, &f->issue_off, &f->device_off, &f->done_off,
	};
	int64_t seq = 0, ndisks = 0, pos = 0, ret = 0;
	json_t *missed, *m;
	char key[IL_NAME_LEN + 8], cache[IL_NAME_LEN];
	size_t i;
	int l, bad = 0;

	memset(f, 0, sizeof(*f));
	bad |= get_i64(o, "seq", 0, 0, &seq) || seq < 0;
	f->seq = (uint64_t)seq;
	bad |= get_i64(o, "start_ns", 0, 0, &f->start_ns);
	bad |= get_i64(o, "tid", 0, 0, &f->tid) | get_i64(o, "tgid", 0, 0, &f->tgid);
	bad |= get_str(o, "comm", 0, f->comm, sizeof(f->comm), NULL);
	bad |= get_str(o, "syscall", 0, f->syscall, sizeof(f->syscall), NULL);
	bad |= get_i64(o, "fd", 0, 0, &f->fd) | get_i64(o, "pos", 0, 0, &pos);
	bad |= get_i64(o, "req", 0, 0, &f->req) | get_i64(o, "ret", 0, 0, &ret);
	f->pos = pos;
	f->ret = ret;
	bad |= get_str(o, "cache", 0, cache, sizeof(cache), NULL);
	if (bad)
		return -1;
	f->cache = il_cache_index(cache);
	if (f->cache < 0)
		return -1;
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++) {
		snprintf(key, sizeof(key), "%s_ns", il_layer_names[l]);
		/*
		 * The socket layers are not in format 6's records, the uring
		 * layer not in format 7's, the aio layer not in format 8's,
		 * the fault layer not in the first format 9 recorder's.
		 */
		f->lat[l] = -1;
		if (l >= IOLAYERS_L_SOCK && !json_object_get(o, key))
			continue;
		if (get_i64(o, key, 1, -1, &f->lat[l]) || f->lat[l] < -1)
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
		if (get_i64(o, offs[i], 1, -1, offv[i]))
			return -1;
	if (get_i64(o, "bios", 0, 0, &f->bios) || get_i64(o, "rqs", 0, 0, &f->rqs) ||
	    get_i64(o, "bio_bytes", 0, 0, &f->bio_bytes) ||
	    get_i64(o, "rq_bytes", 0, 0, &f->rq_bytes) ||
	    get_i64(o, "ra_bytes", 0, 0, &f->ra_bytes) ||
	    get_i64(o, "requeues", 0, 0, &f->requeues) ||
	    get_i64(o, "errors", 0, 0, &f->errors) || get_i64(o, "ndisks", 0, 0, &ndisks) ||
	    get_str(o, "disk", 1, f->disk, sizeof(f->disk) - 1, "-"))
		return -1;
	if (f->rq_bytes < 0 || f->bio_bytes < 0)
		return -1;
	if (ndisks > 1)
		strcat(f->disk, "+");
	strcpy(f->sock, "-");
	f->sock_off = f->tcp_off = -1;
	if (json_object_get(o, "sock") &&	/* format 7 */
	    (get_str(o, "sock", 1, f->sock, sizeof(f->sock), "-") ||
	     get_i64(o, "sock_off", 1, -1, &f->sock_off) ||
	     get_i64(o, "tcp_off", 1, -1, &f->tcp_off)))
		return -1;
	if (get_i64(o, "ino", 1, -1, &f->ino) ||
	    get_str(o, "fs_dev", 1, f->fs_dev, sizeof(f->fs_dev), "-") ||
	    get_str(o, "dev", 1, f->dev, sizeof(f->dev), "-"))
		return -1;
	missed = json_object_get(o, "missed");
	if (!json_is_array(missed))
		return -1;
	strcpy(f->missed, json_array_size(missed) ? "" : "-");
	json_array_foreach(missed, i, m) {
		const char *name = json_string_value(m);

		if (!name || strlen(f->missed) + strlen(name) + 2 > sizeof(f->missed))
			return -1;
		if (i)
			strcat(f->missed, ",");
		strcat(f->missed, name);
	}
	if (il_flow_check(f))
		return -2;
	if (s->view_pid && f->tgid != s->view_pid)
		return 1;
	/*
	 * The module's samples (iolayers_flow_finish(), a request's
	 * iolayers_flow_req_record()): bytes as it counts them.
	 */
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++) {
		int64_t bytes = l <= IOLAYERS_L_FS || l >= IOLAYERS_L_SOCK ?
				(f->ret > 0 ? f->ret : 0) : f->rq_bytes;

		if (f->lat[l] >= 0)
			hist_add(&s->hist[l][f->cache], f->lat[l], bytes);
	}
	return 0;
}

static int from_header(json_t *o, struct il_snapshot *s, int64_t *slow_ns, char *err,
		       size_t errlen)
{
	json_t *st = json_object_get(o, "settings");
	char buf[IL_NAME_LEN], module[IL_NAME_LEN * 2];
	int64_t v, fmt;
	char *end;

	if (get_i64(o, "iolayers_record", 0, 0, &v) || v != 1 || !json_is_object(st) ||
	    get_i64(o, "format", 0, 0, &fmt) || get_str(o, "module", 0, module, sizeof(module), NULL))
		return il_fail(err, errlen, "line 1 is not an iolayers recording's header");
	s->format = (int)fmt;
	if (sscanf(module, "iolayers %31s", s->version) != 1)
		snprintf(s->version, sizeof(s->version), "?");
	if (!get_str(st, "pid", 0, buf, sizeof(buf), NULL))
		s->pid = atoi(buf);
	if (!get_str(st, "comm", 0, buf, sizeof(buf), NULL))
		snprintf(s->comm, sizeof(s->comm), "%s", buf);
	if (!get_str(st, "children", 0, buf, sizeof(buf), NULL))
		s->children = atoi(buf);
	*slow_ns = 10000000;
	if (!get_str(st, "slow_us", 0, buf, sizeof(buf), NULL)) {
		errno = 0;
		v = strtoll(buf, &end, 10);
		if (errno || *end || v < 0 || v > INT64_MAX / 1000)
			return il_fail(err, errlen, "line 1: bad slow_us '%s'", buf);
		*slow_ns = v * 1000;
	}
	return 0;
}

static int add_flow(struct il_flows *fl, const struct il_flow *f, int *cap)
{
	if (fl->n == *cap) {
		int ncap = *cap ? *cap * 2 : 256;
		struct il_flow *v = realloc(fl->v, (size_t)ncap * sizeof(*v));

		if (!v)
			return -1;
		fl->v = v;
		*cap = ncap;
	}
	fl->v[fl->n++] = *f;
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

/**
 * il_parse_recording() - Read a recording into a snapshot.
 * @f: the recording (JSON lines)
 * @s: zeroed; filled (free with il_snapshot_free())
 * @err: what is wrong, on failure
 * @errlen: its size
 *
 * A recording damaged after its header (a recorder killed mid-line, a
 * full disk, an edit) is read up to the damage, and @s->warning says
 * where it stopped and what it holds; one without its trailer, or whose
 * trailer does not count the lines before it (filtered with grep or jq),
 * is read whole, with a warning. Objects of kinds this reader does not
 * know (a newer recorder's) are skipped, and counted in the warning.
 *
 * Return: 0, or -1 with @err set (no header, out of memory).
 */
int il_parse_recording(FILE *f, struct il_snapshot *s, char *err, size_t errlen)
{
	int cap = 0, slowcap = 0, lineno = 0, ended = 0, nreads = 0, unknown = 0, l, c, r;
	int64_t slow_ns = 0, lost = 0, v, off = 0, at = 0;
	const char *damage = NULL;
	char *line = NULL;
	size_t len = 0;
	ssize_t n;
	int ret = -1;

	s->recording = 1;
	s->warning[0] = '\0';
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++)
		for (c = 0; c < IOLAYERS_NR_CACHE; c++)
			s->hist[l][c].min_ns = UINT64_MAX;
	for (; (n = getline(&line, &len, f)) > 0; off += n) {
		json_error_t jerr;
		struct il_flow fw;
		json_t *o;

		lineno++;
		at = off;
		if (strspn(line, " \t\r\n") == (size_t)n)
			continue;	/* a blank line (an editor's last newline) */
		if (ended) {
			damage = "a line after the trailer";
			break;
		}
		o = json_loadb(line, (size_t)n, JSON_REJECT_DUPLICATES | JSON_DISABLE_EOF_CHECK, &jerr);
		if (!o || !json_is_object(o)) {
			json_decref(o);
			if (lineno == 1) {
				il_fail(err, errlen, "line 1 is not a JSON object: %s",
					o ? "another value" : jerr.text);
				goto out;
			}
			damage = line[n - 1] == '\n' ? "not a JSON object" :
				 "cut short (no end of line)";
			break;
		}
		if (lineno == 1) {
			if (from_header(o, s, &slow_ns, err, errlen)) {
				json_decref(o);
				goto out;
			}
		} else if (json_object_get(o, "seq")) {
			r = from_read(o, s, &fw);
			json_decref(o);
			if (r < 0) {
				damage = r == -1 ? "not a read's record" :
					 "a read with numbers no kernel writes";
				break;
			}
			nreads++;
			if (r)
				continue;	/* another process's (-p) */
			if (add_flow(&s->flows, &fw, &cap) ||
			    (il_flow_ns(&fw) >= slow_ns &&
			     add_flow(&s->slow, &fw, &slowcap))) {
				il_fail(err, errlen, "out of memory");
				goto out;
			}
			continue;
		} else if (json_is_object(json_object_get(o, "file"))) {
			json_t *fo = json_object_get(o, "file");
			char dev[IL_NAME_LEN], path[IL_PATH_LEN];
			int64_t ino;

			if (get_str(fo, "fs_dev", 0, dev, sizeof(dev), NULL) ||
			    get_i64(fo, "ino", 0, 0, &ino) || ino < 0 ||
			    get_str(fo, "path", 0, path, sizeof(path), NULL)) {
				json_decref(o);
				damage = "not a file's record";
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
			    reads != nreads || tlost != lost)
				warn(s, "its trailer (line %d) counts %lld reads and %lld lost, the "
				     "lines before it %d and %lld (a recording filtered with grep or "
				     "jq?)", lineno, (long long)reads, (long long)tlost, nreads,
				     (long long)lost);
			ended = 1;
		} else if (!get_i64(o, "lost", 0, 0, &v)) {
			if (v < 0 || v >= IL_MAX_PLAUSIBLE - lost) {
				json_decref(o);
				damage = "a count of lost records no kernel writes";
				break;
			}
			lost += v;
		} else {
			unknown++;
		}
		json_decref(o);
	}
	if (!lineno) {
		il_fail(err, errlen, "empty recording");
		goto out;
	}
	if (damage)
		warn(s, "reading stopped at line %d (byte %lld): %s; read the %d reads and %lld "
		     "lost records before it", lineno, (long long)at, damage, nreads,
		     (long long)lost);
	else if (!ended)
		warn(s, "no trailer after line %d: the recording was not ended (a recorder killed, "
		     "a full disk?); read its %d reads and %lld lost records", lineno, nreads,
		     (long long)lost);
	if (unknown)
		warn(s, "%d objects of no kind this reader knows skipped (a newer recorder's?)",
		     unknown);
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++)
		for (c = 0; c < IOLAYERS_NR_CACHE; c++)
			if (!s->hist[l][c].count)
				s->hist[l][c].min_ns = UINT64_MAX;
	/* What the recording lost, as `stats` would say it. */
	if (il_add_counter(s, "stream_lost", (uint64_t)lost)) {
		il_fail(err, errlen, "out of memory");
		goto out;
	}
	ret = 0;
out:
	free(line);
	return ret;
}
