// SPDX-License-Identifier: GPL-2.0
/*
 * Plain-C tests of `iolayers record` without the module: the binary
 * records of stream/raw (include/uapi/iolayers.h) made here, turned into
 * JSON lines and CSV rows by record.c (included, for its static
 * functions), read back by jansson and by --from's parser.
 */
#define _GNU_SOURCE	/* asprintf() */
#include "../record.c"
#include <jansson.h>
#include <inttypes.h>
#include <math.h>
#include "recput.h"

static int failures;

#define EXPECT(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
		failures++;						\
	}								\
} while (0)

/* main.c's, which is not linked here: record's settings are not tested. */
const char *il_params_dir(void)
{
	return "/nonexistent";
}

int il_set_param(const char *name, const char *value)
{
	(void)name;
	(void)value;
	return -1;
}

/* A read's record as a format 8 module writes one: a syscall's. */
static void rec_init(struct iolayers_rec_read *r, uint64_t seq)
{
	int l;

	memset(r, 0, sizeof(*r));
	r->hdr.type = IOLAYERS_REC_READ;
	r->hdr.size = sizeof(*r);
	r->hdr.cpu = 1;
	r->seq = seq;
	r->start_ns = 1000000;
	r->pos = 8192;
	r->req = 4096;
	r->ret = 4096;
	r->ino = 12;
	for (l = 0; l < IOLAYERS_REC_LAYERS; l++)
		r->ns[l] = -1;
	r->ns[IOLAYERS_L_SYSCALL] = 500000;
	r->ns[IOLAYERS_L_FS] = 300000;
	r->vfs_off = r->queue_off = r->issue_off = r->device_off = r->done_off = -1;
	r->fs_off = 20;
	r->tid = r->tgid = 42;
	r->fd = 3;
	r->fs_major = 259;
	r->syscall = 1;		/* pread64 */
	r->cache = IOLAYERS_C_MISS;
	strcpy(r->comm, "x");
	r->sock_ns = r->tcp_ns = r->wait_ns = r->sock_off = r->tcp_off = -1;
	r->ur_issue_off = r->ur_issue_ns = -1;
}

/* An io_uring request's: @op its IORING_OP_*, @ns its latency to the CQE. */
static void rec_init_uring(struct iolayers_rec_read *r, uint64_t seq, unsigned int op, int64_t ns)
{
	rec_init(r, seq);
	r->via = IOLAYERS_VIA_URING;
	r->syscall = op;
	r->ns[IOLAYERS_L_SYSCALL] = ns;
	r->attempts = 2;
	r->where = 1U << 0 | 1U << 1;	/* inline, taskwork */
	r->ur_issue_off = 10;
	r->ur_issue_ns = 7000;
}

/* A Linux AIO request's: @op its IOCB_CMD_*, @ns its latency to its event. */
static void rec_init_aio(struct iolayers_rec_read *r, uint64_t seq, unsigned int op, int64_t ns)
{
	rec_init_uring(r, seq, op, ns);
	r->via = IOLAYERS_VIA_AIO;
	r->attempts = 1;
	r->where = 1U << 0;	/* inline */
}

/*
 * A page fault's, as a format 9 module writes one: its syscall 0, no
 * descriptor, its page's offset, @ns its latency; no VFS or FS part.
 */
static void rec_init_fault(struct iolayers_rec_read *r, uint64_t seq, int64_t pos, int64_t ns)
{
	rec_init(r, seq);
	r->via = IOLAYERS_VIA_FAULT;
	r->syscall = 0;
	r->fd = -1;
	r->pos = pos;
	r->ns[IOLAYERS_L_SYSCALL] = ns;
	r->ns[IOLAYERS_L_FS] = -1;
	r->fs_off = -1;
}

/*
 * Two faults from @seq on: a major one that read its page and 31 more
 * (3 us, a request queued at +30 ns), one that failed (-EFAULT, 5 ns).
 */
static void rec_init_faults(struct iolayers_rec_read r[2], uint64_t seq)
{
	rec_init_fault(&r[0], seq, 1048576, 3000);
	r[0].queue_off = 30;
	r[0].issue_off = 40;
	r[0].done_off = 2900;
	r[0].ns[IOLAYERS_L_QUEUE] = 10;
	r[0].ns[IOLAYERS_L_SERVICE] = 2860;
	r[0].bios = r[0].rqs = 1;
	r[0].bio_bytes = r[0].rq_bytes = 131072;
	r[0].ra_bytes = 126976;
	r[0].attempts = 1;		/* none is, for a fault: not shown */
	r[0].where = 1;
	rec_init_fault(&r[1], seq + 1, 4194304, 5);
	r[1].ret = -14;
	r[1].cache = IOLAYERS_C_ERROR;
}

/* What rec_records() writes for @len bytes of records at @buf; to free. */
static char *convert(const void *buf, size_t len, long *reads, uint64_t *lost)
{
	struct iolayers_rec_start start = { 0 };
	char *out = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&out, &size);

	if (!m)
		abort();
	*lost = 0;
	*reads = rec_records(m, buf, len, lost, &start);
	fclose(m);
	return out;
}

/*
 * @lines, JSON lines of rec_records(), as --from reads them into @s, in a
 * recording of this reader's versions whose slow_us is @slow_us and
 * whose trailer counts @reads and @lost. Return: 0 when it is read whole
 * without a warning.
 */
static int read_back(struct il_snapshot *s, const char *lines, int slow_us, long reads,
		     uint64_t lost)
{
	char err[256] = "", *text;
	int ret;
	FILE *f;

	if (asprintf(&text, "{\"iolayers_record\": 1, \"stream_version\": %d, \"format\": %d, "
		     "\"kernel\": \"k\", \"module\": \"iolayers 0.1.0\", \"open_ns\": 1, "
		     "\"settings\": {\"slow_us\": \"%d\"}, \"command\": []}\n%s"
		     "{\"end\": true, \"reads\": %ld, \"lost\": %llu}\n", IOLAYERS_STREAM_VERSION,
		     IOLAYERS_FORMAT_VERSION, slow_us, lines, reads, (unsigned long long)lost) < 0)
		abort();
	memset(s, 0, sizeof(*s));
	f = fmemopen(text, strlen(text), "r");
	ret = f ? il_parse_recording(f, s, err, sizeof(err)) : -1;
	if (f)
		fclose(f);
	free(text);
	if (ret || s->warning[0])
		fprintf(stderr, "read back: %s%s\n", err, s->warning);
	return ret || s->warning[0] ? -1 : 0;
}

