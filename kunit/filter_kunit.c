// SPDX-License-Identifier: GPL-2.0
/* KUnit: parsing of the pid= and comm= filters (module/filter.c). */

#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/sched.h>
#include <iolayers/filter.h>

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

kunit_test_suite(iolayers_parse_suite);
