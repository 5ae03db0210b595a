// SPDX-License-Identifier: GPL-2.0
/*
 * iolayers record: save the module's stream of completed reads
 * (stream/raw, the binary records of include/uapi/iolayers.h). By default
 * as they come, in a binary recording (iolayers.h, struct
 * il_recfile_head): the recorder checks each record's frame and counts
 * reads and losses, and writes what the module gave in large writes, so
 * that it costs a small part of what the module does per read. --json:
 * JSON lines, a header object, one object per read (a read-family
 * syscall, an io_uring or a Linux AIO read request, a page fault on a
 * file's mapping) or loss, a trailer; `iolayers --from REC -J` makes the
 * same of a binary recording. --csv: seed 000's event rows.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <stddef.h>
#include "iolayers.h"
#include "../include/uapi/iolayers.h"

#define LIVE_ROOT	"/sys/kernel/debug/" IOLAYERS_DEBUGFS_DIR
#define IOLAYERS_FILES_LINE	1024

static volatile sig_atomic_t rec_stop, rec_child_done;

static void rec_on_signal(int sig)
{
	if (sig == SIGCHLD)
		rec_child_done = 1;
	else
		rec_stop = 1;
}

/* The first line of a small file, without its newline; "" if unreadable. */
static void rec_file_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* CLOCK_REALTIME and CLOCK_MONOTONIC read together: the wall-clock anchor. */
static void rec_clocks(uint64_t *realtime, uint64_t *monotonic)
{
	struct timespec m0, r, m1;

	clock_gettime(CLOCK_MONOTONIC, &m0);
	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m1);
	*realtime = (uint64_t)r.tv_sec * 1000000000 + (uint64_t)r.tv_nsec;
	*monotonic = ((uint64_t)m0.tv_sec * 1000000000 + (uint64_t)m0.tv_nsec +
		      (uint64_t)m1.tv_sec * 1000000000 + (uint64_t)m1.tv_nsec) / 2;
}

/*
 * The header object, without its newline: the module's version and
 * settings, the command, the clocks at the start (the records' times are
 * CLOCK_MONOTONIC: CLOCK_REALTIME minus that is their wall-clock time).
 */
static void rec_header(FILE *out, const struct iolayers_rec_start *st, char **cmd)
{
	static const char * const params[] = {
		"pid", "comm", "cgroup", "children", "flows", "buffer_kb", "slow_us", "batch_us",
		"max_flows", "expire_ms",
	};
	/* A setting's value: the cgroup's path can be as long as a path. */
	char buf[4096 + 16], path[512];
	uint64_t rt, mono;
	struct utsname u;
	unsigned int i;

	uname(&u);
	rec_file_line(LIVE_ROOT "/" IOLAYERS_FILE_VERSION, buf, sizeof(buf));
	fprintf(out, "{\"iolayers_record\": 1, \"stream_version\": %u, \"format\": %u, ",
		st->version, st->format);
	fprintf(out, "\"kernel\": ");
	il_json_str(out, u.release, sizeof(u.release));
	fprintf(out, ", \"module\": ");
	il_json_str(out, buf, sizeof(buf));
	fprintf(out, ", \"open_ns\": %llu, \"settings\": {", (unsigned long long)st->open_ns);
	for (i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", il_params_dir(), params[i]);
		rec_file_line(path, buf, sizeof(buf));
		fprintf(out, "%s\"%s\": ", i ? ", " : "", params[i]);
		il_json_str(out, buf, sizeof(buf));
	}
	fprintf(out, "}, \"command\": [");
	for (i = 0; cmd && cmd[i]; i++) {
		fprintf(out, "%s", i ? ", " : "");
		il_json_str(out, cmd[i], strlen(cmd[i]));
	}
	rec_clocks(&rt, &mono);
	fprintf(out, "], \"clock\": {\"realtime_ns\": %llu, \"monotonic_ns\": %llu}}",
		(unsigned long long)rt, (unsigned long long)mono);
}

/* ", KEY: V" with null for a negative value (the layer was not timed). */
static char *rec_i64(char *p, const char *key, int64_t v)
{
	p = il_put(p, key);
	return v < 0 ? il_put(p, "null") : il_put_i64(p, v);
}

/*
 * A read's latency at layer @l (-1: not reached). A request's or a
 * fault's whole latency (@ns[0], submission to its completion, an
 * io_uring CQE or an AIO event; a fault's entry to its last return) is
 * its layer's (uring, aio, fault): it has no syscall's.
 */
static int64_t il_rec_lat(const struct iolayers_rec_read *r, int l)
{
	if (il_is_top(l))
		return l == iolayers_via_layer(r->via) ? r->ns[IOLAYERS_L_SYSCALL] : -1;
	switch (l) {
	case IOLAYERS_L_SOCK:
		return r->sock_ns;
	case IOLAYERS_L_TCP:
		return r->tcp_ns;
	case IOLAYERS_L_WAIT:
		return r->wait_ns;
	default:
		return l < IOLAYERS_REC_LAYERS ? r->ns[l] : -1;
	}
}