/* Line @n (from 0) of @text as a JSON object; NULL if it is none. */
static json_t *json_line(const char *text, int n)
{
	json_error_t jerr;

	for (; n > 0 && text; n--) {
		text = strchr(text, '\n');
		if (text)
			text++;
	}
	if (!text || !*text)
		return NULL;
	return json_loadb(text, strcspn(text, "\n"), JSON_REJECT_DUPLICATES, &jerr);
}

static int64_t num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? json_integer_value(v) : -12345;
}

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "(none)";
}

/* Whether @o's ur_where, its names joined by commas, is @want. */
static int where_is(json_t *o, const char *want)
{
	json_t *w = json_object_get(o, "ur_where"), *e;
	char got[128] = "";
	size_t i;

	if (!json_is_array(w))
		return 0;
	json_array_foreach(w, i, e)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? "," : "",
			 json_string_value(e) ?: "?");
	return !strcmp(got, want);
}

/*
 * JSON lines: a syscall's latency in syscall_ns, an io_uring request's in
 * uring_ns, an AIO request's in aio_ns (the others null), its opcode
 * named, its attempts; read back by --from into the uring and aio layers.
 */
static void test_json_lines(void)
{
	struct iolayers_rec_read r[7];
	struct iolayers_rec_lost lo = { { IOLAYERS_REC_LOST, sizeof(lo), 0 }, 3 };
	char buf[sizeof(r) + sizeof(lo)], *out;
	struct il_snapshot s;
	uint64_t lost;
	long reads;
	json_t *o;

	rec_init(&r[0], 7);
	rec_init_uring(&r[1], 8, 22, 900000);			/* IORING_OP_READ */
	rec_init_uring(&r[2], 9, 4, 60000);			/* IORING_OP_READ_FIXED */
	rec_init_uring(&r[3], 10, 99, 3000);			/* none the header names */
	r[3].attempts = 0;
	r[3].where = 0;
	r[3].ur_issue_off = r[3].ur_issue_ns = -1;
	r[3].ret = -22;
	r[3].cache = IOLAYERS_C_OTHER;
	r[3].ns[IOLAYERS_L_FS] = -1;
	r[3].fs_off = -1;
	rec_init_aio(&r[4], 11, 0, 700000);			/* IOCB_CMD_PREAD */
	rec_init_aio(&r[5], 12, 7, 60000);			/* IOCB_CMD_PREADV */
	rec_init_aio(&r[6], 13, 3, 3000);			/* none the header names */
	memcpy(buf, r, sizeof(r));
	memcpy(buf + sizeof(r), &lo, sizeof(lo));
	out = convert(buf, sizeof(buf), &reads, &lost);
	EXPECT(reads == 7 && lost == 3);
	/* IORING_OP_READV_FIXED (6.15 on) is a read the module follows. */
	EXPECT(!strcmp(iolayers_req_op_name(IOLAYERS_VIA_URING, 60), "READV_FIXED"));

	o = json_line(out, 0);
	EXPECT(o && !strcmp(str(o, "syscall"), "pread64") && num(o, "syscall_ns") == 500000);
	EXPECT(o && json_is_null(json_object_get(o, "uring_ns")) &&
	       json_is_null(json_object_get(o, "aio_ns")) &&
	       json_is_null(json_object_get(o, "ur_attempts")) &&
	       json_is_null(json_object_get(o, "ur_issue_ns")) &&
	       json_is_null(json_object_get(o, "ur_issue_off")) &&
	       json_is_null(json_object_get(o, "ur_where")));
	json_decref(o);
	o = json_line(out, 1);
	EXPECT(o && !strcmp(str(o, "syscall"), "io_uring:READ"));
	EXPECT(o && json_is_null(json_object_get(o, "syscall_ns")) && num(o, "uring_ns") == 900000 &&
	       json_is_null(json_object_get(o, "aio_ns")));
	EXPECT(o && num(o, "ur_attempts") == 2 && num(o, "ur_issue_ns") == 7000 &&
	       num(o, "ur_issue_off") == 10 && num(o, "fs_ns") == 300000 &&
	       json_is_null(json_object_get(o, "vfs_ns")));
	EXPECT(where_is(o, "inline,taskwork"));
	json_decref(o);
	o = json_line(out, 2);
	EXPECT(o && !strcmp(str(o, "syscall"), "io_uring:READ_FIXED") && num(o, "uring_ns") == 60000);
	json_decref(o);
	o = json_line(out, 3);
	EXPECT(o && !strcmp(str(o, "syscall"), "io_uring:99") && num(o, "ur_attempts") == 0 &&
	       json_is_null(json_object_get(o, "ur_issue_ns")) && where_is(o, ""));
	json_decref(o);
	o = json_line(out, 4);
	EXPECT(o && !strcmp(str(o, "syscall"), "aio:PREAD") && num(o, "aio_ns") == 700000 &&
	       json_is_null(json_object_get(o, "syscall_ns")) &&
	       json_is_null(json_object_get(o, "uring_ns")));
	EXPECT(o && num(o, "ur_attempts") == 1 && num(o, "ur_issue_ns") == 7000 &&
	       num(o, "ur_issue_off") == 10 && num(o, "fs_ns") == 300000 && where_is(o, "inline"));
	json_decref(o);
	o = json_line(out, 5);
	EXPECT(o && !strcmp(str(o, "syscall"), "aio:PREADV") && num(o, "aio_ns") == 60000);
	json_decref(o);
	o = json_line(out, 6);
	EXPECT(o && !strcmp(str(o, "syscall"), "aio:3"));
	json_decref(o);
	o = json_line(out, 7);
	EXPECT(o && num(o, "lost") == 3);
	json_decref(o);

	/* Read back as a recording: each in its layer, counted once. */
	EXPECT(read_back(&s, out, 100, 7, 3) == 0);
	EXPECT(s.flows.n == 7);
	if (s.flows.n == 7) {
		EXPECT(s.flows.v[0].via == IOLAYERS_VIA_SYSCALL &&
		       s.flows.v[0].lat[IOLAYERS_L_SYSCALL] == 500000);
		EXPECT(s.flows.v[1].via == IOLAYERS_VIA_URING &&
		       s.flows.v[1].lat[IOLAYERS_L_URING] == 900000 &&
		       s.flows.v[1].lat[IOLAYERS_L_SYSCALL] == -1 &&
		       !strcmp(s.flows.v[1].ur_where, "inline,taskwork"));
		EXPECT(s.flows.v[3].via == IOLAYERS_VIA_URING && !strcmp(s.flows.v[3].ur_where, "-") &&
		       s.flows.v[3].ur_attempts == 0);
		EXPECT(s.flows.v[4].via == IOLAYERS_VIA_AIO &&
		       s.flows.v[4].lat[IOLAYERS_L_AIO] == 700000 &&
		       s.flows.v[4].lat[IOLAYERS_L_URING] == -1 &&
		       s.flows.v[4].lat[IOLAYERS_L_SYSCALL] == -1 && s.flows.v[4].ur_attempts == 1 &&
		       !strcmp(s.flows.v[4].ur_where, "inline"));
		EXPECT(s.flows.v[6].via == IOLAYERS_VIA_AIO);
	}
	EXPECT(s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_MISS].count == 1 &&
	       s.hist[IOLAYERS_L_URING][IOLAYERS_C_MISS].count == 2 &&
	       s.hist[IOLAYERS_L_URING][IOLAYERS_C_OTHER].count == 1 &&
	       s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_OTHER].count == 0 &&
	       s.hist[IOLAYERS_L_AIO][IOLAYERS_C_MISS].count == 3 &&
	       s.hist[IOLAYERS_L_AIO][IOLAYERS_C_MISS].sum_ns == 763000);
	/* slow_us 100: the syscall's 500 us, the requests' 900 us and 700 us */
	EXPECT(s.slow.n == 3 && s.slow.v[2].seq == 11);
	il_snapshot_free(&s);
	free(out);
}

