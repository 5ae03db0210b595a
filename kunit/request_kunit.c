// SPDX-License-Identifier: GPL-2.0
/* KUnit: binding bios to requests, and a request's other lives (module/request.c). */

#include <kunit/test.h>
#include <iolayers/request.h>

static struct iolayers_bio iolayers_test_bio(pid_t tid, u64 seq, u32 bytes, u64 queue_ns)
{
	struct iolayers_bio b = {
		.flow = { .key = tid, .seq = seq }, .bytes = bytes, .queue_ns = queue_ns,
	};

	return b;
}

static void iolayers_request_test_add_bio(struct kunit *test)
{
	struct iolayers_rq r = { 0 };
	struct iolayers_bio b;
	unsigned int i;

	/* Two bios of one flow (a merge) share its slot; bytes add up. */
	b = iolayers_test_bio(10, 100, 4096, 500);
	KUNIT_EXPECT_TRUE(test, iolayers_rq_add_bio(&r, &b));
	b = iolayers_test_bio(10, 100, 8192, 300);
	KUNIT_EXPECT_TRUE(test, iolayers_rq_add_bio(&r, &b));
	KUNIT_EXPECT_EQ(test, r.nr_flows, 1U);
	KUNIT_EXPECT_EQ(test, r.bytes[0], 12288U);
	KUNIT_EXPECT_EQ(test, r.queue_ns, 300ULL);
	/* Same task, another read(): another flow. */
	b = iolayers_test_bio(10, 101, 4096, 900);
	KUNIT_EXPECT_TRUE(test, iolayers_rq_add_bio(&r, &b));
	KUNIT_EXPECT_EQ(test, r.nr_flows, 2U);
	KUNIT_EXPECT_EQ(test, r.bytes[1], 4096U);
	KUNIT_EXPECT_EQ(test, r.queue_ns, 300ULL);
	for (i = 2; i < IOLAYERS_RQ_FLOWS; i++) {
		b = iolayers_test_bio(20 + i, 1, 512, 1000);
		KUNIT_EXPECT_TRUE(test, iolayers_rq_add_bio(&r, &b));
	}
	/* Full: a new flow is refused, a known one still adds up. */
	b = iolayers_test_bio(99, 1, 512, 1);
	KUNIT_EXPECT_FALSE(test, iolayers_rq_add_bio(&r, &b));
	KUNIT_EXPECT_EQ(test, r.nr_flows, (unsigned int)IOLAYERS_RQ_FLOWS);
	KUNIT_EXPECT_EQ(test, r.queue_ns, 300ULL);
	b = iolayers_test_bio(10, 101, 512, 2000);
	KUNIT_EXPECT_TRUE(test, iolayers_rq_add_bio(&r, &b));
	KUNIT_EXPECT_EQ(test, r.bytes[1], 4608U);
}

static void iolayers_request_test_other_life(struct kunit *test)
{
	struct iolayers_rq r = { .sector = 2048 };

	/* Bound at insert or setup, not yet issued: the same request. */
	KUNIT_EXPECT_FALSE(test, iolayers_rq_other_life(&r, 2048, true));
	/* A front merge moved its start before issue: still the same. */
	KUNIT_EXPECT_FALSE(test, iolayers_rq_other_life(&r, 2040, true));
	/* Completing at another sector than the entry's: another life. */
	KUNIT_EXPECT_TRUE(test, iolayers_rq_other_life(&r, 4096, false));
	r.first_issue_ns = 1;
	/* Completing: same life; issued again without a requeue: a new one. */
	KUNIT_EXPECT_FALSE(test, iolayers_rq_other_life(&r, 2048, false));
	KUNIT_EXPECT_TRUE(test, iolayers_rq_other_life(&r, 2048, true));
	r.requeued = true;
	KUNIT_EXPECT_FALSE(test, iolayers_rq_other_life(&r, 2048, true));
}

static struct kunit_case iolayers_request_cases[] = {
	KUNIT_CASE(iolayers_request_test_add_bio),
	KUNIT_CASE(iolayers_request_test_other_life),
	{}
};

static struct kunit_suite iolayers_request_suite = {
	.name = "iolayers_request",
	.test_cases = iolayers_request_cases,
};

kunit_test_suite(iolayers_request_suite);
