// SPDX-License-Identifier: GPL-2.0
/*
 * The module's binary read records (stream/raw, include/uapi/iolayers.h)
 * as this reader's flows: what a binary recording holds, turned into what
 * a JSON recording's line or a line of `flows` is parsed into, without
 * text in between.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "iolayers.h"

/*
 * @r with nothing reached: what a record lacks (a shorter one's end, a
 * brief one's block, socket and request parts) reads as a syscall's read
 * that did not get there.
 */
static void rec_read_none(struct iolayers_rec_read *r)
{
	memset(r, 0, sizeof(*r));
	r->sock_ns = r->tcp_ns = r->wait_ns = r->sock_off = r->tcp_off = -1;
	r->ur_issue_off = r->ur_issue_ns = -1;
}

/*
 * A brief record (struct iolayers_rec_brief, whole) as the full one it
 * stands for: its block, device, socket and request parts not reached.
 */
static void rec_brief_get(const void *p, struct iolayers_rec_read *r)
{
	struct iolayers_rec_brief b;

	memcpy(&b, p, sizeof(b));
	rec_read_none(r);
	r->hdr = b.hdr;
	r->seq = b.seq;
	r->start_ns = b.start_ns;
	r->pos = b.pos;
	r->req = b.req;
	r->ret = b.ret;
	r->ino = b.ino;
	r->ns[IOLAYERS_L_SYSCALL] = b.sys_ns;
	r->ns[IOLAYERS_L_VFS] = b.vfs_ns;
	r->ns[IOLAYERS_L_FS] = b.fs_ns;
	r->ns[IOLAYERS_L_QUEUE] = r->ns[IOLAYERS_L_SERVICE] = r->ns[IOLAYERS_L_DEVICE] = -1;
	r->vfs_off = b.vfs_off;
	r->fs_off = b.fs_off;
	r->queue_off = r->issue_off = r->device_off = r->done_off = -1;
	r->ra_bytes = b.ra_bytes;
	r->tid = b.tid;
	r->tgid = b.tgid;
	r->fd = b.fd;
	r->fs_major = b.fs_major;
	r->fs_minor = b.fs_minor;
	r->syscall = b.syscall;
	r->cache = b.cache;
	r->missed = b.missed;
	r->via = b.via;
	memcpy(r->comm, b.comm, sizeof(r->comm));
}

/**
 * il_rec_read_get() - A read record as this reader's struct.
 * @type: its header's type, IOLAYERS_REC_READ or IOLAYERS_REC_BRIEF
 * @p: the record, @size bytes (its header's size)
 * @size: at least il_rec_read_min() of @type (a full one's format 6
 *	part, a brief one whole)
 * @r: filled: a shorter record's missing part (a format 6 module's had no
 *	socket part, a format 7 one's no request part; a brief one's all but
 *	its syscall, VFS and FS part) not reached, or a syscall's; a longer
 *	one's (a newer module's) end left out
 *
 * Return: 0, or -1 when @size is too small for a read's record, or @type
 * is none.
 */
int il_rec_read_get(unsigned int type, const void *p, size_t size, struct iolayers_rec_read *r)
{
	if (!il_rec_is_read(type) || size < il_rec_read_min(type))
		return -1;
	if (type == IOLAYERS_REC_BRIEF) {
		rec_brief_get(p, r);
	} else if (size >= sizeof(*r)) {
		memcpy(r, p, sizeof(*r));
	} else {
		rec_read_none(r);
		memcpy(r, p, size);
	}
	r->via = il_via(r->via);
	return 0;
}

/**
 * il_recfile_json() - A binary recording's header object, after its head.
 * @f: the recording, just past @head
 * @head: its head, the magic checked
 * @err: what is wrong, on failure
 * @errlen: its size
 *
 * Reads the object and the zeros after it, so that @f is at the first
 * record.
 *
 * Return: the object's @head->json_len bytes, NUL-terminated, malloc()ed;
 * NULL with @err set (another version, a size no recorder writes, cut
 * short, out of memory).
 */
char *il_recfile_json(FILE *f, const struct il_recfile_head *head, char *err, size_t errlen)
{
	size_t pad = (8 - head->json_len % 8) % 8;
	char *json;

	if (head->version != IL_RECFILE_VERSION) {
		il_fail(err, errlen, "a binary recording of version %u; this reader knows %u",
			head->version, IL_RECFILE_VERSION);
		return NULL;
	}
	if (!head->json_len || head->json_len > IL_RECFILE_MAX_JSON) {
		il_fail(err, errlen, "a binary recording whose header is %u bytes",
			head->json_len);
		return NULL;
	}
	json = malloc(head->json_len + pad + 1);
	if (!json) {
		il_fail(err, errlen, "out of memory");
		return NULL;
	}
	if (fread(json, 1, head->json_len + pad, f) != head->json_len + pad) {
		il_fail(err, errlen, "a binary recording cut short in its header");
		free(json);
		return NULL;
	}
	json[head->json_len] = '\0';
	return json;
}

