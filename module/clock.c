// SPDX-License-Identifier: GPL-2.0
/* The layers' clock (include/iolayers/clock.h): the TSC where ktime is. */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/clocksource.h>
#include <linux/export.h>
#include <linux/percpu.h>
#include <linux/printk.h>
#include <linux/time64.h>
#include <linux/timekeeping.h>
#include <iolayers/clock.h>
#include <iolayers/compat.h>
#include <iolayers/percpu.h>
#ifdef CONFIG_X86_TSC
#include <asm/tsc.h>
#endif

/** iolayers_clock_tsc - New reads take TSC stamps. */
bool iolayers_clock_tsc __read_mostly;
EXPORT_SYMBOL_IF_KUNIT(iolayers_clock_tsc);
/** iolayers_tsc_mult - TSC cycles to ns: multiplier. */
u32 iolayers_tsc_mult __read_mostly;
EXPORT_SYMBOL_IF_KUNIT(iolayers_tsc_mult);
/** iolayers_tsc_shift - TSC cycles to ns: shift. */
u32 iolayers_tsc_shift __read_mostly;
EXPORT_SYMBOL_IF_KUNIT(iolayers_tsc_shift);

/* Anchors that could not read the TSC and ktime close together. */
static DEFINE_PER_CPU(u64, iolayers_clock_gap_n);

DEFINE_PER_CPU(struct iolayers_clock_anchor, iolayers_clock_anchor);
#if IS_ENABLED(CONFIG_KUNIT)
/* For the KUnit tests of the anchored time (kunit/clock_kunit.c). */
EXPORT_PER_CPU_SYMBOL_GPL(iolayers_clock_anchor);
#endif

/*
 * How far apart the two TSC reads around ktime_get_ns() may lie, in TSC
 * cycles: a pair at most 2048 apart is taken at once (its midpoint within
 * 1024 cycles, 0.4 µs at 2.6 GHz, of ktime's moment; ktime_get_ns() takes
 * about 100 on hardware); otherwise the closest of three, if at most 8192
 * apart (a kernel with KASAN and lockdep under emulation takes more than
 * 2048 every time), and beyond that none (counted in clock_gaps).
 */
#define IOLAYERS_ANCHOR_BRACKET		2048
#define IOLAYERS_BRACKET_CYCLES		8192
#define IOLAYERS_BRACKET_TRIES		3

/*
 * Is the kernel's monotonic clock the TSC? Its snapshot's counter value
 * then lies between two TSC reads around it; another clocksource's (the
 * HPET's 32 bits, ACPI PM's 24, kvm-clock's ns) does not. 6.1 has no
 * clocksource id for the TSC to ask instead (6.12 and 7.2 have).
 */
static bool iolayers_ktime_is_tsc(void)
{
#ifdef CONFIG_X86_TSC
	struct system_time_snapshot snap;
	u64 before, after;

	if (!boot_cpu_has(X86_FEATURE_TSC) || !tsc_khz || check_tsc_unstable())
		return false;
	before = rdtsc_ordered();
	iolayers_ktime_snapshot(&snap);
	after = rdtsc_ordered();
	return snap.cycles >= before && snap.cycles <= after;
#else
	return false;
#endif
}

/**
 * iolayers_clock_init() - Choose the clock of the reads, at load.
 *
 * The TSC's frequency is the one the kernel's TSC clocksource was
 * registered with (tsc_khz), converted as the clocksource code does.
 *
 * Context: process context (module load).
 */
void iolayers_clock_init(void)
{
	iolayers_clock_tsc = false;
#ifdef CONFIG_X86_TSC
	if (iolayers_ktime_is_tsc()) {
		/* 3600 s: the longest read converted at full precision. */
		clocks_calc_mult_shift(&iolayers_tsc_mult, &iolayers_tsc_shift, tsc_khz,
				       NSEC_PER_MSEC, 3600 * MSEC_PER_SEC);
		iolayers_clock_tsc = true;
	}
#endif
	pr_info("layer times from %s\n", iolayers_clock_tsc ? "the TSC" : "ktime_get_ns()");
}

