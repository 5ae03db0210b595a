// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for the pure helpers: parsing, buckets, percentiles, cache
 * state, request binding and the byte and latency folding of flows.
 */

#include <kunit/test.h>
#include <linux/limits.h>

/* The code under test is compiled into this test module. */
#include "../module/util.c"
#include <iolayers/cache.h>

static void iolayers_parse_test_pid_valid(struct kunit *test)
{
	char max[16];
	pid_t pid = 0;

	snprintf(max, sizeof(max), "%d", (int)PID_MAX_LIMIT);
	KUNIT_EXPECT_EQ(test, iolayers_parse_pid("1", &pid), 0);
	KUNIT_EXPECT_EQ(test, pid, 1);
	KUNIT_EXPECT_EQ(test, iolayers_parse_pid("4242\n", &pid), 0);
	KUNIT_EXPECT_EQ(test, pid, 4242);
	KUNIT_EXPECT_EQ(test, iolayers_parse_pid(max, &pid), 0);
	KUNIT_EXPECT_EQ(test, pid, (pid_t)PID_MAX_LIMIT);
}

static void iolayers_parse_test_pid_invalid(struct kunit *test)
{
	char above[16];
	const char * const bad[] = {
		"", "0", "-1", "abc", "12abc", above, "99999999999", " 5", NULL,
	};
	pid_t pid = 77;
	int i;

	/* One above the limit, which depends on the kernel's configuration. */
	snprintf(above, sizeof(above), "%d", (int)PID_MAX_LIMIT + 1);
	for (i = 0; bad[i]; i++) {
		KUNIT_EXPECT_EQ_MSG(test, iolayers_parse_pid(bad[i], &pid), -EINVAL,
				    "input '%s'", bad[i]);
		KUNIT_EXPECT_EQ(test, pid, 77);
	}
	KUNIT_EXPECT_EQ(test, iolayers_parse_pid(NULL, &pid), -EINVAL);
}

static void iolayers_parse_test_comm(struct kunit *test)
{
	char out[TASK_COMM_LEN];

	KUNIT_EXPECT_EQ(test, iolayers_parse_comm("fio\n", out), 0);
	KUNIT_EXPECT_STREQ(test, out, "fio");
	KUNIT_EXPECT_EQ(test, out[TASK_COMM_LEN - 1], 0);
	/* The longest name the kernel keeps, and one byte more. */
	KUNIT_EXPECT_EQ(test, iolayers_parse_comm("123456789012345", out), 0);
	KUNIT_EXPECT_STREQ(test, out, "123456789012345");
	KUNIT_EXPECT_EQ(test, iolayers_parse_comm("1234567890123456", out), -EINVAL);
	KUNIT_EXPECT_EQ(test, iolayers_parse_comm("a\tb", out), -EINVAL);
	KUNIT_EXPECT_EQ(test, iolayers_parse_comm(NULL, out), -EINVAL);
	/* Empty turns the filter off: all zero. */
	KUNIT_EXPECT_EQ(test, iolayers_parse_comm("\n", out), 0);
	KUNIT_EXPECT_EQ(test, out[0], 0);
}

static struct kunit_case iolayers_parse_cases[] = {
	KUNIT_CASE(iolayers_parse_test_pid_valid),
	KUNIT_CASE(iolayers_parse_test_pid_invalid),
	KUNIT_CASE(iolayers_parse_test_comm),
	{}
};

static struct kunit_suite iolayers_parse_suite = {
	.name = "iolayers_parse",
	.test_cases = iolayers_parse_cases,
};

static void iolayers_hist_test_bucket_edges(struct kunit *test)
{
	unsigned int i;

	KUNIT_EXPECT_EQ(test, iolayers_log2_bucket(0), 0U);
	KUNIT_EXPECT_EQ(test, iolayers_log2_bucket(1), 0U);
	for (i = 1; i < IOLAYERS_HIST_BUCKETS; i++) {
		u64 lo = 1ULL << i;

		KUNIT_EXPECT_EQ_MSG(test, iolayers_log2_bucket(lo), i, "2^%u", i);
		KUNIT_EXPECT_EQ_MSG(test, iolayers_log2_bucket(lo - 1), i - 1,
				    "2^%u - 1", i);
	}
	KUNIT_EXPECT_EQ(test, iolayers_log2_bucket(U64_MAX), IOLAYERS_HIST_BUCKETS - 1U);
}