/* "MAJOR:MINOR" into @buf (IL_NAME_LEN). */
static void put_dev(char *buf, unsigned int major, unsigned int minor)
{
	char *p = il_put_u64(buf, major);

	*p++ = ':';
	*il_put_u64(p, minor) = '\0';
}

/* @names[i] for each bit i of @bits, comma-separated, "-" for none. */
static void put_bits(char *buf, size_t len, unsigned int bits, const char *const *names,
		     unsigned int n)
{
	size_t at = 0, k;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!(bits & (1U << i)))
			continue;
		k = strlen(names[i]);
		if (at + k + 2 > len)
			break;
		if (at)
			buf[at++] = ',';
		memcpy(buf + at, names[i], k);
		at += k;
	}
	if (!at)
		buf[at++] = '-';
	buf[at] = '\0';
}

/* A NUL-terminated copy of a record's string field, at most @max bytes. */
static void put_field(char *buf, const char *src, size_t max)
{
	size_t n = strnlen(src, max);

	memcpy(buf, src, n);
	buf[n] = '\0';
}

/**
 * il_flow_from_rec() - A read record as a flow: what `iolayers record
 *	--json` writes of it and --from parses back, field by field (the
 *	tests compare both ways).
 * @r: from il_rec_read_get()
 * @f: filled
 *
 * Return: 0, or -1 for a record whose numbers no kernel writes
 * (il_flow_check()), or whose cache state this reader does not know.
 */