/*
 * A record shorter than this reader's (before its io_uring part): a
 * syscall's, its io_uring members null. And a JSON line at its longest:
 * every number at its largest, every byte of comm and disk escaped.
 */
static void test_sizes(void)
{
	struct iolayers_rec_read r;
	json_error_t jerr;
	char *out, *p;
	uint64_t lost;
	long reads;
	json_t *o;
	int l;

	rec_init(&r, 7);
	memset(&r.via, 0xff, sizeof(r) - offsetof(struct iolayers_rec_read, via));
	r.hdr.size = offsetof(struct iolayers_rec_read, via);
	out = convert(&r, r.hdr.size, &reads, &lost);
	o = json_line(out, 0);
	EXPECT(reads == 1 && o && !strcmp(str(o, "syscall"), "pread64") &&
	       num(o, "syscall_ns") == 500000 && json_is_null(json_object_get(o, "uring_ns")) &&
	       json_is_null(json_object_get(o, "ur_where")));
	json_decref(o);
	free(out);

	/* A via this reader does not know (a newer module's): a syscall's. */
	rec_init(&r, 7);
	r.via = 9;
	out = convert(&r, sizeof(r), &reads, &lost);
	o = json_line(out, 0);
	EXPECT(reads == 1 && o && !strcmp(str(o, "syscall"), "pread64") &&
	       num(o, "syscall_ns") == 500000 && json_is_null(json_object_get(o, "uring_ns")) &&
	       json_is_null(json_object_get(o, "aio_ns")) &&
	       json_is_null(json_object_get(o, "ur_attempts")));
	json_decref(o);
	free(out);

	memset(&r, 0xff, sizeof(r));
	r.hdr.type = IOLAYERS_REC_READ;
	r.hdr.size = sizeof(r);
	r.pos = r.ret = INT64_MIN;
	for (l = 0; l < IOLAYERS_REC_LAYERS; l++)
		r.ns[l] = INT64_MAX;
	r.vfs_off = r.fs_off = r.queue_off = r.issue_off = r.device_off = r.done_off = INT64_MAX;
	r.sock_ns = r.tcp_ns = r.wait_ns = r.sock_off = r.tcp_off = INT64_MAX;
	r.ur_issue_off = r.ur_issue_ns = INT64_MAX;
	r.tid = r.tgid = r.fd = INT32_MIN;
	r.syscall = 255;
	r.cache = IOLAYERS_C_PARTIAL;
	r.sock = IOLAYERS_SK_UNIX_DGRAM;
	r.via = IOLAYERS_VIA_URING;
	r.where = 0xff;
	memset(r.comm, 0x01, sizeof(r.comm) - 1);
	r.comm[sizeof(r.comm) - 1] = '\0';
	memset(r.disk, 0x01, sizeof(r.disk) - 1);
	r.disk[sizeof(r.disk) - 1] = '\0';
	out = convert(&r, sizeof(r), &reads, &lost);
	/* u64 numbers past json_int_t: read as reals */
	o = json_loadb(out, strlen(out), JSON_DECODE_INT_AS_REAL, &jerr);
	EXPECT(reads == 1 && o && !strcmp(str(o, "syscall"), "io_uring:255") &&
	       json_array_size(json_object_get(o, "ur_where")) == 4 &&
	       json_array_size(json_object_get(o, "missed")) == 4);
	json_decref(o);
	/* Its keys and numbers: what rec_read()'s buffer holds besides the strings. */
	p = out;
	l = (int)strlen(out) - IL_JSON_STR_MAX(sizeof(r.comm) - 1) - IL_JSON_STR_MAX(sizeof(r.disk) - 1);
	EXPECT(l > 1000 && l <= 1600);
	if (l <= 1000 || l > 1600)
		fprintf(stderr, "the longest line without its strings: %d bytes: %s", l, p);
	free(out);
}

/* A row of --csv (from 0): how it starts, what else it holds. */
struct csv_want {
	int n;
	const char *start, *has;
};

/*
 * The --csv rows of the @len bytes of records at @buf: each row of @want
 * as it says. Return: how many rows there are.
 */
static int csv_rows(const void *buf, size_t len, const struct csv_want *want, size_t nwant)
{
	char *out, *line, *save;
	uint64_t lost;
	long reads;
	size_t k = 0;
	int n = 0;

	rec_csv = 1;
	out = convert(buf, len, &reads, &lost);
	rec_csv = 0;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
		if (k == nwant || want[k].n != n)
			continue;
		if (strncmp(line, want[k].start, strlen(want[k].start)) || !strstr(line, want[k].has))
			fprintf(stderr, "csv row %d: %s\n", n, line);
		EXPECT(!strncmp(line, want[k].start, strlen(want[k].start)) &&
		       strstr(line, want[k].has));
		k++;
	}
	EXPECT(k == nwant);
	free(out);
	return n;
}

/*
 * --csv: a request's first and last rows are its layer's (URING, AIO)
 * submit and complete, a page fault's FAULT enter and return (its I/O
 * between), no Flow_SYSCALL_Lat; a syscall's SYSCALL enter and exit.
 */
