// SPDX-License-Identifier: GPL-2.0
/* KUnit suites for the pure helpers: parsing, buckets, percentiles, cache state. */

#include <kunit/test.h>
#include <linux/limits.h>

/* The code under test is compiled into this test module. */
#include "../module/util.c"

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

static struct kunit_case iolayers_parse_cases[] = {
	KUNIT_CASE(iolayers_parse_test_pid_valid),
	KUNIT_CASE(iolayers_parse_test_pid_invalid),
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

kunit_test_suites(&iolayers_parse_suite, &iolayers_hist_suite, &iolayers_cache_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for iolayers");
