// SPDX-License-Identifier: GPL-2.0
/* KUnit: log2 buckets and percentiles (include/iolayers/hist.h, module/hist.c). */

#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <iolayers/hist.h>

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

/* @n samples of @v, through the module's own iolayers_hist_add(). */
static void hist_add_n(struct iolayers_hist *h, u64 v, u64 n)
{
	while (n--)
		iolayers_hist_add(h, v, 4096);
}

/* One sample at a time: totals, extremes and the bucket of each. */
static void iolayers_hist_test_add(struct kunit *test)
{
	struct iolayers_hist h = { .min_ns = U64_MAX };

	iolayers_hist_add(&h, 3000, 4096);
	iolayers_hist_add(&h, 1, 512);
	iolayers_hist_add(&h, 300000, 0);
	KUNIT_EXPECT_EQ(test, h.count, 3ULL);
	KUNIT_EXPECT_EQ(test, h.sum_ns, 303001ULL);
	KUNIT_EXPECT_EQ(test, h.bytes, 4608ULL);
	KUNIT_EXPECT_EQ(test, h.min_ns, 1ULL);
	KUNIT_EXPECT_EQ(test, h.max_ns, 300000ULL);
	KUNIT_EXPECT_EQ(test, h.buckets[0], 1ULL);
	KUNIT_EXPECT_EQ(test, h.buckets[11], 1ULL);
	KUNIT_EXPECT_EQ(test, h.buckets[18], 1ULL);
}

static void iolayers_hist_test_percentile_empty(struct kunit *test)
{
	struct iolayers_hist h = { .min_ns = U64_MAX };

	KUNIT_EXPECT_EQ(test, iolayers_hist_percentile(&h, 50), 0ULL);
}

/* One value: every percentile is that value (clamped to min and max). */
static void iolayers_hist_test_percentile_single(struct kunit *test)
{
	struct iolayers_hist h = { .min_ns = U64_MAX };

	hist_add_n(&h, 5000, 7);
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
	struct iolayers_hist h = { .min_ns = U64_MAX };

	hist_add_n(&h, 1024, 1);
	hist_add_n(&h, 1500, 98);
	hist_add_n(&h, 2047, 1);
	KUNIT_EXPECT_EQ(test, iolayers_hist_percentile(&h, 50), 1536ULL);
	KUNIT_EXPECT_EQ(test, iolayers_hist_percentile(&h, 90), 1945ULL);
	KUNIT_EXPECT_EQ(test, iolayers_hist_percentile(&h, 100), 2047ULL);
}

/*
 * The last bucket ends at 2^64: p100 there is the max, not a wrap to 0
 * clamped up to the min.
 */
static void iolayers_hist_test_percentile_last_bucket(struct kunit *test)
{
	struct iolayers_hist h = { .min_ns = U64_MAX };

	hist_add_n(&h, 1ULL << 63, 2);
	hist_add_n(&h, U64_MAX, 2);
	KUNIT_EXPECT_EQ(test, iolayers_hist_percentile(&h, 100), U64_MAX);
	KUNIT_EXPECT_EQ(test, iolayers_hist_percentile(&h, 50), 3ULL << 62);
}

/* Two peaks (cache hit vs disk read): p50 in the first, p99 in the second. */
static void iolayers_hist_test_percentile_two_peaks(struct kunit *test)
{
	struct iolayers_hist h = { .min_ns = U64_MAX };
	u64 p50, p99;

	hist_add_n(&h, 3000, 90);	/* bucket 11: [2048, 4096) */
	hist_add_n(&h, 300000, 10);	/* bucket 18: [262144, 524288) */
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
	KUNIT_CASE(iolayers_hist_test_add),
	KUNIT_CASE(iolayers_hist_test_percentile_empty),
	KUNIT_CASE(iolayers_hist_test_percentile_single),
	KUNIT_CASE(iolayers_hist_test_percentile_interpolates),
	KUNIT_CASE(iolayers_hist_test_percentile_two_peaks),
	KUNIT_CASE(iolayers_hist_test_percentile_last_bucket),
	{}
};

static struct kunit_suite iolayers_hist_suite = {
	.name = "iolayers_hist",
	.test_cases = iolayers_hist_cases,
};

kunit_test_suite(iolayers_hist_suite);
