// SPDX-License-Identifier: GPL-2.0
/* KUnit suites for the pure helpers: pid parsing and log2 bucketing. */

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

static struct kunit_case iolayers_hist_cases[] = {
	KUNIT_CASE(iolayers_hist_test_bucket_edges),
	{}
};

static struct kunit_suite iolayers_hist_suite = {
	.name = "iolayers_hist",
	.test_cases = iolayers_hist_cases,
};

kunit_test_suites(&iolayers_parse_suite, &iolayers_hist_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for iolayers");