static void test_csv(void)
{
	static const struct csv_want want[] = {
		{ 0, "1000000,SYSCALL,enter,42,42,\"x\",1,7,,7,4096,", "" },
		/* sys_exit at start + 500 us; the syscall's latency, the FS's */
		{ 2, "1500000,SYSCALL,exit,", ",,,,,500000,,300000,,,,MISS,0" },
		{ 3, "1000000,URING,submit,42,42,\"x\",1,8,,8,4096,", "" },
		{ 5, "1900000,URING,complete,", ",,,,,,,300000,,,,MISS,0" },
		{ 6, "1000000,AIO,submit,42,42,\"x\",1,9,,9,4096,", "" },
		{ 8, "1700000,AIO,complete,", ",,,,,,,300000,,,,MISS,0" },
		/* No VFS or FS entry: no Flow_VFS, no Flow_FS */
		{ 9, "1000000,FAULT,enter,42,42,\"x\",1,20,,,4096,", "" },
		{ 10, "1000030,BLOCK,queue,", "" },
		{ 13, "1003000,FAULT,return,", ",4096,,,,,,,,10,2860,,MISS,0" },
		{ 14, "1000000,FAULT,enter,", "" },
		{ 15, "1000005,FAULT,return,", ",,,,,,,,,,ERROR,0" },
	};
	struct iolayers_rec_read r[5];

	rec_init(&r[0], 7);
	rec_init_uring(&r[1], 8, 22, 900000);
	rec_init_aio(&r[2], 9, 0, 700000);
	rec_init_faults(&r[3], 20);
	EXPECT(csv_rows(r, sizeof(r), want, sizeof(want) / sizeof(want[0])) == 16);
}

/*
 * A page fault (format 9, via 3): named "fault" alone, its latency in
 * fault_ns (syscall_ns and the requests' null), no request's part even
 * where the record's attempts are not zero; read back by --from into the
 * fault layer (its CSV rows: test_csv()).
 */
static void test_fault(void)
{
	struct iolayers_rec_read r[2];
	struct il_snapshot s;
	uint64_t lost;
	long reads;
	json_t *o;
	char *out;

	rec_init_faults(r, 20);
	out = convert(r, sizeof(r), &reads, &lost);
	EXPECT(reads == 2);
	o = json_line(out, 0);
	EXPECT(o && !strcmp(str(o, "syscall"), "fault") && num(o, "fd") == -1 &&
	       num(o, "pos") == 1048576 && num(o, "fault_ns") == 3000 && num(o, "ra_bytes") == 126976);
	EXPECT(o && json_is_null(json_object_get(o, "syscall_ns")) &&
	       json_is_null(json_object_get(o, "uring_ns")) &&
	       json_is_null(json_object_get(o, "aio_ns")) &&
	       json_is_null(json_object_get(o, "vfs_ns")) && json_is_null(json_object_get(o, "fs_ns")) &&
	       json_is_null(json_object_get(o, "ur_attempts")) &&
	       json_is_null(json_object_get(o, "ur_where")));
	json_decref(o);
	o = json_line(out, 1);
	EXPECT(o && !strcmp(str(o, "syscall"), "fault") && num(o, "ret") == -14 &&
	       num(o, "fault_ns") == 5 && !strcmp(str(o, "cache"), "ERROR"));
	json_decref(o);
	EXPECT(read_back(&s, out, 1, 2, 0) == 0 && s.flows.n == 2);
	free(out);
	if (s.flows.n == 2)
		EXPECT(s.flows.v[0].via == IOLAYERS_VIA_FAULT &&
		       s.flows.v[0].lat[IOLAYERS_L_FAULT] == 3000 &&
		       s.flows.v[0].lat[IOLAYERS_L_SYSCALL] == -1 && s.flows.v[0].fd == -1 &&
		       s.flows.v[0].ur_attempts == -1 && s.flows.v[1].via == IOLAYERS_VIA_FAULT);
	EXPECT(s.hist[IOLAYERS_L_FAULT][IOLAYERS_C_MISS].count == 1 &&
	       s.hist[IOLAYERS_L_FAULT][IOLAYERS_C_MISS].bytes == 4096 &&
	       s.hist[IOLAYERS_L_FAULT][IOLAYERS_C_ERROR].count == 1 &&
	       s.hist[IOLAYERS_L_SERVICE][IOLAYERS_C_MISS].bytes == 131072 &&
	       s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_MISS].count == 0 &&
	       s.hist[IOLAYERS_L_FS][IOLAYERS_C_MISS].count == 0);
	il_snapshot_free(&s);
}

/* A binary recording of @raw (records as the module gives them, its start first). */
static char *binary_of(const void *raw, size_t len, long reads, uint64_t lost, size_t *size)
{
	struct iolayers_rec_start st = { { IOLAYERS_REC_START, sizeof(st), 0 },
					 IOLAYERS_STREAM_VERSION, IOLAYERS_FORMAT_VERSION, 1 };
	char *out = NULL;
	FILE *m = open_memstream(&out, size);

	if (!m || rec_bin_head(m, &st, NULL))
		abort();
	fwrite(&st, sizeof(st), 1, m);
	fwrite(raw, 1, len, m);
	rec_bin_file(m, 259, 0, 12, "/mnt/a file \xe9");
	rec_bin_end(m, reads, lost);
	fclose(m);
	return out;
}

/* @text (@len bytes) read as a recording, keeping @keep; 0 when read without a warning. */
static int parse_mem(struct il_snapshot *s, const char *text, size_t len, int keep)
{
	char err[256] = "";
	FILE *f = fmemopen((void *)text, len, "r");
	int ret;

	memset(s, 0, sizeof(*s));
	s->keep = keep;
	ret = f ? il_parse_recording(f, s, err, sizeof(err)) : -1;
	if (f)
		fclose(f);
	return ret ? -1 : s->warning[0] ? 1 : 0;
}

/* What a view prints of @s. */
static char *view_of(void (*view)(FILE *, const struct il_snapshot *), const struct il_snapshot *s)
{
	char *out = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&out, &size);

	if (!m)
		abort();
	view(m, s);
	fclose(m);
	return out;
}

static void view_table(FILE *out, const struct il_snapshot *s)
{
	il_view_table(out, s, ~0U);
}

static void view_hist(FILE *out, const struct il_snapshot *s)
{
	il_view_hist(out, s, ~0U, IL_UNIT_NS);
}

static void view_files(FILE *out, const struct il_snapshot *s)
{
	il_view_files(out, s, 50);
}

static void view_disks(FILE *out, const struct il_snapshot *s)
{
	il_view_disks(out, s, IL_UNIT_US);
}