static char *rec_dev(char *p, const char *key, unsigned int major, unsigned int minor)
{
	p = il_put(p, key);
	p = il_put_u64(il_put(p, "\""), major);
	*p++ = ':';
	return il_put(il_put_u64(p, minor), "\"");
}

/*
 * The syscall's name; a request's prefix ("io_uring", "aio"), a colon
 * and its opcode's name (its number for one the uapi header does not
 * name); a fault's prefix alone ("fault"): as `flows` names them.
 */
static char *rec_syscall(char *p, const struct iolayers_rec_read *r)
{
	static const char * const sys[] = IOLAYERS_SYSCALL_NAMES;
	const char *kind = iolayers_via_prefix(r->via), *op;

	if (!kind)
		return il_put(p, r->syscall < sizeof(sys) / sizeof(sys[0]) ? sys[r->syscall] : "?");
	if (!iolayers_via_request(r->via))
		return il_put(p, kind);
	op = iolayers_req_op_name(r->via, r->syscall);
	p = il_put(il_put(p, kind), ":");
	return op ? il_put(p, op) : il_put_u64(p, r->syscall);
}

/*
 * A request's own part (io_uring's, AIO's): its attempts, their time, the
 * first one's start, where they ran; null for a syscall or a fault.
 */
static char *rec_req(char *p, const struct iolayers_rec_read *r)
{
	static const char * const where[] = IOLAYERS_URING_WHERE_NAMES;
	unsigned int k, n = 0;

	if (!iolayers_via_request(r->via))
		return il_put(p, ", \"ur_attempts\": null, \"ur_issue_ns\": null, "
			      "\"ur_issue_off\": null, \"ur_where\": null");
	p = il_put_u64(il_put(p, ", \"ur_attempts\": "), r->attempts);
	p = rec_i64(p, ", \"ur_issue_ns\": ", r->ur_issue_ns);
	p = rec_i64(p, ", \"ur_issue_off\": ", r->ur_issue_off);
	p = il_put(p, ", \"ur_where\": [");
	for (k = 0; k < sizeof(where) / sizeof(where[0]); k++)
		if (r->where & (1U << k)) {
			p = il_put(p, n++ ? ", \"" : "\"");
			p = il_put(il_put(p, where[k]), "\"");
		}
	return il_put(p, "]");
}

/*
 * One read as a JSON line. Formatted into a buffer and written with one
 * fwrite(): the recorder must keep up with the module on one CPU, and
 * fprintf() per field cost it about 23,500 instructions a read.
 */