/**
 * iolayers_clock_anchor_set() - Take this CPU's anchor again: the TSC and
 *	ktime_get_ns() of one moment.
 * @tsc: where that moment's TSC stamp goes
 *
 * Interrupts off is not enough for the two to be of one moment: a
 * hypervisor may stop the vCPU between two instructions (seen under QEMU,
 * 400 µs between the two reads, which moved a flow's start after its
 * request's completion). So ktime is read between two TSC reads, and
 * read again when they lie too far apart; the anchor's TSC is the pair's
 * midpoint, within half their distance of ktime's moment. The closest
 * of three pairs is kept if at most IOLAYERS_BRACKET_CYCLES apart;
 * beyond, it is returned for this one read, not kept (an anchor off by
 * half such a gap would move the starts of every read of its span; the
 * next read tries again, what every read did before anchors) and counted
 * in clock_gaps. Also where the TSC's stability is checked
 * (iolayers_clock_check()), once an anchor's span at most.
 *
 * Context: preemption disabled, not NMI (a read's sys_exit).
 * Return: ktime_get_ns() of the moment.
 */
u64 iolayers_clock_anchor_set(u64 *tsc)
{
#ifdef CONFIG_X86_TSC
	u64 t0, t1, now, best = U64_MAX, best_now = 0, best_tsc = 0;
	struct iolayers_clock_anchor *a;
	unsigned long flags;
	int i;

	iolayers_clock_check();
	for (i = 0; i < IOLAYERS_BRACKET_TRIES; i++) {
		local_irq_save(flags);
		t0 = rdtsc_ordered();
		now = ktime_get_ns();
		t1 = rdtsc_ordered();
		local_irq_restore(flags);
		if (t1 - t0 < best) {
			best = t1 - t0;
			best_tsc = t0 + (t1 - t0) / 2;
			best_now = now;
		}
		if (likely(best <= IOLAYERS_ANCHOR_BRACKET))
			break;
	}
	*tsc = best_tsc;
	if (unlikely(best > IOLAYERS_BRACKET_CYCLES)) {
		iolayers_clock_gap();
		return best_now;
	}
	local_irq_save(flags);
	a = this_cpu_ptr(&iolayers_clock_anchor);
	WRITE_ONCE(a->tsc, best_tsc);
	WRITE_ONCE(a->ns, best_now);
	local_irq_restore(flags);
	return best_now;
#else
	*tsc = ktime_get_ns();
	return *tsc;
#endif
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_clock_anchor_set);

/**
 * iolayers_clock_check() - Leave the TSC once the kernel found it unstable.
 *
 * Reads started after this take ktime_get_ns() stamps; a read that
 * started with the TSC finishes with it.
 *
 * Context: any (an anchor's renewal).
 */
void iolayers_clock_check(void)
{
#ifdef CONFIG_X86_TSC
	if (unlikely(check_tsc_unstable()) && READ_ONCE(iolayers_clock_tsc)) {
		WRITE_ONCE(iolayers_clock_tsc, false);
		pr_info_ratelimited("the TSC is unstable: layer times from ktime_get_ns() on\n");
	}
#endif
}

/**
 * iolayers_clock_gap() - Count a read whose end's TSC and ktime reads
 *	lay far apart (no anchor could be taken).
 *
 * Its start (ktime at sys_exit less its TSC syscall time) may be off by up
 * to half the gap; its layer times, TSC differences, are not affected.
 *
 * Context: any.
 */
void iolayers_clock_gap(void)
{
	this_cpu_inc(iolayers_clock_gap_n);
}

/**
 * iolayers_clock_gaps() - Reads counted by iolayers_clock_gap().
 *
 * Return: the count over all CPUs.
 */
u64 iolayers_clock_gaps(void)
{
	return IOLAYERS_PERCPU_SUM(iolayers_clock_gap_n);
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_clock_gaps);

/**
 * iolayers_clock_gaps_reset() - Zero that count (`reset`).
 *
 * Context: process context.
 */
void iolayers_clock_gaps_reset(void)
{
	IOLAYERS_PERCPU_ZERO(iolayers_clock_gap_n);
}
