/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The layers' clock. A read's SYSCALL, VFS and FS times are differences of
 * stamps its own task takes (sys_enter, the VFS and FS entries, sys_exit).
 * Where the kernel's monotonic clock is the TSC, the stamps are the TSC
 * itself and only the differences are converted to ns, at sys_exit, with
 * the clocksource's own frequency: ktime_get() reads the same counter and
 * converts it on every call, about 40 instructions each. Elsewhere (other
 * clocksources, other architectures) the stamps are ktime_get_ns(). Each
 * read keeps the clock it started with, so a switch between its stamps
 * cannot mix the two.
 */
#ifndef _IOLAYERS_CLOCK_H
#define _IOLAYERS_CLOCK_H

#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/timekeeping.h>
#include <linux/types.h>
#ifdef CONFIG_X86_TSC
#include <asm/msr.h>
#endif

extern bool iolayers_clock_tsc;
extern u32 iolayers_tsc_mult;
extern u32 iolayers_tsc_shift;

/**
 * iolayers_stamp() - A stamp of the clock a read started with.
 * @tsc: the read's clock is the TSC
 *
 * Context: any.
 * Return: the TSC, or ktime_get_ns().
 */
static __always_inline u64 iolayers_stamp(bool tsc)
{
#ifdef CONFIG_X86_TSC
	if (tsc)
		return rdtsc_ordered();
#endif
	return ktime_get_ns();
}

/**
 * iolayers_stamp_ns() - The time from one stamp to a later one.
 * @tsc: both are TSC stamps
 * @from: the earlier stamp
 * @to: the later one
 *
 * Context: any.
 * Return: ns; 0 if @to is before @from (a TSC read on another CPU a few
 * cycles off; the kernel keeps the TSCs it uses in step).
 */
static __always_inline u64 iolayers_stamp_ns(bool tsc, u64 from, u64 to)
{
	u64 d = to - from;

	if (!tsc)
		return d;
	if ((s64)d <= 0)
		return 0;
	/* Under 2^32 cycles (a second or more) the product fits in 64 bits. */
	if (likely(d <= U32_MAX))
		return (d * iolayers_tsc_mult) >> iolayers_tsc_shift;
	return mul_u64_u32_shr(d, iolayers_tsc_mult, iolayers_tsc_shift);
}

void iolayers_clock_init(void);
void iolayers_clock_check(void);
void iolayers_clock_gap(void);
u64 iolayers_clock_gaps(void);
void iolayers_clock_gaps_reset(void);

#endif /* _IOLAYERS_CLOCK_H */
