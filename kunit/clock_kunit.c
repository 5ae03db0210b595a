// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a read's end time from the TSC and its CPU's anchor, against
 * ktime_get_ns() (include/iolayers/clock.h, module/clock.c).
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/irqflags.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/timekeeping.h>
#include <linux/math64.h>
#include <iolayers/clock.h>
#include <iolayers/compat.h>

/*
 * How far an anchored time may lie outside the two ktime_get_ns() reads
 * around it: the slew over an anchor's span (none in a guest without
 * NTP), and a read that found no anchor (its ktime and TSC reads not of
 * one moment), with µs to spare.
 */
#define CLOCK_TEST_SLACK_NS	5000

#ifdef IOLAYERS_COUNTER
static void clock_test_need_tsc(struct kunit *test)
{
	if (!READ_ONCE(iolayers_clock_tsc))
		kunit_skip(test, "layer times from ktime_get_ns(): no anchor");
}

/* No anchor on this CPU: the next time takes one. Interrupts off. */
static void clock_test_forget_irqs_off(void)
{
	WRITE_ONCE(this_cpu_ptr(&iolayers_clock_anchor)->tsc, 0);
}

/* The same with interrupts on. */
static void clock_test_forget(void)
{
	unsigned long flags;

	local_irq_save(flags);
	clock_test_forget_irqs_off();
	local_irq_restore(flags);
}

/*
 * Anchored times every 50 µs or so for 20 ms (tens of anchors, each used
 * to the end of its span, where a wrong rate shows most), each between
 * the kernel's clock reads around it.
 */
static void iolayers_clock_test_brackets(struct kunit *test)
{
	u64 before, t, after, tsc;
	int i, outside = 0;

	clock_test_need_tsc(test);
	for (i = 0; i < 400; i++) {
		preempt_disable();
		before = ktime_get_ns();
		t = iolayers_clock_now(&tsc);
		after = ktime_get_ns();
		preempt_enable();
		if (t + CLOCK_TEST_SLACK_NS < before || t > after + CLOCK_TEST_SLACK_NS) {
			if (!outside++)
				kunit_info(test, "%llu not within [%llu, %llu]", t, before, after);
		}
		usleep_range(50, 60);
	}
	KUNIT_EXPECT_EQ(test, outside, 0);
	clock_test_forget();
}

/*
 * An anchor too old, or ahead of the TSC, is taken again, not used: its
 * time is ktime's, and a new anchor is kept (in one of five tries: one
 * the host stopped between its clock reads keeps none).
 */
static void iolayers_clock_test_renewal(struct kunit *test)
{
	/* Not static: the span is a variable where the counter is not the TSC. */
	const u64 ages[] = { IOLAYERS_ANCHOR_CYCLES + 1, 1ULL << 40, -(1ULL << 20) };
	struct iolayers_clock_anchor *a;
	u64 before, t, after, tsc;
	unsigned long flags;
	unsigned int i, try;
	bool renewed = false;

	clock_test_need_tsc(test);
	for (i = 0; i < ARRAY_SIZE(ages); i++) {
		for (try = 0; try < 5; try++) {
			local_irq_save(flags);
			a = this_cpu_ptr(&iolayers_clock_anchor);
			tsc = iolayers_counter();
			/* A wrong time: used as it is, it would be seen. */
			WRITE_ONCE(a->tsc, tsc - ages[i]);
			WRITE_ONCE(a->ns, 1);
			before = ktime_get_ns();
			t = iolayers_clock_now(&tsc);
			after = ktime_get_ns();
			renewed = READ_ONCE(a->ns) != 1;
			clock_test_forget_irqs_off();
			local_irq_restore(flags);
			KUNIT_EXPECT_GE_MSG(test, t + CLOCK_TEST_SLACK_NS, before, "age %llu",
					    ages[i]);
			KUNIT_EXPECT_LE_MSG(test, t, after + CLOCK_TEST_SLACK_NS, "age %llu",
					    ages[i]);
			if (renewed)
				break;
		}
		KUNIT_EXPECT_TRUE_MSG(test, renewed, "age %llu: no anchor kept", ages[i]);
	}
}

/*
 * One try of iolayers_clock_test_uses_anchor(): an anchor at snapshot @s0,
 * the time 2^18 cycles later in @t and its stamp in @tsc, then snapshot
 * @s1. False if the host stopped the guest past the anchor's span or the
 * kernel's clock was set meanwhile (6.1's snapshot time is the wall's).
 */
static bool clock_test_anchor_try(struct system_time_snapshot *s0,
				  struct system_time_snapshot *s1, u64 *t, u64 *tsc)
{
	struct iolayers_clock_anchor *a;
	unsigned long flags;

	local_irq_save(flags);
	iolayers_ktime_snapshot(s0);
	a = this_cpu_ptr(&iolayers_clock_anchor);
	WRITE_ONCE(a->tsc, s0->cycles);
	WRITE_ONCE(a->ns, 1000);
	while (iolayers_counter() - s0->cycles < IOLAYERS_ANCHOR_CYCLES / 4)
		cpu_relax();
	*t = iolayers_clock_now(tsc);
	iolayers_ktime_snapshot(s1);
	clock_test_forget_irqs_off();
	local_irq_restore(flags);
	return *tsc - s0->cycles <= IOLAYERS_ANCHOR_CYCLES &&
	       s1->clock_was_set_seq == s0->clock_was_set_seq;
}

