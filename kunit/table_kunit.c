// SPDX-License-Identifier: GPL-2.0
/* KUnit: expiry of table entries (module/table.c). */

#include <kunit/test.h>
#include <iolayers/table.h>

static void iolayers_table_test_expired(struct kunit *test)
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

static struct kunit_case iolayers_table_cases[] = {
	KUNIT_CASE(iolayers_table_test_expired),
	{}
};

static struct kunit_suite iolayers_table_suite = {
	.name = "iolayers_table",
	.test_cases = iolayers_table_cases,
};

kunit_test_suite(iolayers_table_suite);