int il_flow_from_rec(const struct iolayers_rec_read *r, struct il_flow *f)
{
	static const char *const missed[] = { "vfs", "fs", "block", "sock" };
	static const char *const where[] = IOLAYERS_URING_WHERE_NAMES;
	static const char *const socks[] = IOLAYERS_SOCK_NAMES;
	static const char *const sys[] = IOLAYERS_SYSCALL_NAMES;
	const char *kind = iolayers_via_prefix(r->via), *op;
	char *p;
	int l;

	if (r->cache >= IOLAYERS_NR_CACHE || r->seq > INT64_MAX || r->start_ns > INT64_MAX ||
	    r->req > INT64_MAX)
		return -1;
	memset(f, 0, sizeof(*f));	/* the strings' tails too: flows compare whole */
	f->seq = r->seq;
	f->start_ns = (int64_t)r->start_ns;
	f->tid = r->tid;
	f->tgid = r->tgid;
	put_field(f->comm, r->comm, sizeof(r->comm));
	if (!kind) {
		strcpy(f->syscall,
		       r->syscall < sizeof(sys) / sizeof(sys[0]) ? sys[r->syscall] : "?");
	} else if (!iolayers_via_request(r->via)) {
		strcpy(f->syscall, kind);
	} else {
		op = iolayers_req_op_name(r->via, r->syscall);
		p = il_put(il_put(f->syscall, kind), ":");
		p = op ? il_put(p, op) : il_put_u64(p, r->syscall);
		*p = '\0';
	}
	f->via = r->via;
	f->fd = r->fd;
	f->pos = r->pos;
	f->req = (int64_t)r->req;
	f->ret = r->ret;
	f->cache = r->cache;
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++) {
		int64_t v;

		if (il_is_top(l))
			v = l == iolayers_via_layer(r->via) ? r->ns[IOLAYERS_L_SYSCALL] : -1;
		else if (l == IOLAYERS_L_SOCK)
			v = r->sock_ns;
		else if (l == IOLAYERS_L_TCP)
			v = r->tcp_ns;
		else if (l == IOLAYERS_L_WAIT)
			v = r->wait_ns;
		else
			v = l < IOLAYERS_REC_LAYERS ? r->ns[l] : -1;
		/* The JSON form writes a negative time as null, read back as -1. */
		f->lat[l] = v < 0 ? -1 : v;
	}
	f->bios = r->bios;
	f->rqs = r->rqs;
	f->bio_bytes = (int64_t)(r->bio_bytes > INT64_MAX ? INT64_MAX : r->bio_bytes);
	f->rq_bytes = (int64_t)(r->rq_bytes > INT64_MAX ? INT64_MAX : r->rq_bytes);
	f->ra_bytes = (int64_t)(r->ra_bytes > INT64_MAX ? INT64_MAX : r->ra_bytes);
	f->requeues = r->requeues;
	f->errors = r->errors;
	f->vfs_off = r->vfs_off < 0 ? -1 : r->vfs_off;
	f->fs_off = r->fs_off < 0 ? -1 : r->fs_off;
	f->queue_off = r->queue_off < 0 ? -1 : r->queue_off;
	f->issue_off = r->issue_off < 0 ? -1 : r->issue_off;
	f->device_off = r->device_off < 0 ? -1 : r->device_off;
	f->done_off = r->done_off < 0 ? -1 : r->done_off;
	if (strnlen(r->disk, sizeof(r->disk)) == sizeof(r->disk))
		return -1;	/* no NUL: no kernel writes it (nor reads it back from JSON) */
	if (r->disk[0])
		put_field(f->disk, r->disk, sizeof(r->disk));
	else
		strcpy(f->disk, "-");
	if (r->ndisks > 1)
		strcat(f->disk, "+");
	put_bits(f->missed, sizeof(f->missed), r->missed, missed, 4);
	/*
	 * An inode number past 2^63 (overlayfs's xino puts its layer in the
	 * top bits) as no file seen: --json writes it so too, JSON's
	 * parsers taking no integer past 2^63 - 1.
	 */
	if (r->ino && r->ino <= INT64_MAX) {
		f->ino = (int64_t)r->ino;
		put_dev(f->fs_dev, r->fs_major, r->fs_minor);
	} else {
		f->ino = -1;
		strcpy(f->fs_dev, "-");
	}
	if (r->rqs && r->dev_major)
		put_dev(f->dev, r->dev_major, r->dev_minor);
	else
		strcpy(f->dev, "-");
	if (r->sock && r->sock < IOLAYERS_NR_SOCK_KINDS) {
		strcpy(f->sock, socks[r->sock]);
		f->sock_off = r->sock_off < 0 ? -1 : r->sock_off;
		f->tcp_off = r->tcp_off < 0 ? -1 : r->tcp_off;
	} else {
		strcpy(f->sock, "-");
		f->sock_off = f->tcp_off = -1;
	}
	if (iolayers_via_request(r->via)) {
		f->ur_attempts = r->attempts;
		f->ur_issue_ns = r->ur_issue_ns < 0 ? -1 : r->ur_issue_ns;
		f->ur_issue_off = r->ur_issue_off < 0 ? -1 : r->ur_issue_off;
		put_bits(f->ur_where, sizeof(f->ur_where), r->where, where,
			 sizeof(where) / sizeof(where[0]));
	} else {
		f->ur_attempts = f->ur_issue_ns = f->ur_issue_off = -1;
		strcpy(f->ur_where, "-");
	}
	return il_flow_check(f);
}

/**
 * il_fine_bucket() - The fine bucket of a latency.
 * @ns: the latency
 *
 * Return: its index: @ns itself below IL_FINE_LINEAR, then per power of
 * two 2^e its 2^IL_FINE_SUB_BITS equal parts.
 */
int il_fine_bucket(uint64_t ns)
{
	int e, sub;

	if (ns < IL_FINE_LINEAR)
		return (int)ns;
	e = 63 - __builtin_clzll(ns);
	sub = (int)((ns >> (e - IL_FINE_SUB_BITS)) & ((1 << IL_FINE_SUB_BITS) - 1));
	return IL_FINE_LINEAR + ((e - 8) << IL_FINE_SUB_BITS) + sub;
}

/**
 * il_fine_mid() - A fine bucket's middle value.
 * @i: its index
 *
 * Return: the value itself below IL_FINE_LINEAR; else the middle of its
 * range, at most 1/256 of any value in it away from it.
 */
uint64_t il_fine_mid(int i)
{
	int e, sub;
	uint64_t lo, width;

	if (i < IL_FINE_LINEAR)
		return (uint64_t)i;
	e = ((i - IL_FINE_LINEAR) >> IL_FINE_SUB_BITS) + 8;
	sub = (i - IL_FINE_LINEAR) & ((1 << IL_FINE_SUB_BITS) - 1);
	width = (uint64_t)1 << (e - IL_FINE_SUB_BITS);
	lo = ((uint64_t)1 << e) + (uint64_t)sub * width;
	return lo + width / 2;
}

/* A binary recording is read this many bytes at a time. */
#define WALK_BUF	(1 << 20)