/* The reads of the binary tests: every kind, a socket's, two disks', refused entries. */
static size_t binary_reads(struct iolayers_rec_read *r)
{
	rec_init(&r[0], 7);
	rec_init_uring(&r[1], 8, 22, 900000);
	rec_init_aio(&r[2], 9, 7, 60000);
	strcpy(r[2].comm, "caf\xc3\xa9 \x9b");		/* UTF-8, and a C1 byte */
	rec_init_faults(&r[3], 10);				/* r[3], r[4] */
	rec_init(&r[5], 12);
	r[5].cache = IOLAYERS_C_WAITED;
	r[5].sock = IOLAYERS_SK_TCP;
	r[5].sock_ns = 80000;
	r[5].tcp_ns = 70000;
	r[5].wait_ns = 60000;
	r[5].sock_off = 5;
	r[5].tcp_off = 9;
	r[5].ino = 0;
	r[5].ns[IOLAYERS_L_FS] = -1;
	r[5].fs_off = -1;
	rec_init(&r[6], 13);
	r[6].rqs = 2;
	r[6].bios = 2;
	r[6].rq_bytes = 8192;
	r[6].ndisks = 2;
	r[6].dev_major = 259;
	r[6].dev_minor = 1;
	/* The longest name a kernel's disk has (31 bytes), not ASCII. */
	strcpy(r[6].disk, "nvme1n1-\xe9\xe9-0123456789abcdefghi");
	r[6].ns[IOLAYERS_L_SERVICE] = 150000;
	r[6].ns[IOLAYERS_L_DEVICE] = 140000;
	r[6].issue_off = 100;
	r[6].done_off = 150100;
	r[6].device_off = 150000;
	r[6].missed = 1U << 0 | 1U << 2;
	r[6].cache = IOLAYERS_C_HIT;
	return 7;
}

/*
 * A brief record reads as the whole one it stands for, field by field;
 * one cut short, or of a type that is no read's, is refused.
 */
static void test_brief(void)
{
	struct iolayers_rec_read r[2], got;
	char buf[sizeof(r[0])];
	size_t n;
	int i;

	rec_init_faults(r, 2);		/* r[1]: a failed fault, no request */
	rec_init(&r[0], 1);
	r[0].vfs_off = 4;
	r[0].ns[IOLAYERS_L_VFS] = 499000;
	r[0].ra_bytes = 65536;
	r[0].missed = 2;
	r[0].cache = IOLAYERS_C_HIT;
	for (i = 0; i < 2; i++) {
		n = rec_put(buf, &r[i]);
		EXPECT(n == sizeof(struct iolayers_rec_brief) && n == 144);
		EXPECT(!il_rec_read_get(IOLAYERS_REC_BRIEF, buf, n, &got));
		got.hdr = r[i].hdr;
		EXPECT(!memcmp(&got, &r[i], sizeof(got)));
		EXPECT(il_rec_read_get(IOLAYERS_REC_BRIEF, buf, n - 1, &got) == -1);
		EXPECT(il_rec_read_get(IOLAYERS_REC_LOST, buf, n, &got) == -1);
	}
}

/*
 * A binary recording and the JSON lines of the same records read the
 * same: every flow field for field, the histograms, and every view; -J
 * of the binary one is those JSON lines, read the same again. The
 * binary one has its reads as a module of stream version 4 writes them
 * (brief where it can), the JSON lines came from whole ones. Cut at
 * every byte, it is read up to the cut with a warning.
 */