static void iolayers_hist_add(struct iolayers_hist *h, u64 v, u64 n)
{
	h->buckets[iolayers_log2_bucket(v)] += n;
	h->count += n;
	h->min_ns = h->count == n ? v : min(h->min_ns, v);
	h->max_ns = max(h->max_ns, v);
}

static void iolayers_hist_test_percentile_empty(struct kunit *test)
{
	struct iolayers_hist h = { .min_ns = U64_MAX };

	KUNIT_EXPECT_EQ(test, iolayers_hist_percentile(&h, 50), 0ULL);
}

/* One value: every percentile is that value (clamped to min and max). */
static void iolayers_hist_test_percentile_single(struct kunit *test)
{
	struct iolayers_hist h = {};

	iolayers_hist_add(&h, 5000, 7);
	KUNIT_EXPECT_EQ(test, iolayers_hist_percentile(&h, 0), 5000ULL);
	KUNIT_EXPECT_EQ(test, iolayers_hist_percentile(&h, 50), 5000ULL);
	KUNIT_EXPECT_EQ(test, iolayers_hist_percentile(&h, 100), 5000ULL);
}

/*
 * 100 samples spread over bucket 10 ([1024, 2048)): linear interpolation
 * puts p50 at 1024 + 1024 * 50 / 100 = 1536 and p90 at 1945.
 */
static void iolayers_hist_test_percentile_interpolates(struct kunit *test)
{
	struct iolayers_hist h = {};

	iolayers_hist_add(&h, 1024, 1);
	iolayers_hist_add(&h, 1500, 98);
	iolayers_hist_add(&h, 2047, 1);
	KUNIT_EXPECT_EQ(test, iolayers_hist_percentile(&h, 50), 1536ULL);
	KUNIT_EXPECT_EQ(test, iolayers_hist_percentile(&h, 90), 1945ULL);
	KUNIT_EXPECT_EQ(test, iolayers_hist_percentile(&h, 100), 2047ULL);
}

/* Two peaks (cache hit vs disk read): p50 in the first, p99 in the second. */
static void iolayers_hist_test_percentile_two_peaks(struct kunit *test)
{
	struct iolayers_hist h = {};
	u64 p50, p99;

	iolayers_hist_add(&h, 3000, 90);	/* bucket 11: [2048, 4096) */
	iolayers_hist_add(&h, 300000, 10);	/* bucket 18: [262144, 524288) */
	p50 = iolayers_hist_percentile(&h, 50);
	p99 = iolayers_hist_percentile(&h, 99);
	KUNIT_EXPECT_GE(test, p50, 2048ULL);
	KUNIT_EXPECT_LT(test, p50, 4096ULL);
	KUNIT_EXPECT_GE(test, p99, 262144ULL);
	KUNIT_EXPECT_LE(test, p99, 300000ULL);	/* clamped to max */
	KUNIT_EXPECT_LE(test, iolayers_hist_percentile(&h, 90), 4096ULL);
}

static struct kunit_case iolayers_hist_cases[] = {
	KUNIT_CASE(iolayers_hist_test_bucket_edges),
	KUNIT_CASE(iolayers_hist_test_percentile_empty),
	KUNIT_CASE(iolayers_hist_test_percentile_single),
	KUNIT_CASE(iolayers_hist_test_percentile_interpolates),
	KUNIT_CASE(iolayers_hist_test_percentile_two_peaks),
	{}
};

static struct kunit_suite iolayers_hist_suite = {
	.name = "iolayers_hist",
	.test_cases = iolayers_hist_cases,
};

static void iolayers_cache_test_decide(struct kunit *test)
{
	/* Not through a file system: other, or UNK when FS is not attached. */
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(false, true, false, 0, 0, false),
			IOLAYERS_C_OTHER);
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(false, false, false, 0, 0, false),
			IOLAYERS_C_UNK);
	/* O_DIRECT wins over everything else. */
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, true, true, 4, 4, true),
			IOLAYERS_C_DIRECT);
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, true, false, 4, 0, false),
			IOLAYERS_C_HIT);
	/* EOF read: nothing to add, nothing waited for. */
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, true, false, 0, 0, false),
			IOLAYERS_C_HIT);
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, true, false, 4, 4, false),
			IOLAYERS_C_MISS);
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, true, false, 4, 4, true),
			IOLAYERS_C_MISS);
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, true, false, 4, 1, false),
			IOLAYERS_C_PARTIAL);
	/* Waited on I/O someone else started (async readahead). */
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, true, false, 4, 0, true),
			IOLAYERS_C_PARTIAL);
}