static void rec_read(FILE *out, const struct iolayers_rec_read *r)
{
	static const char * const missed[] = { "vfs", "fs", "block", "sock" };
	static const char * const socks[] = IOLAYERS_SOCK_NAMES;
	/*
	 * Its strings escaped, and the rest: its keys and numbers, 1,416
	 * bytes with every number at its largest (tests/test_record.c).
	 */
	char line[2048 + IL_JSON_STR_MAX(sizeof(r->comm)) + IL_JSON_STR_MAX(sizeof(r->disk))];
	char *p = line;
	int l, k, n = 0;

	p = il_put_u64(il_put(p, "{\"seq\": "), r->seq);
	p = il_put_u64(il_put(p, ", \"cpu\": "), r->hdr.cpu);
	p = il_put_i64(il_put(p, ", \"tid\": "), r->tid);
	p = il_put_i64(il_put(p, ", \"tgid\": "), r->tgid);
	p = il_put_str(il_put(p, ", \"comm\": "), r->comm, sizeof(r->comm));
	p = rec_syscall(il_put(p, ", \"syscall\": \""), r);
	p = il_put_i64(il_put(p, "\", \"fd\": "), r->fd);
	p = il_put_i64(il_put(p, ", \"pos\": "), r->pos);
	p = il_put_u64(il_put(p, ", \"req\": "), r->req);
	p = il_put_i64(il_put(p, ", \"ret\": "), r->ret);
	p = il_put(il_put(p, ", \"cache\": \""),
		   r->cache < IOLAYERS_NR_CACHE ? il_cache_names[r->cache] : "?");
	p = il_put_u64(il_put(p, "\", \"start_ns\": "), r->start_ns);
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++) {
		p = il_put(il_put(p, ", \""), il_layer_names[l]);
		p = rec_i64(p, "_ns\": ", il_rec_lat(r, l));
	}
	p = rec_i64(p, ", \"vfs_off\": ", r->vfs_off);
	p = rec_i64(p, ", \"fs_off\": ", r->fs_off);
	p = rec_i64(p, ", \"queue_off\": ", r->queue_off);
	p = rec_i64(p, ", \"issue_off\": ", r->issue_off);
	p = rec_i64(p, ", \"device_off\": ", r->device_off);
	p = rec_i64(p, ", \"done_off\": ", r->done_off);
	p = il_put_u64(il_put(p, ", \"bios\": "), r->bios);
	p = il_put_u64(il_put(p, ", \"rqs\": "), r->rqs);
	p = il_put_u64(il_put(p, ", \"bio_bytes\": "), r->bio_bytes);
	p = il_put_u64(il_put(p, ", \"rq_bytes\": "), r->rq_bytes);
	p = il_put_u64(il_put(p, ", \"ra_bytes\": "), r->ra_bytes);
	p = il_put_u64(il_put(p, ", \"requeues\": "), r->requeues);
	p = il_put_u64(il_put(p, ", \"errors\": "), r->errors);
	/* Past 2^63 no JSON parser takes it: as no file seen (il_flow_from_rec()). */
	if (r->ino && r->ino <= INT64_MAX) {
		p = il_put_u64(il_put(p, ", \"ino\": "), r->ino);
		p = rec_dev(p, ", \"fs_dev\": ", r->fs_major, r->fs_minor);
	} else {
		p = il_put(p, ", \"ino\": null, \"fs_dev\": null");
	}
	if (r->rqs && r->dev_major)
		p = rec_dev(p, ", \"dev\": ", r->dev_major, r->dev_minor);
	else
		p = il_put(p, ", \"dev\": null");
	p = il_put(p, ", \"disk\": ");
	p = r->disk[0] ? il_put_str(p, r->disk, sizeof(r->disk)) : il_put(p, "null");
	p = il_put_u64(il_put(p, ", \"ndisks\": "), r->ndisks);
	p = il_put(p, ", \"missed\": [");
	for (k = 0; k < 4; k++)
		if (r->missed & (1U << k)) {
			p = il_put(p, n++ ? ", \"" : "\"");
			p = il_put(il_put(p, missed[k]), "\"");
		}
	p = il_put(p, "]");
	if (r->sock && r->sock < IOLAYERS_NR_SOCK_KINDS) {
		p = il_put(il_put(il_put(p, ", \"sock\": \""), socks[r->sock]), "\"");
		p = rec_i64(p, ", \"sock_off\": ", r->sock_off);
		p = rec_i64(p, ", \"tcp_off\": ", r->tcp_off);
	} else {
		p = il_put(p, ", \"sock\": null, \"sock_off\": null, \"tcp_off\": null");
	}
	p = rec_req(p, r);
	p = il_put(p, "}\n");
	fwrite(line, 1, (size_t)(p - line), out);
}

/* --csv: seed 000's event schema, one row per event of a read. */
#define CSV_HEADER "Time,Hier,Stage,TGID,TID,Comm,CPU,Flow_SYSCALL,Flow_VFS,Flow_FS,Bytes," \
	"LBA/NR,SectorSz,ReqPtr,DevDisk,Flow_SYSCALL_Lat,Flow_VFS_Lat,Flow_FS_Lat,Queue_Lat," \
	"Service_Lat,Device_Lat,Cache_State,IsDirect"

static int rec_csv, rec_json;

/* A CSV field, quoted (RFC 4180); bytes that are not printable ASCII as '?'. */
static void csv_str(FILE *out, const char *s, size_t max)
{
	size_t i;

	fputc('"', out);
	for (i = 0; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"')
			fputs("\"\"", out);
		else
			fputc(c < 0x20 || c >= 0x7f ? '?' : c, out);
	}
	fputc('"', out);
}

static void csv_opt(FILE *out, int64_t v)
{
	if (v >= 0)
		fprintf(out, ",%lld", (long long)v);
	else
		fputc(',', out);
}

/*
 * One row: the event at @off ns after sys_enter, its layer and stage, the
 * bytes it concerns, and the latencies it ends (-1: none).
 */
static void csv_row(FILE *out, const struct iolayers_rec_read *r, int64_t off, const char *hier,
		    const char *stage, int64_t bytes, const int64_t lat[6], int last)
{
	fprintf(out, "%llu,%s,%s,%d,%d,", (unsigned long long)(r->start_ns + off), hier, stage,
		r->tgid, r->tid);
	csv_str(out, r->comm, sizeof(r->comm));
	fprintf(out, ",%u,%llu", r->hdr.cpu, (unsigned long long)r->seq);
	csv_opt(out, r->vfs_off >= 0 ? (int64_t)r->seq : -1);
	csv_opt(out, r->fs_off >= 0 ? (int64_t)r->seq : -1);
	csv_opt(out, bytes);
	/* No LBA, sector size or request pointer: pointers never leave the kernel. */
	fputs(",,,,", out);
	if (r->disk[0] && (!strcmp(hier, "BLOCK") || !strcmp(hier, "DEVICE")))
		csv_str(out, r->disk, sizeof(r->disk));
	for (int i = 0; i < 6; i++)
		csv_opt(out, lat[i]);
	if (last)
		fprintf(out, ",%s,%d\n",
			r->cache < IOLAYERS_NR_CACHE ? il_cache_names[r->cache] : "?",
			r->cache == IOLAYERS_C_DIRECT);
	else
		fputs(",,\n", out);
}