static void test_binary(void)
{
	struct iolayers_rec_read r[7];
	struct iolayers_rec_lost lo = { { IOLAYERS_REC_LOST, sizeof(lo), 2 }, 5 };
	char raw[sizeof(r) + sizeof(lo)], mixed[sizeof(raw)], *bin, *json, *lines = NULL, err[256];
	size_t sizes[8], mlen = 0;
	void (*const views[])(FILE *, const struct il_snapshot *) = {
		view_table, view_hist, view_files, view_disks, il_view_json, il_view_prometheus,
	};
	struct il_snapshot a, b, c;
	size_t n = binary_reads(r), blen, llen = 0, i;
	uint64_t lost;
	long reads;
	FILE *in, *m;

	memcpy(raw, r, 4 * sizeof(r[0]));
	memcpy(raw + 4 * sizeof(r[0]), &lo, sizeof(lo));
	memcpy(raw + 4 * sizeof(r[0]) + sizeof(lo), &r[4], (n - 4) * sizeof(r[0]));
	for (i = 0; i < 8; i++) {
		if (i == 4) {
			memcpy(mixed + mlen, &lo, sizeof(lo));
			sizes[i] = sizeof(lo);
		} else {
			sizes[i] = rec_put(mixed + mlen, &r[i - (i > 4)]);
		}
		mlen += sizes[i];
	}
	/* Two of them brief: the first (a read that reached FS) and the failed fault. */
	EXPECT(sizes[0] == sizeof(struct iolayers_rec_brief) &&
	       sizes[5] == sizeof(struct iolayers_rec_brief) &&
	       mlen == sizeof(raw) - 2 * (sizeof(r[0]) - sizeof(struct iolayers_rec_brief)));
	/* The recorder's count of a binary recording: frames only. */
	rec_json = 0;
	EXPECT(rec_records(NULL, raw, sizeof(raw), &lost, &(struct iolayers_rec_start){ 0 }) == 7);
	EXPECT(rec_records(NULL, mixed, mlen, &lost, &(struct iolayers_rec_start){ 0 }) == 7);
	/* A brief record cut short is no record the recorder passes on. */
	((struct iolayers_rec_hdr *)mixed)->size -= 8;
	EXPECT(rec_records(NULL, mixed, mlen, &lost, &(struct iolayers_rec_start){ 0 }) == -1);
	((struct iolayers_rec_hdr *)mixed)->size += 8;
	rec_json = 1;
	bin = binary_of(mixed, mlen, 7, 5, &blen);
	json = convert(raw, sizeof(raw), &reads, &lost);
	EXPECT(reads == 7 && lost == 5);
	EXPECT(parse_mem(&a, bin, blen, IL_KEEP_ALL) == 0);
	EXPECT(read_back(&b, json, 10000, 7, 5) == 0);
	EXPECT(!il_add_file(&b.files, "259:0", 12, "/mnt/a file \xe9"));
	EXPECT(a.binary && !b.binary && a.realtime_off > 0 && a.rec_reads == 7 && a.rec_lost == 5);
	EXPECT(a.flows.n == 7 && b.flows.n == 7);
	for (i = 0; i < 7 && a.flows.n == 7 && b.flows.n == 7; i++)
		EXPECT(!memcmp(&a.flows.v[i], &b.flows.v[i], sizeof(a.flows.v[i])));
	EXPECT(!memcmp(a.hist, b.hist, sizeof(a.hist)));
	EXPECT(a.files.n == 1 && !strcmp(il_file_path(&a, "259:0", 12), "/mnt/a file \xe9"));
	EXPECT(a.flows.n == 7 && !strcmp(a.flows.v[5].sock, "tcp") &&
	       a.flows.v[5].lat[IOLAYERS_L_WAIT] == 60000 &&
	       !strcmp(a.flows.v[6].disk, "nvme1n1-\xe9\xe9-0123456789abcdefghi+") &&
	       !strcmp(a.flows.v[2].comm, "caf\xc3\xa9 \x9b") &&
	       !strcmp(a.flows.v[6].missed, "vfs,block") && !strcmp(a.flows.v[6].dev, "259:1"));
	/* The same views. */
	b.realtime_off = a.realtime_off;
	b.binary = 1;
	strcpy(a.version, b.version);	/* the recorder's header here has none */
	for (i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		char *va = view_of(views[i], &a), *vb = view_of(views[i], &b);

		if (strcmp(va, vb))
			fprintf(stderr, "view %zu differs:\n%s\n---\n%s\n", i, va, vb);
		EXPECT(!strcmp(va, vb));
		free(va);
		free(vb);
	}
	/* -J: JSON lines that read as the binary recording does. */
	in = fmemopen(bin, blen, "r");
	m = open_memstream(&lines, &llen);
	EXPECT(in && m && !il_recording_json_lines(in, m, err, sizeof(err)));
	fclose(in);
	fclose(m);
	EXPECT(parse_mem(&c, lines, llen, IL_KEEP_ALL) == 0 && c.flows.n == 7 && c.files.n == 1 &&
	       !strcmp(il_file_path(&c, "259:0", 12), "/mnt/a file \xe9"));
	for (i = 0; i < 7 && c.flows.n == 7; i++)
		EXPECT(!memcmp(&a.flows.v[i], &c.flows.v[i], sizeof(a.flows.v[i])));
	EXPECT(!memcmp(a.hist, c.hist, sizeof(a.hist)));
	il_snapshot_free(&c);
	free(lines);
	il_snapshot_free(&a);
	il_snapshot_free(&b);

	/* What each view keeps: the newest 3 in order, the 2 slowest, one by id, of MISS only. */
	memset(&c, 0, sizeof(c));
	{
		FILE *bf = fmemopen(bin, blen, "r");

		c.keep = IL_KEEP_NEWEST;
		c.keep_n = 3;
		EXPECT(bf && !il_parse_recording(bf, &c, err, sizeof(err)) && c.flows.n == 3 &&
		       c.flows.v[0].seq == 11 && c.flows.v[1].seq == 12 && c.flows.v[2].seq == 13);
		fclose(bf);
		il_snapshot_free(&c);
		memset(&c, 0, sizeof(c));
		bf = fmemopen(bin, blen, "r");
		c.keep = IL_KEEP_SLOWEST;
		c.keep_n = 2;
		c.view_cache_mask = 1U << IOLAYERS_C_MISS;
		/* MISS: 7 (500 us), 8 (900 us), 9 (60 us), 10 (3 us): 8 and 7. */
		EXPECT(bf && !il_parse_recording(bf, &c, err, sizeof(err)) && c.flows.n == 2 &&
		       c.flows.v[0].seq + c.flows.v[1].seq == 15 && c.view_reads == 4);
		fclose(bf);
		il_snapshot_free(&c);
		memset(&c, 0, sizeof(c));
		bf = fmemopen(bin, blen, "r");
		c.keep = IL_KEEP_SEQ;
		c.keep_seq = 12;
		c.view_pid = 42;
		EXPECT(bf && !il_parse_recording(bf, &c, err, sizeof(err)) && c.flows.n == 1 &&
		       c.flows.v[0].seq == 12);
		fclose(bf);
		il_snapshot_free(&c);
		memset(&c, 0, sizeof(c));
		bf = fmemopen(bin, blen, "r");
		c.keep = IL_KEEP_ALL;
		c.view_pid = 43;	/* nobody's */
		EXPECT(bf && !il_parse_recording(bf, &c, err, sizeof(err)) && c.flows.n == 0 &&
		       c.rec_reads == 7 && c.view_reads == 0);
		fclose(bf);
		il_snapshot_free(&c);
	}

	/*
	 * Cut at every byte: read up to the damage, never past it, with a
	 * warning; a header cut short is an error.
	 */
	{
		size_t head = sizeof(struct il_recfile_head), first = 0, cut, whole;
		int bad = 0;

		memcpy(&first, bin + offsetof(struct il_recfile_head, json_len), 4);
		head += (first + 7) / 8 * 8;
		for (cut = 1; cut < blen; cut++) {
			int ret = parse_mem(&a, bin, cut, IL_KEEP_ALL);
			size_t at = head + sizeof(struct iolayers_rec_start);

			/* Reads whose every byte is before the cut. */
			whole = 0;
			for (i = 0; i < 8; i++) {
				if (at + sizes[i] > cut)
					break;
				whole += i != 4;
				at += sizes[i];
			}
			if (cut < head ? ret != -1 : ret != 1 || (size_t)a.flows.n != whole)
				bad++;
			il_snapshot_free(&a);
		}
		EXPECT(bad == 0);
	}
	/*
	 * -J of a damaged recording fails, saying where, after the lines of
	 * the records before the damage: cut in its third read (the loss is
	 * the fifth record), or a loss count no kernel writes.
	 */
	{
		size_t head = sizeof(struct il_recfile_head), first = 0, cut;
		char *out = NULL;
		size_t olen = 0;
		FILE *bf;

		memcpy(&first, bin + offsetof(struct il_recfile_head, json_len), 4);
		head += (first + 7) / 8 * 8;
		cut = head + sizeof(struct iolayers_rec_start) + sizes[0] + sizes[1] + 8;
		bf = fmemopen(bin, cut, "r");
		m = open_memstream(&out, &olen);
		EXPECT(bf && m && il_recording_json_lines(bf, m, err, sizeof(err)) == -1);
		fclose(bf);
		fclose(m);
		EXPECT(strstr(err, "cut short") && strstr(err, "after 2 reads"));
		/* The header's line and the two reads', no trailer. */
		for (i = 0, cut = 0; out && out[i]; i++)
			cut += out[i] == '\n';
		EXPECT(out && cut == 3 && !strstr(out, "\"end\"") && strstr(out, "\"seq\": 8,") &&
		       !strstr(out, "\"seq\": 9,"));
		free(out);
		out = NULL;
		{
			struct iolayers_rec_lost *l = (void *)(bin + head + sizeof(struct iolayers_rec_start) +
							       sizes[0] + sizes[1] + sizes[2] + sizes[3]);
			uint64_t was = l->count;

			EXPECT(l->hdr.type == IOLAYERS_REC_LOST);
			l->count = UINT64_MAX;
			bf = fmemopen(bin, blen, "r");
			m = open_memstream(&out, &olen);
			EXPECT(bf && m && il_recording_json_lines(bf, m, err, sizeof(err)) == -1);
			fclose(bf);
			fclose(m);
			EXPECT(strstr(err, "lost records no kernel writes") && strstr(err, "after 4 reads"));
			free(out);
			l->count = was;
		}
	}
	/* A file's path with a NUL in it: --from and -J stop there alike. */
	{
		char *path = bin + blen - sizeof(struct il_rec_end) - 16;
		char *out = NULL;
		size_t olen = 0;
		FILE *bf;

		EXPECT(!memcmp(path, "/mnt/a file \xe9", 13));
		path[4] = '\0';
		EXPECT(parse_mem(&a, bin, blen, IL_KEEP_ALL) == 1 && a.flows.n == 7 &&
		       strstr(a.warning, "not a file's record"));
		il_snapshot_free(&a);
		bf = fmemopen(bin, blen, "r");
		m = open_memstream(&out, &olen);
		EXPECT(bf && m && il_recording_json_lines(bf, m, err, sizeof(err)) == -1 &&
		       strstr(err, "not a file's record"));
		fclose(bf);
		fclose(m);
		free(out);
		path[4] = '/';
	}
	/* A damaged frame: a record shorter than its header, then reading stops. */
	{
		struct iolayers_rec_hdr *h = (void *)(bin + blen - sizeof(struct il_rec_end) -
						      sizeof(struct il_rec_file) - 16);

		h->size = 3;
		EXPECT(parse_mem(&a, bin, blen, IL_KEEP_ALL) == 1 && a.flows.n == 7 &&
		       strstr(a.warning, "shorter than its header"));
		il_snapshot_free(&a);
	}
	free(bin);
	free(json);
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * Percentiles of a recording against a sort of its latencies: within
 * 0.4 % (the log2 histogram's interpolation was off by 5 % at p50 and
 * 12 % at p99 here). 200,001 reads whose latencies spread over five
 * decades, and only the histograms kept.
 */
static void test_exact_percentiles(void)
{
	enum { N = 200001 };
	static const unsigned int pcts[3] = { 50, 90, 99 };
	struct iolayers_rec_read *r = calloc(N, sizeof(*r));
	int64_t *lat = calloc(N, sizeof(*lat));
	uint64_t x = 88172645463325252ULL;
	struct il_snapshot s;
	struct il_hist h;
	size_t blen, i;
	char *bin;
	int k, bad = 0;

	if (!r || !lat)
		abort();
	for (i = 0; i < N; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		rec_init(&r[i], i + 1);
		/* 1 us .. 100 ms, log-uniform */
		lat[i] = (int64_t)(1000.0 * pow(10, 5.0 * (double)(x % 1000003) / 1000003.0));
		r[i].ns[IOLAYERS_L_SYSCALL] = lat[i];
		r[i].ns[IOLAYERS_L_FS] = lat[i] / 2;
	}
	bin = binary_of(r, N * sizeof(*r), N, 0, &blen);
	EXPECT(parse_mem(&s, bin, blen, IL_KEEP_NONE) == 0 && s.flows.n == 0 &&
	       s.rec_reads == N && s.view_reads == N);
	il_layer_hist(&s, IOLAYERS_L_SYSCALL, ~0U, &h);
	qsort(lat, N, sizeof(*lat), cmp_i64);
	for (k = 0; k < 3; k++) {
		int64_t want = lat[(N * (uint64_t)pcts[k] + 99) / 100 - 1];
		uint64_t got = il_hist_percentile(&h, pcts[k]);
		double off = fabs((double)got - (double)want) / (double)want;

		if (!h.exact || off > 0.004) {
			fprintf(stderr, "p%u: %" PRIu64 " against %" PRId64 " (%.3f %%)\n", pcts[k],
				got, want, off * 100);
			bad++;
		}
	}
	EXPECT(bad == 0);
	/* The same per state straight from the snapshot's histogram (-j). */
	EXPECT(s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_MISS].exact &&
	       s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_MISS].pct[2] == il_hist_percentile(&h, 99));
	il_snapshot_free(&s);
	free(bin);
	free(r);
	free(lat);
}