static struct kunit_case iolayers_cache_cases[] = {
	KUNIT_CASE(iolayers_cache_test_decide),
	{}
};

static struct kunit_suite iolayers_cache_suite = {
	.name = "iolayers_cache",
	.test_cases = iolayers_cache_cases,
};

static struct iolayers_bio iolayers_test_bio(pid_t tid, u64 seq, u32 bytes, u64 queue_ns)
{
	struct iolayers_bio b = {
		.flow = { .tid = tid, .seq = seq }, .bytes = bytes, .queue_ns = queue_ns,
	};

	return b;
}

static void iolayers_flow_test_add_bio(struct kunit *test)
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

static void iolayers_flow_test_other_life(struct kunit *test)
{
	struct iolayers_rq r = { .sector = 2048 };

	/* Bound at insert or setup, not yet issued: the same request. */
	KUNIT_EXPECT_FALSE(test, iolayers_rq_other_life(&r, 2048, true));
	KUNIT_EXPECT_TRUE(test, iolayers_rq_other_life(&r, 4096, false));
	r.first_issue_ns = 1;
	/* Completing: same life; issued again without a requeue: a new one. */
	KUNIT_EXPECT_FALSE(test, iolayers_rq_other_life(&r, 2048, false));
	KUNIT_EXPECT_TRUE(test, iolayers_rq_other_life(&r, 2048, true));
	r.requeued = true;
	KUNIT_EXPECT_FALSE(test, iolayers_rq_other_life(&r, 2048, true));
	KUNIT_EXPECT_TRUE(test, iolayers_rq_other_life(&r, 8, true));
}

static void iolayers_flow_test_fold(struct kunit *test)
{
	struct iolayers_blk_acc a = { 0 };
	struct iolayers_rq r1 = {
		.nr_flows = 2, .bytes = { 4096, 8192 }, .first_issue_ns = 1000,
		.issue_ns = 1000, .queue_lat = 50, .setup_ns = 990, .devdone_ns = 1800,
	};
	struct iolayers_rq r2 = {
		.nr_flows = 1, .bytes = { 65536 }, .first_issue_ns = 700, .issue_ns = 1500,
		.queue_lat = 20, .requeues = 1,
	};

	iolayers_blk_fold(&a, &r1, 1, 1900, false);
	KUNIT_EXPECT_EQ(test, a.nr_rqs, 1U);
	KUNIT_EXPECT_EQ(test, a.rq_bytes, 8192ULL);
	KUNIT_EXPECT_EQ(test, a.service_ns, 900ULL);
	KUNIT_EXPECT_EQ(test, a.device_ns, 810ULL);
	KUNIT_EXPECT_EQ(test, a.device_at, 1800ULL);
	/* A second request (requeued once, no NVMe times, failed). */
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
}

static void iolayers_flow_test_expired(struct kunit *test)
{
	u64 sec = 1000000000ULL;

	KUNIT_EXPECT_FALSE(test, iolayers_expired(5 * sec, 10 * sec, 10 * sec));
	KUNIT_EXPECT_FALSE(test, iolayers_expired(5 * sec, 15 * sec, 10 * sec));
	KUNIT_EXPECT_TRUE(test, iolayers_expired(5 * sec, 15 * sec + 1, 10 * sec));
	/* Added on another CPU after "now" was read: not expired. */
	KUNIT_EXPECT_FALSE(test, iolayers_expired(20 * sec, 15 * sec, 0));
	/* Age 0 (children=0 forgets every child) expires what came before. */
	KUNIT_EXPECT_TRUE(test, iolayers_expired(14 * sec, 15 * sec, 0));
	KUNIT_EXPECT_FALSE(test, iolayers_expired(15 * sec, 15 * sec, 0));
}

static struct kunit_case iolayers_flow_cases[] = {
	KUNIT_CASE(iolayers_flow_test_add_bio),
	KUNIT_CASE(iolayers_flow_test_expired),
	KUNIT_CASE(iolayers_flow_test_other_life),
	KUNIT_CASE(iolayers_flow_test_fold),
	{}
};

static struct kunit_suite iolayers_flow_suite = {
	.name = "iolayers_flow",
	.test_cases = iolayers_flow_cases,
};

kunit_test_suites(&iolayers_parse_suite, &iolayers_hist_suite, &iolayers_cache_suite,
		  &iolayers_flow_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for iolayers");