/*
 * A read's rows. A syscall's first and last are SYSCALL enter and exit; a
 * request's its layer's (URING, AIO) submit and complete (its CQE, its
 * event), a fault's FAULT enter and return, the time between them its
 * latency: the schema has no column for it, and it is no syscall's
 * (Flow_SYSCALL_Lat empty).
 */
static void rec_read_csv(FILE *out, const struct iolayers_rec_read *r)
{
	static const struct {
		const char *hier, *start, *end;
	} top[IL_NR_VIA] = {
		[IOLAYERS_VIA_SYSCALL] = { "SYSCALL", "enter", "exit" },
		[IOLAYERS_VIA_URING] = { "URING", "submit", "complete" },
		[IOLAYERS_VIA_AIO] = { "AIO", "submit", "complete" },
		[IOLAYERS_VIA_FAULT] = { "FAULT", "enter", "return" },
	};
	const int64_t none[6] = { -1, -1, -1, -1, -1, -1 };
	int64_t lat[6];

	csv_row(out, r, 0, top[r->via].hier, top[r->via].start, (int64_t)r->req, none, 0);
	if (r->vfs_off >= 0)
		csv_row(out, r, r->vfs_off, "VFS", "enter", (int64_t)r->req, none, 0);
	if (r->fs_off >= 0)
		csv_row(out, r, r->fs_off, "FS", "enter", (int64_t)r->req, none, 0);
	if (r->queue_off >= 0)
		csv_row(out, r, r->queue_off, "BLOCK", "queue", (int64_t)r->bio_bytes, none, 0);
	if (r->issue_off >= 0) {
		memcpy(lat, none, sizeof(lat));
		lat[3] = r->ns[IOLAYERS_L_QUEUE];
		csv_row(out, r, r->issue_off, "BLOCK", "issue", (int64_t)r->rq_bytes, lat, 0);
	}
	if (r->device_off >= 0) {
		memcpy(lat, none, sizeof(lat));
		lat[5] = r->ns[IOLAYERS_L_DEVICE];
		csv_row(out, r, r->device_off, "DEVICE", "complete", (int64_t)r->rq_bytes, lat, 0);
	}
	if (r->done_off >= 0) {
		memcpy(lat, none, sizeof(lat));
		lat[4] = r->ns[IOLAYERS_L_SERVICE];
		csv_row(out, r, r->done_off, "BLOCK", "complete", (int64_t)r->rq_bytes, lat, 0);
	}
	lat[0] = r->via == IOLAYERS_VIA_SYSCALL ? r->ns[IOLAYERS_L_SYSCALL] : -1;
	lat[1] = r->ns[IOLAYERS_L_VFS];
	lat[2] = r->ns[IOLAYERS_L_FS];
	lat[3] = r->ns[IOLAYERS_L_QUEUE];
	lat[4] = r->ns[IOLAYERS_L_SERVICE];
	lat[5] = r->ns[IOLAYERS_L_DEVICE];
	csv_row(out, r, r->ns[IOLAYERS_L_SYSCALL], top[r->via].hier, top[r->via].end,
		r->ret > 0 ? r->ret : 0, lat, 1);
}

/*
 * Records in @buf (whole ones, as the module gives them); returns reads
 * and adds losses to @lost. -1 on a record that does not make sense. A
 * read's via is one this reader knows from here on (il_via()).
 */
static long rec_records(FILE *out, const char *buf, size_t len, uint64_t *lost,
			struct iolayers_rec_start *start)
{
	long reads = 0;
	size_t off = 0;

	while (off + sizeof(struct iolayers_rec_hdr) <= len) {
		struct iolayers_rec_hdr h;

		memcpy(&h, buf + off, sizeof(h));
		if (h.size < sizeof(h) || off + h.size > len)
			return -1;
		if (il_rec_is_read(h.type)) {
			struct iolayers_rec_read r;

			if (h.size < il_rec_read_min(h.type))
				return -1;
			/* A binary recording's are counted only: written as they came. */
			if (rec_csv || rec_json) {
				if (il_rec_read_get(h.type, buf + off, h.size, &r))
					return -1;
				if (rec_csv)
					rec_read_csv(out, &r);
				else
					rec_read(out, &r);
			}
			reads++;
		} else if (h.type == IOLAYERS_REC_LOST && h.size >= sizeof(struct iolayers_rec_lost)) {
			struct iolayers_rec_lost l;

			memcpy(&l, buf + off, sizeof(l));
			if (rec_csv)
				fprintf(out, ",STREAM,lost,,,,%u,,,,%llu,,,,,,,,,,,,\n", l.hdr.cpu,
					(unsigned long long)l.count);
			else if (rec_json)
				fprintf(out, "{\"lost\": %llu, \"cpu\": %u}\n",
					(unsigned long long)l.count, l.hdr.cpu);
			*lost += l.count;
		} else if (h.type == IOLAYERS_REC_START && h.size >= sizeof(*start)) {
			memcpy(start, buf + off, sizeof(*start));
		}
		off += h.size;
	}
	return off == len ? reads : -1;
}

