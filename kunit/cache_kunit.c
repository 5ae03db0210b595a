// SPDX-License-Identifier: GPL-2.0
/* KUnit: the cache decision (include/iolayers/cache.h). */

#include <kunit/test.h>
#include <iolayers/cache.h>

static void iolayers_cache_test_decide(struct kunit *test)
{
	/*
	 * Not through a file system: other, or UNK when FS is not attached
	 * or one of its entries was refused (a read it may have missed).
	 */
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(false, true, false, false, 0, 0, false, false),
			IOLAYERS_C_OTHER);
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(false, false, false, false, 0, 0, false, false),
			IOLAYERS_C_UNK);
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, false, false, false, 4, 4, false, false),
			IOLAYERS_C_UNK);
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, false, false, true, 4, 0, false, false),
			IOLAYERS_C_UNK);
	/* O_DIRECT wins over everything else. */
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, true, false, true, 4, 4, true, false),
			IOLAYERS_C_DIRECT);
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, true, false, false, 4, 0, false, false),
			IOLAYERS_C_HIT);
	/* EOF read: nothing to add, nothing waited for. */
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, true, false, false, 0, 0, false, false),
			IOLAYERS_C_HIT);
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, true, false, false, 4, 4, false, false),
			IOLAYERS_C_MISS);
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, true, false, false, 4, 4, true, false),
			IOLAYERS_C_MISS);
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, true, false, false, 4, 1, false, false),
			IOLAYERS_C_PARTIAL);
	/*
	 * A file system read that failed (-EFAULT after its pages came in,
	 * RWF_NOWAIT's -EAGAIN after starting readahead, a failed O_DIRECT
	 * read) is ERROR whatever it saw; one that failed before the FS
	 * layer is not known to be one.
	 */
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, true, true, false, 0, 4, true, false),
			IOLAYERS_C_ERROR);
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, true, true, false, 0, 0, false, false),
			IOLAYERS_C_ERROR);
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, true, true, true, 0, 0, false, false),
			IOLAYERS_C_ERROR);
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(false, true, true, false, 0, 0, false, false),
			IOLAYERS_C_OTHER);
	/*
	 * Waited and added nothing, but queued another file's or swap's I/O
	 * (a fault on the user buffer): the wait may have been for that.
	 * Pages of its own added still decide.
	 */
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, true, false, false, 4, 0, true, true),
			IOLAYERS_C_UNK);
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, true, false, false, 4, 0, false, true),
			IOLAYERS_C_HIT);
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, true, false, false, 4, 1, true, true),
			IOLAYERS_C_PARTIAL);
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, true, false, false, 4, 4, true, true),
			IOLAYERS_C_MISS);
	/* Waited on I/O someone else started (async readahead). */
	KUNIT_EXPECT_EQ(test, iolayers_cache_decide(true, true, false, false, 4, 0, true, false),
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

kunit_test_suite(iolayers_cache_suite);
