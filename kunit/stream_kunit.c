// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a CPU's ring of records (module/stream.c): wrapping, pads,
 * writing over the oldest, and what each count says, against a model of
 * the records the ring must hold, on rings small enough to wrap often.
 */

#include <kunit/test.h>
#include <linux/kdev_t.h>
#include <linux/slab.h>
#include <linux/random.h>
#include <iolayers/flow.h>
#include <iolayers/stream.h>
#include <uapi/iolayers.h>

/* A test record: its header, its number and bytes that say it. */
struct ring_test_rec {
	struct iolayers_ring_hdr h;
	u32 seq;
	u8 fill[];
};

/* Write record @seq of @len bytes, filled from @seq. */
static void ring_test_put(struct iolayers_ring *rg, u32 seq, u32 len)
{
	struct ring_test_rec *r = iolayers_ring_reserve(rg, len);

	r->h.kind = IOLAYERS_EV_READ;
	r->h.len = len;
	r->seq = seq;
	memset(r->fill, (u8)seq, len - sizeof(*r));
	rg->written++;
}

/* Is @r whole: its number's bytes throughout? */
static bool ring_test_whole(const struct ring_test_rec *r)
{
	u32 i;

	for (i = 0; i < r->h.len - sizeof(*r); i++)
		if (r->fill[i] != (u8)r->seq)
			return false;
	return true;
}

/*
 * Walk @rg from its tail: its entries must add up to @used bytes, end at
 * its head, count @entries records, be whole and numbered one after
 * another, the newest numbered @newest. Return the oldest's number.
 */
static u32 ring_test_walk(struct kunit *test, const struct iolayers_ring *rg, u32 newest)
{
	u32 off = rg->tail, left = rg->used, n = 0, first = 0, expect = 0;

	while (left) {
		const struct ring_test_rec *r = (const void *)(rg->data + off);

		KUNIT_ASSERT_GE(test, r->h.len, (u16)sizeof(r->h));
		KUNIT_ASSERT_EQ(test, r->h.len % 8, 0);
		KUNIT_ASSERT_LE(test, r->h.len, left);
		KUNIT_ASSERT_LE(test, off + r->h.len, rg->size);
		if (r->h.kind == IOLAYERS_EV_READ) {
			if (n++)
				KUNIT_EXPECT_EQ(test, r->seq, expect);
			else
				first = r->seq;
			expect = r->seq + 1;
			KUNIT_EXPECT_TRUE_MSG(test, ring_test_whole(r), "record %u", r->seq);
		} else {
			KUNIT_EXPECT_EQ(test, r->h.kind, (u16)IOLAYERS_EV_PAD);
			/* A pad only fills a ring's end. */
			KUNIT_EXPECT_EQ(test, off + r->h.len, rg->size);
		}
		off += r->h.len;
		left -= r->h.len;
		if (off == rg->size)
			off = 0;
	}
	KUNIT_EXPECT_EQ(test, off, rg->head);
	KUNIT_EXPECT_EQ(test, (unsigned long)n, rg->entries);
	if (n)
		KUNIT_EXPECT_EQ(test, expect, newest + 1);
	return first;
}

/*
 * Records of two sizes (a cached read's and one with requests), written
 * with no reader: every one is kept until the ring needs its room, the
 * oldest go first and each is counted, pads never lose a record, and the
 * ring never holds less than it has room for.
 */
static void iolayers_stream_test_ring_overwrite(struct kunit *test)
{
	static const u32 sizes[] = { 160, 264, 1000, 4096 };
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		struct iolayers_ring rg = { .size = ALIGN_DOWN(sizes[k], 8) };
		u32 seq, oldest;

		if (rg.size < 2 * 264)
			rg.size = 2 * 264;
		rg.data = kunit_kzalloc(test, rg.size, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, rg.data);
		for (seq = 0; seq < 2000; seq++) {
			u32 len = (seq * 7919) % 3 ? 160 : 264;

			ring_test_put(&rg, seq, len);
			oldest = ring_test_walk(test, &rg, seq);
			/* Every record written is kept or counted written over. */
			KUNIT_EXPECT_EQ(test, rg.entries + rg.overwritten, rg.written);
			KUNIT_EXPECT_EQ(test, (unsigned long)oldest, rg.overwritten);
			/* Written over only for room: less than a record plus a pad free. */
			KUNIT_EXPECT_LE(test, rg.used, rg.size);
			if (rg.overwritten)
				KUNIT_EXPECT_LT(test, rg.size - rg.used, 2U * 264);
		}
	}
}

/*
 * A reader taking records between the writes, as the stream's does: it
 * gets every record in order, and the ones it lost are exactly the ones
 * the ring counted written over.
 */