/* The start of a binary recording: its head, its header object, zeros to 8 bytes. */
static int rec_bin_head(FILE *out, const struct iolayers_rec_start *st, char **cmd)
{
	static const char zeros[8];
	struct il_recfile_head head = { .version = IL_RECFILE_VERSION };
	char *json = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&json, &len);

	if (!m)
		return -1;
	rec_header(m, st, cmd);
	if (fclose(m) || len > IL_RECFILE_MAX_JSON) {
		free(json);
		return -1;
	}
	memcpy(head.magic, IL_RECFILE_MAGIC, sizeof(head.magic));
	head.json_len = (uint32_t)len;
	fwrite(&head, sizeof(head), 1, out);
	fwrite(json, 1, len, out);
	fwrite(zeros, 1, (8 - len % 8) % 8, out);
	free(json);
	return 0;
}

/* A binary recording's file record: @path of (@ma:@mi, @ino). */
static void rec_bin_file(FILE *out, unsigned int ma, unsigned int mi, uint64_t ino,
			 const char *path)
{
	static const char zeros[8];
	struct il_rec_file fr = { .hdr.type = IL_REC_FILE };
	size_t len = strlen(path), pad;

	if (len > IOLAYERS_FILES_LINE)
		len = IOLAYERS_FILES_LINE;
	pad = (8 - (sizeof(fr) + len) % 8) % 8;
	fr.hdr.size = (uint16_t)(sizeof(fr) + len + pad);
	fr.fs_major = ma;
	fr.fs_minor = mi;
	fr.ino = ino;
	fr.path_len = (uint32_t)len;
	fwrite(&fr, sizeof(fr), 1, out);
	fwrite(path, 1, len, out);
	fwrite(zeros, 1, pad, out);
}

/* A binary recording's trailer: what it holds, the clocks at its end. */
static void rec_bin_end(FILE *out, long reads, uint64_t lost)
{
	struct il_rec_end e = { .hdr.type = IL_REC_END, .hdr.size = sizeof(e) };

	e.reads = (uint64_t)reads;
	e.lost = lost;
	rec_clocks(&e.realtime_ns, &e.monotonic_ns);
	fwrite(&e, sizeof(e), 1, out);
}

/* The paths of the files read (the module's `files`), before the trailer. */
static void rec_files(FILE *out)
{
	char line[IOLAYERS_FILES_LINE];
	unsigned int ma, mi;
	long long ino;
	int n;
	FILE *f = fopen(LIVE_ROOT "/" IOLAYERS_FILE_FILES, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		n = 0;
		if (sscanf(line, "%u:%u %lld %n", &ma, &mi, &ino, &n) != 3 || !n)
			continue;	/* the header */
		if (!rec_json) {
			if (ino > 0)
				rec_bin_file(out, ma, mi, (uint64_t)ino, line + n);
			continue;
		}
		fprintf(out, "{\"file\": {\"fs_dev\": \"%u:%u\", \"ino\": %lld, \"path\": ", ma, mi,
			ino);
		il_json_str(out, line + n, strlen(line + n));
		fprintf(out, "}}\n");
	}
	fclose(f);
}

static void rec_usage(FILE *f)
{
	fprintf(f,
		"usage: iolayers record [-o FILE] [--duration S] [--json|--csv]\n"
		"                       [-- COMMAND [ARG...]]\n"
		"Save every read the module follows until Ctrl-C, S seconds, or COMMAND's\n"
		"exit, in a binary recording (the module's records as they come, its\n"
		"settings, a wall-clock anchor, the paths of the files read): read it with\n"
		"iolayers --from FILE and any view, or --from FILE -J for JSON lines. With\n"
		"COMMAND, the module follows it and its children (this sets the module's\n"
		"pid and children).\n"
		"--json: JSON lines instead (a header object, one object per read,\n"
		"{\"lost\": N} where records were lost, the files' paths, a trailer).\n"
		"--csv: one row per event of each read instead (enter and exit of the\n"
		"syscall, an io_uring or AIO request's submit and complete, or a page\n"
		"fault's enter and return, VFS and FS entries, block queue, issue and\n"
		"completions), the columns of seed 000's event schema; a row\n"
		"STREAM,lost where records were lost.\n");
}