/*
 * A fresh anchor is what the time is converted from, at the kernel's own
 * rate: an anchor from a snapshot of the kernel's clock (its counter and
 * its time of one moment, exact where two separate reads are not: under
 * emulation a translation between them takes tens of µs), the time a
 * quarter of a span later, and a second snapshot, between which the
 * kernel's time at that time's TSC stamp is the proportion of the two
 * (to 1 µs: at 2.6 GHz a 0.4 % error of rate).
 */
static void iolayers_clock_test_uses_anchor(struct kunit *test)
{
	struct system_time_snapshot s0, s1;
	u64 tsc, t, want;
	int i;

	clock_test_need_tsc(test);
	for (i = 0; i < 5; i++)
		if (clock_test_anchor_try(&s0, &s1, &t, &tsc))
			break;
	KUNIT_ASSERT_LT_MSG(test, i, 5, "stopped past the anchor's span in every try");
	KUNIT_ASSERT_GT(test, s1.cycles, tsc);
	KUNIT_ASSERT_GT(test, tsc, s0.cycles);
	want = 1000 + mul_u64_u64_div_u64(tsc - s0.cycles,
					  iolayers_snapshot_ns(&s1) - iolayers_snapshot_ns(&s0),
					  s1.cycles - s0.cycles);
	KUNIT_EXPECT_GE(test, t + 1000, want);
	KUNIT_EXPECT_LE(test, t, want + 1000);
}

/*
 * One anchor taken as a read's end takes it (none on this CPU), compared
 * with a snapshot of the kernel's clock right after: the snapshot's time
 * converted back to the anchor's TSC must be the anchor's time. The
 * error is the distance between the moments of the anchor's two values;
 * an anchor of ktime_get_ns() between two TSC reads had up to half their
 * distance (KASAN and lockdep under emulation: over 2048 cycles every
 * time; a host that stopped the vCPU there, tens of µs). Returns false if
 * the wall clock was set meanwhile (before 7.2 the snapshot's time is
 * the wall's) or no anchor was kept (counted in @gaps).
 */
static bool clock_test_anchor_error(struct kunit *test, s64 *err, int *gaps)
{
	struct iolayers_clock_anchor *a;
	struct system_time_snapshot s;
	u64 t, tsc, off, at, ns;
	unsigned long flags;
	bool same;

	local_irq_save(flags);
	clock_test_forget_irqs_off();
	off = iolayers_snapshot_off();
	t = iolayers_clock_now(&tsc);
	a = this_cpu_ptr(&iolayers_clock_anchor);
	at = READ_ONCE(a->tsc);
	ns = READ_ONCE(a->ns);
	iolayers_ktime_snapshot(&s);
	same = iolayers_snapshot_off() == off;
	clock_test_forget_irqs_off();
	local_irq_restore(flags);
	if (!at) {
		(*gaps)++;
		return false;
	}
	/* The read's end is the anchor's moment. */
	KUNIT_EXPECT_EQ(test, tsc, at);
	KUNIT_EXPECT_EQ(test, t, ns);
	if (!same || !iolayers_snapshot_valid(&s) || s.cycles < at)
		return false;
	*err = (s64)(iolayers_snapshot_ns(&s) - off -
		     (ns + iolayers_stamp_ns(true, at, s.cycles)));
	return true;
}

/*
 * Anchors are of one moment: 1000 of them, each within 20 ns of a
 * snapshot taken after it (the rest is the two conversions' rounding,
 * and NTP's slew over a few µs), and every one kept (clock_gaps).
 */
static void iolayers_clock_test_anchor_exact(struct kunit *test)
{
	s64 err, worst = 0;
	u64 worst_ns;
	int i, gaps = 0, compared = 0;
	u64 gaps0;

	clock_test_need_tsc(test);
	gaps0 = iolayers_clock_gaps();
	for (i = 0; i < 1000; i++) {
		preempt_disable();
		if (clock_test_anchor_error(test, &err, &gaps)) {
			compared++;
			if (abs(err) > abs(worst))
				worst = err;
		}
		preempt_enable();
		if (!(i % 64))
			cond_resched();
	}
	kunit_info(test, "%d anchors compared, worst %lld ns, %d not kept", compared, worst,
		   gaps);
	/* The kernel left the TSC meanwhile (its watchdog): not the anchors' fault. */
	if (!READ_ONCE(iolayers_clock_tsc))
		kunit_skip(test, "the TSC was found unstable during the test");
	KUNIT_EXPECT_EQ(test, gaps, 0);
	KUNIT_EXPECT_EQ(test, iolayers_clock_gaps(), gaps0);
	KUNIT_EXPECT_GE(test, compared, 990);
	worst_ns = abs(worst);
	KUNIT_EXPECT_LE(test, worst_ns, 20);
}
#else
static void iolayers_clock_test_brackets(struct kunit *test)
{
	kunit_skip(test, "no TSC");
}

static void iolayers_clock_test_renewal(struct kunit *test)
{
	kunit_skip(test, "no TSC");
}

static void iolayers_clock_test_uses_anchor(struct kunit *test)
{
	kunit_skip(test, "no TSC");
}

static void iolayers_clock_test_anchor_exact(struct kunit *test)
{
	kunit_skip(test, "no TSC");
}
#endif

static struct kunit_case iolayers_clock_cases[] = {
	KUNIT_CASE(iolayers_clock_test_brackets),
	KUNIT_CASE(iolayers_clock_test_renewal),
	KUNIT_CASE(iolayers_clock_test_uses_anchor),
	KUNIT_CASE(iolayers_clock_test_anchor_exact),
	{}
};

static struct kunit_suite iolayers_clock_suite = {
	.name = "iolayers_clock",
	.test_cases = iolayers_clock_cases,
};

kunit_test_suite(iolayers_clock_suite);
