/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tests' writer of read records as the module writes them to
 * stream/raw (test_record.c, genrec.c): the inverse of il_rec_read_get().
 */
#ifndef IL_TESTS_RECPUT_H
#define IL_TESTS_RECPUT_H

#include <string.h>
#include "../iolayers.h"

/*
 * @r at @p as a module of stream version 4 writes it: in brief (struct
 * iolayers_rec_brief) when it had no bio or request, is not a socket's
 * and not a request's (stream.c's iolayers_rec_brief()), else whole.
 * Its size.
 */
static inline size_t rec_put(char *p, const struct iolayers_rec_read *r)
{
	struct iolayers_rec_brief b;

	if (r->bios || r->rqs || r->sock || iolayers_via_request(r->via)) {
		memcpy(p, r, sizeof(*r));
		return sizeof(*r);
	}
	memset(&b, 0, sizeof(b));
	b.hdr = r->hdr;
	b.hdr.type = IOLAYERS_REC_BRIEF;
	b.hdr.size = sizeof(b);
	b.seq = r->seq;
	b.start_ns = r->start_ns;
	b.pos = r->pos;
	b.req = r->req;
	b.ret = r->ret;
	b.ino = r->ino;
	b.sys_ns = r->ns[IOLAYERS_L_SYSCALL];
	b.vfs_ns = r->ns[IOLAYERS_L_VFS];
	b.fs_ns = r->ns[IOLAYERS_L_FS];
	b.vfs_off = r->vfs_off;
	b.fs_off = r->fs_off;
	b.ra_bytes = r->ra_bytes;
	b.tid = r->tid;
	b.tgid = r->tgid;
	b.fd = r->fd;
	b.fs_major = r->fs_major;
	b.fs_minor = r->fs_minor;
	b.syscall = r->syscall;
	b.cache = r->cache;
	b.missed = r->missed;
	b.via = r->via;
	memcpy(b.comm, r->comm, sizeof(b.comm));
	memcpy(p, &b, sizeof(b));
	return sizeof(b);
}

#endif /* IL_TESTS_RECPUT_H */