/*
 * Where the recording goes. A regular file, or none yet: a file beside
 * @path (@tmp, its name), with the mode of the file it replaces (or a new
 * file's), renamed over @path once the recording ends. Anything else
 * (/dev/null, a FIFO, a terminal, a symbolic link) is opened as it is, and
 * @tmp is "": renaming over it would replace the device node or the link.
 */
static FILE *rec_open_output(const char *path, char *tmp, size_t len)
{
	mode_t mask = umask(0), mode;
	struct stat st;
	int fd, exists;
	FILE *f;

	umask(mask);
	tmp[0] = '\0';
	exists = !lstat(path, &st);
	if (exists && !S_ISREG(st.st_mode)) {
		f = fopen(path, "w");
		if (!f)
			fprintf(stderr, "iolayers record: %s: %s\n", path, strerror(errno));
		return f;
	}
	mode = exists ? st.st_mode & 07777 : 0666 & ~mask;
	if (snprintf(tmp, len, "%s.XXXXXX", path) >= (int)len) {
		fprintf(stderr, "iolayers record: %s: name too long\n", path);
		return NULL;
	}
	fd = mkstemp(tmp);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f || fchmod(fd, mode)) {
		fprintf(stderr, "iolayers record: %s: %s\n", tmp, strerror(errno));
		if (f)
			fclose(f);
		else if (fd >= 0)
			close(fd);
		if (fd >= 0)
			unlink(tmp);
		return NULL;
	}
	/* Root records: the file keeps its owner (best effort). */
	if (exists)
		(void)!fchown(fd, st.st_uid, st.st_gid);
	return f;
}

/*
 * The command of `-- COMMAND` when the recording cannot start (no child:
 * nothing to do): it still waits at the gate, and closing it ends the
 * child before it runs anything; it is reaped here.
 */
static void rec_cancel_child(pid_t child, int gate)
{
	if (child <= 0)
		return;
	close(gate);
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
}

/* A recording that never started: its file goes, @path is untouched. */
static void rec_discard(FILE *out, const char *path, const char *tmp)
{
	if (!path)
		return;
	fclose(out);
	if (tmp[0])
		unlink(tmp);
}

/* Start @cmd stopped on a pipe; the caller lets it go with rec_release(). */
static pid_t rec_spawn(char **cmd, int *gate)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		close(p[0]);
		execvp(cmd[0], cmd);
		fprintf(stderr, "iolayers record: %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	*gate = p[1];
	return pid;
}

/**
 * il_record_main() - `iolayers record`.
 * @argc: arguments after the reader's name, "record" first
 * @argv: them
 *
 * Return: the exit status: 0 when the recording was saved (Ctrl-C
 * included), 1 on an error, 2 on bad usage.
 */
