// SPDX-License-Identifier: GPL-2.0
/* The layers' clock (include/iolayers/clock.h): the TSC where ktime is. */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/clocksource.h>
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
/** iolayers_tsc_mult - TSC cycles to ns: multiplier. */
u32 iolayers_tsc_mult __read_mostly;
/** iolayers_tsc_shift - TSC cycles to ns: shift. */
u32 iolayers_tsc_shift __read_mostly;

/* Reads whose sys_exit could not read the TSC and ktime close together. */
static DEFINE_PER_CPU(u64, iolayers_clock_gap_n);

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
 * iolayers_clock_check() - Leave the TSC once the kernel found it unstable.
 *
 * Reads started after this take ktime_get_ns() stamps; a read that
 * started with the TSC finishes with it.
 *
 * Context: any (a read's sys_exit).
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
 * iolayers_clock_gap() - Count a read whose exit stamps lie far apart.
 *
 * Its start (ktime at sys_exit less its TSC syscall time) may be late by
 * up to the gap; its layer times, TSC differences, are not affected.
 *
 * Context: any (a read's sys_exit).
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

/**
 * iolayers_clock_gaps_reset() - Zero that count (`reset`).
 *
 * Context: process context.
 */
void iolayers_clock_gaps_reset(void)
{
	IOLAYERS_PERCPU_ZERO(iolayers_clock_gap_n);
}
