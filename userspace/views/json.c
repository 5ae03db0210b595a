// SPDX-License-Identifier: GPL-2.0
/* iolayers reader: -j, everything as one strict JSON object. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "../iolayers.h"

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
	fprintf(out, ", \"cgroup\": ");
	il_json_str(out, s->cgroup, sizeof(s->cgroup));
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