int il_record_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "csv", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct sigaction sa = { .sa_handler = rec_on_signal }, old;
	struct iolayers_rec_start start = { 0 };
	const char *path = NULL;
	uint64_t lost = 0;
	long duration = 0, reads = 0, n;
	time_t draining = 0;
	int fd, gate = -1, c, ret = 0, status;
	char **cmd = NULL, *end;
	pid_t child = 0;
	/* Large reads and writes: the recorder's cost per read is theirs over many. */
	static char buf[1 << 20];
	char tmp[PATH_MAX];
	FILE *out = stdout;
	ssize_t len;

	while ((c = getopt_long(argc, argv, "+o:d:cjh", lopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			rec_csv = 1;
			break;
		case 'j':
			rec_json = 1;
			break;
		case 'o':
			path = optarg;
			break;
		case 'd':
			errno = 0;
			duration = strtol(optarg, &end, 10);
			if (errno || *end || duration <= 0 || duration > 86400 * 365) {
				fprintf(stderr, "iolayers record: invalid duration '%s'\n", optarg);
				return 2;
			}
			break;
		case 'h':
			rec_usage(stdout);
			return 0;
		default:
			rec_usage(stderr);
			return 2;
		}
	}
	if (rec_csv && rec_json) {
		fprintf(stderr, "iolayers record: --csv and --json: choose one\n");
		return 2;
	}
	if (!rec_csv && !rec_json && !path && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "iolayers record: a binary recording is not for a terminal: "
			"-o FILE, or --json\n");
		return 2;
	}
	if (optind < argc)
		cmd = argv + optind;
	/* No SA_RESTART: a signal ends the blocking read of the stream. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/*
	 * The terminal closed (ssh dropped): save what was recorded, as on
	 * Ctrl-C; unless hang-ups are ignored (nohup), which the command
	 * inherits too.
	 */
	if (!sigaction(SIGHUP, NULL, &old) && old.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	if (cmd) {
		char pid[32];

		child = rec_spawn(cmd, &gate);
		if (child < 0) {
			fprintf(stderr, "iolayers record: fork: %s\n", strerror(errno));
			return 1;
		}
		snprintf(pid, sizeof(pid), "%d", child);
		if (il_set_param(IOLAYERS_FILE_PID, pid) || il_set_param(IOLAYERS_FILE_CHILDREN, "1")) {
			rec_cancel_child(child, gate);
			return 1;
		}
		fprintf(stderr, "iolayers record: following %s (pid %d; the module's pid setting)\n",
			cmd[0], child);
	}
	/* The stream starts at the open: before the command runs. */
	fd = open(LIVE_ROOT "/" IOLAYERS_STREAM_DIR "/" IOLAYERS_FILE_RAW, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "iolayers record: %s/%s/%s: %s%s\n", LIVE_ROOT, IOLAYERS_STREAM_DIR,
			IOLAYERS_FILE_RAW, strerror(errno),
			errno == EBUSY ? " (another reader has the stream)" :
			errno == ENOENT ? " (is the module loaded?)" :
			errno == ENODATA ? " (the module keeps no records: flows=0)" : "");
		rec_cancel_child(child, gate);
		return 1;
	}
	/*
	 * The output only now that the stream is open, and as a file beside
	 * FILE renamed over it at the end: a failure never clobbers an
	 * earlier recording, and FILE is never half written.
	 */
	if (path && !(out = rec_open_output(path, tmp, sizeof(tmp)))) {
		rec_cancel_child(child, gate);
		return 1;
	}
	if (duration)
		alarm((unsigned int)duration);
	/* The start record is there at the open: checked before the command runs. */
	len = read(fd, buf, sizeof(buf));
	if (len < (ssize_t)sizeof(start) ||
	    rec_records(out, buf, sizeof(start), &lost, &start) != 0 ||
	    start.hdr.type != IOLAYERS_REC_START) {
		fprintf(stderr, "iolayers record: the stream does not start with its version\n");
		rec_discard(out, path, tmp);
		rec_cancel_child(child, gate);
		return 1;
	}
	/* Version 3's records are 4's but for brief ones, which it never writes. */
	if (start.version < 3 || start.version > IOLAYERS_STREAM_VERSION) {
		fprintf(stderr, "iolayers record: stream version %u, this reader knows 3 to %u\n",
			start.version, IOLAYERS_STREAM_VERSION);
		rec_discard(out, path, tmp);
		rec_cancel_child(child, gate);
		return 1;
	}
	if (rec_csv) {
		fprintf(out, "%s\n", CSV_HEADER);
	} else if (rec_json) {
		rec_header(out, &start, cmd);
		fputc('\n', out);
	} else if (rec_bin_head(out, &start, cmd)) {
		fprintf(stderr, "iolayers record: the recording's header could not be made "
			"(out of memory, or a command line over 1 MiB)\n");
		rec_discard(out, path, tmp);
		rec_cancel_child(child, gate);
		close(fd);
		return 1;
	}
	/* The header made: the command may run. */
	if (gate >= 0) {
		if (write(gate, "g", 1) != 1)
			ret = 1;
		close(gate);
	}
	n = rec_records(out, buf + sizeof(start), len - sizeof(start), &lost, &start);
	/* A binary recording: the records as they came, the start record first. */
	if (n >= 0 && !rec_csv && !rec_json)
		fwrite(buf, 1, (size_t)len, out);
	while (n >= 0) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		reads += n;
		n = 0;
		if (!draining && (rec_stop || (rec_child_done && child > 0 &&
					       waitpid(child, &status, WNOHANG) == child))) {
			/*
			 * The command's reads are all written once it has
			 * exited; after Ctrl-C or the duration, what was
			 * written before it. Take those, then stop.
			 */
			if (!rec_stop)
				child = 0;
			fcntl(fd, F_SETFL, O_NONBLOCK);
			draining = time(NULL);
		}
		/* What was written before the stop, however far behind: bounded. */
		if (draining && time(NULL) - draining > 10)
			break;
		/* poll() first: a signal between a check and read() would be missed. */
		if (!draining && poll(&pfd, 1, 200) <= 0)
			continue;
		len = read(fd, buf, sizeof(buf));
		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0 && errno == EAGAIN)
			break;
		if (len < 0) {
			fprintf(stderr, "iolayers record: reading the stream: %s\n", strerror(errno));
			ret = 1;
			break;
		}
		n = rec_records(out, buf, len, &lost, &start);
		if (n >= 0 && !rec_csv && !rec_json)
			fwrite(buf, 1, (size_t)len, out);
	}
	if (n < 0) {
		fprintf(stderr, "iolayers record: a garbled record in the stream\n");
		ret = 1;
	}
	close(fd);
	if (!rec_csv)
		rec_files(out);
	if (rec_json)
		fprintf(out, "{\"end\": true, \"reads\": %ld, \"lost\": %llu}\n", reads,
			(unsigned long long)lost);
	else if (!rec_csv)
		rec_bin_end(out, reads, lost);
	/* ferror(): a large fwrite() that failed leaves fflush() nothing to fail on. */
	if (fflush(out) || (ferror(out) && (errno = EIO)) || (path && tmp[0] && fsync(fileno(out))) ||
	    (path && fclose(out)) || (path && tmp[0] && rename(tmp, path))) {
		fprintf(stderr, "iolayers record: %s: %s%s%s\n", path ? path : "stdout",
			strerror(errno), path && tmp[0] ? "; what was recorded is in " : "",
			path && tmp[0] ? tmp : "");
		ret = 1;
		path = NULL;	/* not "saved to" below */
	}
	fprintf(stderr, "iolayers record: %ld reads, %llu lost%s%s\n", reads,
		(unsigned long long)lost, path ? ", saved to " : "", path ? path : "");
	if (child > 0)
		waitpid(child, &status, 0);
	return ret;
}