static void iolayers_stream_test_ring_reader(struct kunit *test)
{
	struct iolayers_ring rg = { .size = 2048 };
	unsigned long seen_over = 0, got = 0, lost = 0;
	u32 seq, next = 0;

	rg.data = kunit_kzalloc(test, rg.size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rg.data);
	for (seq = 0; seq < 5000; seq++) {
		ring_test_put(&rg, seq, get_random_u32() % 2 ? 160 : 264);
		/* Sometimes take a few, sometimes fall behind. */
		if (get_random_u32() % 4)
			continue;
		while (rg.entries && get_random_u32() % 8) {
			const struct ring_test_rec *r = (const void *)iolayers_ring_pop(&rg);

			if (r->h.kind != IOLAYERS_EV_READ)
				continue;
			KUNIT_EXPECT_TRUE(test, ring_test_whole(r));
			/* The gap since the last taken is what was written over since. */
			KUNIT_EXPECT_EQ(test, (unsigned long)(r->seq - next),
					rg.overwritten - seen_over);
			lost += r->seq - next;
			seen_over = rg.overwritten;
			next = r->seq + 1;
			got++;
		}
		ring_test_walk(test, &rg, seq);
	}
	KUNIT_EXPECT_EQ(test, got + lost + rg.entries + (rg.overwritten - seen_over),
			rg.written);
}

/*
 * A read with no block part, as stream/raw gives it in brief and as its
 * full record would be: every field the same, and every field the brief
 * one lacks "not reached" (-1) or zero in the full one. The brief one is
 * made from a record whose block part holds garbage, as a stage slot
 * copied only as far as the ring's short record does, into garbage: it
 * must read the one and write every byte of the other.
 */
static void stream_test_brief_one(struct kunit *test, struct iolayers_flow_rec *r)
{
	struct iolayers_rec_read *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct iolayers_rec_brief *b = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	int l;

	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_NOT_NULL(test, b);
	memset(&r->blk, 0xa5, sizeof(r->blk));
	memset(b, 0xa5, sizeof(*b));
	r->len = IOLAYERS_REC_SHORT;
	KUNIT_ASSERT_EQ(test, iolayers_rec_put_raw(r, 3, b), sizeof(*b));
	memset(&r->blk, 0, sizeof(r->blk));
	r->len = IOLAYERS_REC_FULL;	/* kept whole: its full record */
	KUNIT_ASSERT_EQ(test, iolayers_rec_put_raw(r, 3, f), sizeof(*f));
	KUNIT_EXPECT_EQ(test, b->hdr.type, IOLAYERS_REC_BRIEF);
	KUNIT_EXPECT_EQ(test, b->hdr.size, sizeof(*b));
	KUNIT_EXPECT_EQ(test, f->hdr.type, IOLAYERS_REC_READ);
	KUNIT_EXPECT_EQ(test, f->hdr.size, sizeof(*f));
	KUNIT_EXPECT_EQ(test, b->hdr.cpu, 3);
	KUNIT_EXPECT_EQ(test, f->hdr.cpu, 3);
	KUNIT_EXPECT_EQ(test, b->seq, f->seq);
	KUNIT_EXPECT_EQ(test, b->start_ns, f->start_ns);
	KUNIT_EXPECT_EQ(test, b->pos, f->pos);
	KUNIT_EXPECT_EQ(test, b->req, f->req);
	KUNIT_EXPECT_EQ(test, b->ret, f->ret);
	KUNIT_EXPECT_EQ(test, b->ino, f->ino);
	KUNIT_EXPECT_EQ(test, b->sys_ns, f->ns[IOLAYERS_L_SYSCALL]);
	KUNIT_EXPECT_EQ(test, b->vfs_ns, f->ns[IOLAYERS_L_VFS]);
	KUNIT_EXPECT_EQ(test, b->fs_ns, f->ns[IOLAYERS_L_FS]);
	KUNIT_EXPECT_EQ(test, b->vfs_off, f->vfs_off);
	KUNIT_EXPECT_EQ(test, b->fs_off, f->fs_off);
	KUNIT_EXPECT_EQ(test, b->ra_bytes, f->ra_bytes);
	KUNIT_EXPECT_EQ(test, b->tid, f->tid);
	KUNIT_EXPECT_EQ(test, b->tgid, f->tgid);
	KUNIT_EXPECT_EQ(test, b->fd, f->fd);
	KUNIT_EXPECT_EQ(test, b->fs_major, f->fs_major);
	KUNIT_EXPECT_EQ(test, b->fs_minor, f->fs_minor);
	KUNIT_EXPECT_EQ(test, b->syscall, f->syscall);
	KUNIT_EXPECT_EQ(test, b->cache, f->cache);
	KUNIT_EXPECT_EQ(test, b->missed, f->missed);
	KUNIT_EXPECT_EQ(test, b->via, f->via);
	KUNIT_EXPECT_EQ(test, memcmp(b->comm, f->comm, sizeof(b->comm)), 0);
	for (l = IOLAYERS_L_QUEUE; l < IOLAYERS_REC_LAYERS; l++)
		KUNIT_EXPECT_EQ(test, f->ns[l], -1);
	KUNIT_EXPECT_EQ(test, f->queue_off, -1);
	KUNIT_EXPECT_EQ(test, f->issue_off, -1);
	KUNIT_EXPECT_EQ(test, f->device_off, -1);
	KUNIT_EXPECT_EQ(test, f->done_off, -1);
	KUNIT_EXPECT_EQ(test, f->bio_bytes + f->rq_bytes, 0);
	KUNIT_EXPECT_EQ(test, f->bios + f->rqs + f->requeues + f->errors, 0);
	KUNIT_EXPECT_EQ(test, f->dev_major + f->dev_minor + f->ndisks, 0);
	KUNIT_EXPECT_EQ(test, f->disk[0], 0);
	KUNIT_EXPECT_EQ(test, f->sock_ns, -1);
	KUNIT_EXPECT_EQ(test, f->tcp_ns, -1);
	KUNIT_EXPECT_EQ(test, f->wait_ns, -1);
	KUNIT_EXPECT_EQ(test, f->sock_off, -1);
	KUNIT_EXPECT_EQ(test, f->tcp_off, -1);
	KUNIT_EXPECT_EQ(test, f->sock + f->attempts + f->where, 0);
	KUNIT_EXPECT_EQ(test, f->ur_issue_off, -1);
	KUNIT_EXPECT_EQ(test, f->ur_issue_ns, -1);
}

