// SPDX-License-Identifier: GPL-2.0
/* KUnit: folding a completed request into a flow (module/flow.c). */

#include <kunit/test.h>
#include <iolayers/flow.h>
#include <iolayers/request.h>

static void iolayers_flow_test_fold(struct kunit *test)
{
	struct iolayers_blk_acc a = { 0 };
	struct iolayers_rq r1 = {
		.nr_flows = 2, .bytes = { 4096, 8192 }, .first_issue_ns = 1000,
		.issue_ns = 1000, .queue_lat = 50, .setup_ns = 990, .devdone_ns = 1800,
		.disk = 1,
	};
	struct iolayers_rq r2 = {
		.nr_flows = 1, .bytes = { 65536 }, .first_issue_ns = 700, .issue_ns = 1500,
		.queue_lat = 20, .requeues = 1, .disk = 2,
	};

	iolayers_blk_fold(&a, &r1, 1, 1900, false);
	KUNIT_EXPECT_EQ(test, a.nr_rqs, 1U);
	KUNIT_EXPECT_EQ(test, a.rq_bytes, 8192ULL);
	KUNIT_EXPECT_EQ(test, a.service_ns, 900ULL);
	KUNIT_EXPECT_EQ(test, a.device_ns, 810ULL);
	KUNIT_EXPECT_EQ(test, a.device_at, 1800ULL);
	KUNIT_EXPECT_EQ(test, a.disk, 1);
	KUNIT_EXPECT_FALSE(test, a.disks);
	/* A second request, on another disk (requeued once, no NVMe times, failed). */
	iolayers_blk_fold(&a, &r2, 0, 2000, true);
	KUNIT_EXPECT_EQ(test, a.nr_rqs, 2U);
	KUNIT_EXPECT_EQ(test, a.rq_bytes, 8192ULL + 65536);
	KUNIT_EXPECT_EQ(test, a.queue_ns, 50ULL);
	KUNIT_EXPECT_EQ(test, a.service_ns, 900ULL);
	KUNIT_EXPECT_EQ(test, a.device_ns, 810ULL);
	KUNIT_EXPECT_EQ(test, a.issue_at, 700ULL);
	KUNIT_EXPECT_EQ(test, a.done_at, 2000ULL);
	KUNIT_EXPECT_EQ(test, a.requeues, 1U);
	KUNIT_EXPECT_EQ(test, a.errors, 1U);
	/* The first request's disk stays; the flow says others were used. */
	KUNIT_EXPECT_EQ(test, a.disk, 1);
	KUNIT_EXPECT_TRUE(test, a.disks);
}

static struct kunit_case iolayers_flow_cases[] = {
	KUNIT_CASE(iolayers_flow_test_fold),
	{}
};

static struct kunit_suite iolayers_flow_suite = {
	.name = "iolayers_flow",
	.test_cases = iolayers_flow_cases,
};

kunit_test_suite(iolayers_flow_suite);