/* -J of a binary recording: il_rec_walk()'s callbacks, @w->ctx the output. */
static int json_lines_read(struct il_rec_walk *w, const struct iolayers_rec_read *r)
{
	rec_read(w->ctx, r);
	return 0;
}

static int json_lines_lost(struct il_rec_walk *w, uint32_t cpu, uint64_t count)
{
	fprintf(w->ctx, "{\"lost\": %llu, \"cpu\": %u}\n", (unsigned long long)count, cpu);
	return 0;
}

static int json_lines_file(struct il_rec_walk *w, const struct il_rec_file *fr, const char *path)
{
	/* An inode number past 2^63 is no file (il_flow_from_rec()). */
	if (fr->ino <= INT64_MAX) {
		fprintf(w->ctx, "{\"file\": {\"fs_dev\": \"%u:%u\", \"ino\": %llu, \"path\": ",
			fr->fs_major, fr->fs_minor, (unsigned long long)fr->ino);
		il_json_str(w->ctx, path, fr->path_len);
		fprintf(w->ctx, "}}\n");
	}
	return 0;
}

/**
 * il_recording_json_lines() - A recording as JSON lines (-J): a binary
 *	one's header object, its reads, losses and files' paths as
 *	`record --json` writes them, and a trailer that counts them; a JSON
 *	lines recording as it is.
 * @in: the recording
 * @out: where the lines go
 * @err: what is wrong, on failure
 * @errlen: its size
 *
 * A binary recording damaged or cut short is written up to the damage,
 * without a trailer (so that --from of the lines says so too), and this
 * fails.
 *
 * Return: 0, or -1 with @err set.
 */
int il_recording_json_lines(FILE *in, FILE *out, char *err, size_t errlen)
{
	struct il_rec_walk w = {
		.ctx = out, .read = json_lines_read, .lost = json_lines_lost,
		.file = json_lines_file,
	};
	struct il_recfile_head head;
	size_t n;
	int ret = -1;
	char *json;

	n = fread(&head, 1, sizeof(head), in);
	if (n < sizeof(head) || memcmp(head.magic, IL_RECFILE_MAGIC, sizeof(head.magic))) {
		/* JSON lines already (or not a recording: --from says which). */
		static char copy[1 << 16];

		fwrite(&head, 1, n, out);
		while ((n = fread(copy, 1, sizeof(copy), in)))
			fwrite(copy, 1, n, out);
		return ferror(in) ? il_fail(err, errlen, "%s", strerror(errno)) : 0;
	}
	json = il_recfile_json(in, &head, err, errlen);
	if (!json)
		return -1;
	/* A JSON line: the object must hold no newline of its own. */
	if (memchr(json, '\n', head.json_len)) {
		il_fail(err, errlen, "a binary recording whose header holds a newline");
		goto out;
	}
	fwrite(json, 1, head.json_len, out);
	fputc('\n', out);
	if (il_rec_walk(in, (int64_t)(sizeof(head) + (head.json_len + 7) / 8 * 8), &w)) {
		il_fail(err, errlen, "out of memory");
		goto out;
	}
	if (w.damage) {
		il_fail(err, errlen, "byte %lld, after %lld reads: %s", (long long)w.where,
			(long long)w.reads, w.damage);
		goto out;
	}
	if (!w.ended) {
		il_fail(err, errlen, "no trailer after %lld reads: the recording was not ended",
			(long long)w.reads);
		goto out;
	}
	fprintf(out, "{\"end\": true, \"reads\": %lld, \"lost\": %lld}\n", (long long)w.reads,
		(long long)w.nlost);
	ret = 0;
out:
	free(json);
	return ret;
}