/* A record's first @size bytes into @dst; 1 and @w->damage when it has fewer. */
static int walk_copy(struct il_rec_walk *w, void *dst, size_t size, const char *p, size_t have,
		     const char *damage)
{
	if (have < size) {
		w->damage = damage;
		return 1;
	}
	memcpy(dst, p, size);
	return 0;
}

/* One whole record, its header @h: 0, 1 on damage, -1 out of memory. */
static int walk_one(struct il_rec_walk *w, const struct iolayers_rec_hdr *h, const char *p)
{
	union {
		struct iolayers_rec_read r;
		struct iolayers_rec_lost l;
		struct iolayers_rec_start st;
		struct il_rec_file fr;
		struct il_rec_end e;
	} u;

	if (w->ended) {
		w->damage = "a record after the trailer";
		return 1;
	}
	switch (h->type) {
	case IOLAYERS_REC_READ:
	case IOLAYERS_REC_BRIEF:
		if (il_rec_read_get(h->type, p, h->size, &u.r)) {
			w->damage = "a read's record too short";
			return 1;
		}
		w->reads++;
		return w->read(w, &u.r);
	case IOLAYERS_REC_LOST:
		if (walk_copy(w, &u.l, sizeof(u.l), p, h->size, "a loss's record too short"))
			return 1;
		if (u.l.count >= (uint64_t)(IL_MAX_PLAUSIBLE - w->nlost)) {
			w->damage = "a count of lost records no kernel writes";
			return 1;
		}
		w->nlost += (int64_t)u.l.count;
		return w->lost(w, u.l.hdr.cpu, u.l.count);
	case IOLAYERS_REC_START:
		if (walk_copy(w, &u.st, sizeof(u.st), p, h->size, "a start record too short"))
			return 1;
		return w->start ? w->start(w, &u.st) : 0;
	case IL_REC_FILE:
		/* A path as `files` cuts it; one with a NUL is no path. */
		if (walk_copy(w, &u.fr, sizeof(u.fr), p, h->size, "not a file's record") ||
		    u.fr.path_len > h->size - sizeof(u.fr) || u.fr.path_len >= IL_PATH_LEN ||
		    memchr(p + sizeof(u.fr), '\0', u.fr.path_len)) {
			w->damage = "not a file's record";
			return 1;
		}
		return w->file(w, &u.fr, p + sizeof(u.fr));
	case IL_REC_END:
		if (walk_copy(w, &u.e, sizeof(u.e), p, h->size, "a trailer's record too short"))
			return 1;
		w->ended = 1;
		return w->end ? w->end(w, &u.e) : 0;
	default:
		w->unknown++;
		return 0;
	}
}

/**
 * il_rec_walk() - Walk a binary recording's records, each to its callback.
 * @f: the recording, at its first record (after its header object)
 * @base: that record's byte in the file
 * @w: the callbacks set, the rest zero; filled
 *
 * The one reader of binary records for every use (--from's model, -J):
 * each record framed by its header's size, checked (long enough for its
 * type, nothing after the trailer, a plausible count of lost records) and
 * handed on; types this reader does not know (a newer recorder's) are
 * skipped and counted. The walk stops at the first damage (a record that
 * makes no sense, the file cut short in a record), which @w->damage and
 * @w->where say.
 *
 * Return: 0 (damage or not), -1 when out of memory or a callback said so.
 */
int il_rec_walk(FILE *f, int64_t base, struct il_rec_walk *w)
{
	size_t have = 0, off, n;
	char *buf = malloc(WALK_BUF);
	int ret = 0;

	if (!buf)
		return -1;
	w->where = base;
	do {
		n = fread(buf + have, 1, WALK_BUF - have, f);
		have += n;
		for (off = 0; off + sizeof(struct iolayers_rec_hdr) <= have; ) {
			struct iolayers_rec_hdr h;

			memcpy(&h, buf + off, sizeof(h));
			w->where = base + (int64_t)off;
			if (h.size < sizeof(h)) {
				w->damage = "a record shorter than its header";
				break;
			}
			if (off + h.size > have)
				break;	/* the rest in the next read */
			ret = walk_one(w, &h, buf + off);
			if (ret)
				break;
			off += h.size;
		}
		if (ret || w->damage)
			break;
		memmove(buf, buf + off, have - off);
		have -= off;
		base += (int64_t)off;
		w->where = base;
	} while (n);
	if (!ret && !w->damage && have)
		w->damage = "cut short (a record's end is missing)";
	free(buf);
	if (ret > 0 && !w->damage)
		w->damage = "a record that makes no sense";
	return ret < 0 ? -1 : 0;
}