/*
 * recordings/kinds.rec and kinds4.rec, binary recordings of binary_reads()
 * (the fuzzer's seeds, and files of earlier readers that this one must
 * read): the first of stream version 3 (every read whole), the second of
 * version 4 (brief ones where the module writes them); written with
 * --write-kinds FILE and --write-kinds4 FILE, read here, each read as
 * binary_reads() are.
 */
static void test_kinds_fixture(const char *write, int brief)
{
	static const char *const files[] = { "recordings/kinds.rec", "recordings/kinds4.rec" };
	struct iolayers_rec_read r[7];
	struct il_snapshot a, b;
	size_t n = binary_reads(r), blen, i, k, len = 0;
	char raw[sizeof(r)], *bin;
	FILE *f;

	for (i = 0; i < n; i++)
		len += brief ? rec_put(raw + len, &r[i]) : (memcpy(raw + len, &r[i], sizeof(r[i])),
							    sizeof(r[i]));
	bin = binary_of(raw, len, (long)n, 0, &blen);
	if (write) {
		f = fopen(write, "w");
		if (!f || fwrite(bin, 1, blen, f) != blen || fclose(f))
			abort();
	}
	EXPECT(parse_mem(&a, bin, blen, IL_KEEP_ALL) == 0);
	for (k = 0; k < 2 && !write; k++) {
		f = fopen(files[k], "r");
		memset(&b, 0, sizeof(b));
		EXPECT(f && !il_parse_recording(f, &b, (char[64]){ 0 }, 64) && !b.warning[0]);
		if (f)
			fclose(f);
		EXPECT(a.flows.n == 7 && b.flows.n == 7 && b.files.n == 1);
		for (i = 0; i < 7 && a.flows.n == 7 && b.flows.n == 7; i++)
			EXPECT(!memcmp(&a.flows.v[i], &b.flows.v[i], sizeof(a.flows.v[i])));
		il_snapshot_free(&b);
	}
	il_snapshot_free(&a);
	free(bin);
}

/* test_intervals()'s printer: each interval's end and its reads, lost records, MISS count. */
static int64_t ival_got[8][4];
static int ival_n;

static void ival_print(const struct il_snapshot *s, int64_t end_ns)
{
	if (ival_n < 8) {
		ival_got[ival_n][0] = end_ns;
		ival_got[ival_n][1] = s->rec_reads;
		ival_got[ival_n][2] = s->rec_lost;
		ival_got[ival_n][3] = (int64_t)il_cache_reads(s, IOLAYERS_C_MISS);
	}
	ival_n++;
}