/*
 * stream/raw's brief records: a cached pread64() that reached VFS and
 * FS, one whose FS entry was refused, a page fault; whole records for a
 * read with a request, a socket read and an io_uring request.
 */
static void iolayers_stream_test_brief(struct kunit *test)
{
	struct iolayers_flow_rec *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	void *buf = kunit_kzalloc(test, sizeof(struct iolayers_rec_read), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	r->kind = IOLAYERS_EV_READ;
	r->end_ns = 5000000;
	r->seq = 77;
	r->tid = 1234;
	r->tgid = 1200;
	strscpy(r->comm, "fifteen-bytes-x", sizeof(r->comm));
	r->nr = __NR_pread64;
	r->fd = 9;
	r->pos = 1 << 20;
	r->ino = 4242;
	r->fs_dev = MKDEV(259, 3);
	r->req = 4096;
	r->ret = 4096;
	r->cache = IOLAYERS_C_HIT;
	r->sys_ns = 3000;
	r->vfs_off = 100;
	r->vfs_ns = 2500;
	r->fs_off = 300;
	r->fs_ns = 2000;
	r->ra_bytes = 131072;
	stream_test_brief_one(test, r);

	r->fs_off = -1;		/* FS's entry refused: missed */
	r->fs_ns = 0;
	r->missed = 1U << 1;
	r->cache = IOLAYERS_C_UNK;
	stream_test_brief_one(test, r);

	r->via = IOLAYERS_VIA_FAULT;	/* a fault: no VFS, its FS part not shown */
	r->fd = -1;
	r->missed = 0;
	r->cache = IOLAYERS_C_HIT;
	stream_test_brief_one(test, r);

	/* Whole records: a request's block part, a socket's, a request. */
	r->via = IOLAYERS_VIA_SYSCALL;
	r->len = IOLAYERS_REC_FULL;
	r->blk.nr_rqs = 1;
	KUNIT_EXPECT_EQ(test, iolayers_rec_put_raw(r, 0, buf), sizeof(struct iolayers_rec_read));
	memset(&r->blk, 0, sizeof(r->blk));
	r->len = IOLAYERS_REC_SHORT;
	r->sock = IOLAYERS_SK_TCP;
	KUNIT_EXPECT_EQ(test, iolayers_rec_put_raw(r, 0, buf), sizeof(struct iolayers_rec_read));
	r->sock = IOLAYERS_SK_NONE;
	r->via = IOLAYERS_VIA_URING;
	KUNIT_EXPECT_EQ(test, iolayers_rec_put_raw(r, 0, buf), sizeof(struct iolayers_rec_read));
}

static struct kunit_case iolayers_stream_cases[] = {
	KUNIT_CASE(iolayers_stream_test_ring_overwrite),
	KUNIT_CASE(iolayers_stream_test_ring_reader),
	KUNIT_CASE(iolayers_stream_test_brief),
	{}
};

static struct kunit_suite iolayers_stream_suite = {
	.name = "iolayers_stream",
	.test_cases = iolayers_stream_cases,
};

kunit_test_suite(iolayers_stream_suite);
