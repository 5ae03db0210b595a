// SPDX-License-Identifier: GPL-2.0
/* KUnit: expiry of table entries, and an entry given back (module/table.c). */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/preempt.h>
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

/* A value no entry field holds. */
static struct iolayers_entry *e_sentinel(void)
{
	return (struct iolayers_entry *)1UL;
}

/*
 * An entry made and given back unseen (an io_uring attempt's spare task
 * entry, made before a raw lock and not needed under it): the table's
 * count as before, and the entry, zeroed, is the CPU's next of that
 * table. The tgid table: only a fork's tracepoint, in task context,
 * allocates from it, none on this CPU while preemption is off; bottom
 * halves off too, so that no RCU callback recycles an entry onto this
 * CPU's list in between.
 */
static void iolayers_table_test_unalloc(struct kunit *test)
{
	struct iolayers_entry *e, *again, *retired = e_sentinel();
	int n0, n1, n2;

	local_bh_disable();
	preempt_disable();
	n0 = atomic_read(&iolayers_table_nr[IOLAYERS_T_TGID].nr);
	e = iolayers_table_alloc(IOLAYERS_T_TGID);
	n1 = atomic_read(&iolayers_table_nr[IOLAYERS_T_TGID].nr);
	if (e) {
		/* Outside the key's union, which the free list reuses. */
		e->retired = e_sentinel();
		iolayers_table_unalloc(IOLAYERS_T_TGID, e);
	}
	n2 = atomic_read(&iolayers_table_nr[IOLAYERS_T_TGID].nr);
	again = iolayers_table_alloc(IOLAYERS_T_TGID);
	if (again)
		retired = again->retired;
	iolayers_table_unalloc(IOLAYERS_T_TGID, again);
	iolayers_table_unalloc(IOLAYERS_T_TGID, NULL);	/* nothing to give back */
	preempt_enable();
	local_bh_enable();
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, n1, n0 + 1);
	KUNIT_EXPECT_EQ(test, n2, n0);
	KUNIT_EXPECT_PTR_EQ(test, again, e);
	KUNIT_EXPECT_NULL(test, retired);	/* zeroed when given back */
	KUNIT_EXPECT_EQ(test, atomic_read(&iolayers_table_nr[IOLAYERS_T_TGID].nr), n0);
}

static struct kunit_case iolayers_table_cases[] = {
	KUNIT_CASE(iolayers_table_test_expired),
	KUNIT_CASE(iolayers_table_test_unalloc),
	{}
};

static struct kunit_suite iolayers_table_suite = {
	.name = "iolayers_table",
	.test_cases = iolayers_table_cases,
};

kunit_test_suite(iolayers_table_suite);
