// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a CPU's ring of records (module/stream.c): wrapping, pads,
 * writing over the oldest, and what each count says, against a model of
 * the records the ring must hold, on rings small enough to wrap often.
 */

#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/random.h>
#include <iolayers/flow.h>
#include <iolayers/stream.h>

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

static struct kunit_case iolayers_stream_cases[] = {
	KUNIT_CASE(iolayers_stream_test_ring_overwrite),
	KUNIT_CASE(iolayers_stream_test_ring_reader),
	{}
};

static struct kunit_suite iolayers_stream_suite = {
	.name = "iolayers_stream",
	.test_cases = iolayers_stream_cases,
};

kunit_test_suite(iolayers_stream_suite);