/*
 * --from REC INTERVAL: reads ending at 0.5, 1.2, 1.7 and 3.1 s of the
 * records' clock, the wall clock 10^18 + 123456789 ns ahead (intervals end
 * on its whole seconds: at 0.876543211, 1.876543211... s of the records'
 * clock), a loss after the third: three intervals, none for the empty
 * one, every read and loss in one, the last printed at the end. Then a
 * recording of losses alone: one interval says so.
 */
static void test_intervals(void)
{
	static const int64_t ends[4] = { 500000000, 1200000000, 1700000000, 3100000000 };
	struct iolayers_rec_read r[4];
	struct iolayers_rec_lost lo = { { IOLAYERS_REC_LOST, sizeof(lo), 0 }, 2 };
	char raw[sizeof(r) + sizeof(lo)], *lines, *text, err[128] = "";
	struct il_snapshot s;
	uint64_t lost;
	long reads;
	FILE *f;
	int i;

	for (i = 0; i < 4; i++) {
		rec_init(&r[i], (uint64_t)i + 1);
		r[i].start_ns = (uint64_t)(ends[i] - 500000);
	}
	memcpy(raw, r, 3 * sizeof(r[0]));
	memcpy(raw + 3 * sizeof(r[0]), &lo, sizeof(lo));
	memcpy(raw + 3 * sizeof(r[0]) + sizeof(lo), &r[3], sizeof(r[0]));
	lines = convert(raw, sizeof(raw), &reads, &lost);
	if (asprintf(&text, "{\"iolayers_record\": 1, \"format\": %d, \"module\": \"iolayers x\", "
		     "\"settings\": {}, \"clock\": {\"realtime_ns\": 1000000000123456789, "
		     "\"monotonic_ns\": 0}}\n%s{\"end\": true, \"reads\": 4, \"lost\": 2}\n",
		     IOLAYERS_FORMAT_VERSION, lines) < 0)
		abort();
	memset(&s, 0, sizeof(s));
	s.keep = IL_KEEP_NONE;
	s.interval_ns = 1000000000;
	s.on_interval = ival_print;
	f = fmemopen(text, strlen(text), "r");
	EXPECT(f && !il_parse_recording(f, &s, err, sizeof(err)) && !s.warning[0]);
	if (f)
		fclose(f);
	EXPECT(ival_n == 3);
	EXPECT(ival_got[0][0] == 876543211 && ival_got[0][1] == 1 && ival_got[0][3] == 1);
	EXPECT(ival_got[1][0] == 1876543211 && ival_got[1][1] == 2 && ival_got[1][2] == 2);
	EXPECT(ival_got[2][0] == 3876543211 && ival_got[2][1] == 1 && ival_got[2][2] == 0);
	/* The whole recording's counts stay. */
	EXPECT(s.rec_reads == 4 && s.rec_lost == 2);
	il_snapshot_free(&s);
	free(text);
	free(lines);

	ival_n = 0;
	text = "{\"iolayers_record\": 1, \"format\": 9, \"module\": \"iolayers x\", "
	       "\"settings\": {}}\n{\"lost\": 7, \"cpu\": 0}\n{\"end\": true, \"reads\": 0, "
	       "\"lost\": 7}\n";
	memset(&s, 0, sizeof(s));
	s.keep = IL_KEEP_NONE;
	s.interval_ns = 1000000000;
	s.on_interval = ival_print;
	f = fmemopen(text, strlen(text), "r");
	EXPECT(f && !il_parse_recording(f, &s, err, sizeof(err)));
	if (f)
		fclose(f);
	EXPECT(ival_n == 1 && ival_got[0][1] == 0 && ival_got[0][2] == 7);
	il_snapshot_free(&s);
}

/*
 * The heatmap's grid holds every read once, in its time's column and its
 * latency's row, when 20 s of reads outgrow 720 columns of 1 ms: the
 * columns folded to 32 ms, 625 of them, no read lost on the way.
 */
static void test_heatmap_fold(void)
{
	struct il_heat h = { 0 };
	struct il_flow f;
	uint64_t sum = 0;
	int i, r;

	memset(&f, 0, sizeof(f));
	for (i = 0; i < IOLAYERS_NR_LAYERS; i++)
		f.lat[i] = -1;
	f.cache = IOLAYERS_C_MISS;
	for (i = 0; i < 2000; i++) {
		f.lat[IOLAYERS_L_SYSCALL] = 1000 + i;
		f.start_ns = (int64_t)i * 10000000 - f.lat[IOLAYERS_L_SYSCALL];
		EXPECT(!il_heat_add(&h, &f, 0));
	}
	EXPECT(h.width_ns == 32000000 && h.ncols == 625 && h.p[IOLAYERS_L_SYSCALL][IOLAYERS_C_MISS]);
	if (h.p[IOLAYERS_L_SYSCALL][IOLAYERS_C_MISS]) {
		const struct il_heat_panel *p = h.p[IOLAYERS_L_SYSCALL][IOLAYERS_C_MISS];

		for (i = 0; i < IL_HEAT_COLS; i++)
			for (r = 0; r < IL_HEAT_ROWS; r++)
				sum += p->cell[i][r];
		EXPECT(sum == 2000 && p->count == 2000);
		/* Rows: 1000 in [768, 1024), 2999 in [2048, 3072); column 0 the first 32 ms. */
		EXPECT(p->cell[0][il_heat_row(1000)] == 4 && il_heat_row(1000) == 19 &&
		       il_heat_row(2999) == 22 && il_heat_row(1) == 0 && il_heat_row(3) == 3);
	}
	il_heat_free(&h);

	/* Anchored: the first column starts before 0 of the records' clock, its end drawn. */
	memset(&h, 0, sizeof(h));
	f.lat[IOLAYERS_L_SYSCALL] = 5;
	f.start_ns = 0;
	EXPECT(!il_heat_add(&h, &f, 123456789) && h.t0 == -456789);
	{
		struct il_snapshot s = { .heat = &h, .realtime_off = 123456789 };
		char *svg = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&svg, &len);

		EXPECT(m && il_view_heatmap(m, &s) == 1);
		fclose(m);
		free(svg);
	}
	il_heat_free(&h);
}

int main(int argc, char **argv)
{
	if (argc == 3 && (!strcmp(argv[1], "--write-kinds") ||
			  !strcmp(argv[1], "--write-kinds4"))) {
		test_kinds_fixture(argv[2], !strcmp(argv[1], "--write-kinds4"));
		return failures ? 1 : 0;
	}
	rec_json = 1;	/* record --json; the binary recording's tests set it apart */
	test_json_lines();
	test_sizes();
	test_csv();
	test_fault();
	test_brief();
	test_binary();
	test_exact_percentiles();
	test_kinds_fixture(NULL, 0);
	test_kinds_fixture(NULL, 1);
	test_intervals();
	test_heatmap_fold();
	printf("test_record: %s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
