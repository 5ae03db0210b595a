/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The layers' clock. A read's SYSCALL, VFS and FS times are differences of
 * stamps its own task takes (sys_enter, the VFS and FS entries, sys_exit).
 * Where the kernel's monotonic clock is the CPU's counter (x86's TSC,
 * arm64's architecture timer, CNTVCT_EL0), the stamps are the counter
 * itself and only the differences are converted to ns, at sys_exit, with
 * the counter's frequency: ktime_get() reads the same counter and
 * converts it on every call, about 40 instructions each. Elsewhere (other
 * clocksources, other architectures) the stamps are ktime_get_ns(). Each
 * read keeps the clock it started with, so a switch between its stamps
 * cannot mix the two. The names say "tsc" for the counter on either
 * architecture (the `clock_tsc` counter of `stats` among them).
 */
#ifndef _IOLAYERS_CLOCK_H
#define _IOLAYERS_CLOCK_H

#include <linux/bits.h>
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/percpu-defs.h>
#include <linux/timekeeping.h>
#include <linux/types.h>
#if defined(CONFIG_X86_TSC)
#include <asm/msr.h>
/* The CPU's counter the stamps are taken from, where ktime's may be it. */
#define IOLAYERS_COUNTER 1
#define iolayers_counter() rdtsc_ordered()
#elif defined(CONFIG_ARM64) && defined(CONFIG_ARM_ARCH_TIMER)
#include <clocksource/arm_arch_timer.h>
#define IOLAYERS_COUNTER 1
/*
 * The kernel's own read of the architecture timer (the clocksource's):
 * an ISB before the counter's read, and on a CPU with a timer erratum
 * the workaround's read.
 */
#define iolayers_counter() arch_timer_read_counter()
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
#ifdef IOLAYERS_COUNTER
	if (tsc)
		return iolayers_counter();
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

/**
 * struct iolayers_clock_anchor - A CPU's TSC and ktime_get_ns() of one
 *	recent moment, from which the CPU's later ktime is the TSC's
 *	distance.
 * @tsc: the TSC then (the counter value of a snapshot of the kernel's clock)
 * @ns: ktime_get_ns() then (that snapshot's time)
 *
 * Written with interrupts off by the CPU itself, read by it only (a
 * read's sys_exit).
 */
struct iolayers_clock_anchor {
	u64 tsc;
	u64 ns;
};

DECLARE_PER_CPU(struct iolayers_clock_anchor, iolayers_clock_anchor);

/*
 * How far from its anchor a TSC read is converted: 2^20 cycles, 0.35 ms
 * at 3 GHz, 1 ms at 1 GHz. Over it our conversion (the TSC's registered
 * frequency) and the kernel's (which NTP slews) part by the slew: at the
 * 500 ppm NTP allows itself, 0.17 µs at 3 GHz and 0.52 µs at 1 GHz; a
 * clock slewed faster (chrony corrects a large offset at up to 8.3 %)
 * by as much more.
 */
#ifdef CONFIG_X86_TSC
#define IOLAYERS_ANCHOR_CYCLES	BIT_ULL(20)
#else
/*
 * The architecture timer runs at 1 GHz on Armv8.6 and later and from
 * under 20 MHz up on older CPUs: the same span is the frequency's
 * 0.35 ms, set at load (iolayers_clock_init()).
 */
extern u64 iolayers_anchor_cycles;
#define IOLAYERS_ANCHOR_CYCLES	iolayers_anchor_cycles
#endif

u64 iolayers_clock_anchor_set(u64 *tsc);

/**
 * iolayers_clock_now() - ktime_get_ns() from the TSC and this CPU's anchor.
 * @tsc: where the TSC stamp of the same moment goes
 *
 * About 15 instructions where ktime_get_ns() between two TSC reads took
 * 60: one TSC read, converted as its distance from the anchor, which is
 * taken again once it is IOLAYERS_ANCHOR_CYCLES old or ahead of the TSC
 * (suspend, a CPU brought back). An interrupt on this CPU that takes the
 * anchor again between the loads of its two words is seen by loading the
 * TSC word again (sys_exit, the requests' completions and returns, and a
 * direct AIO read's completion in its bio's interrupt read it).
 *
 * Context: preemption disabled, not NMI; the TSC is ktime's clock.
 * Return: the time in ns, as ktime_get_ns() would have it, to within
 * half the anchor's bracket and IOLAYERS_ANCHOR_CYCLES' slew.
 */
static __always_inline u64 iolayers_clock_now(u64 *tsc)
{
#ifdef IOLAYERS_COUNTER
	const struct iolayers_clock_anchor *a = this_cpu_ptr(&iolayers_clock_anchor);
	u64 t = iolayers_counter();
	u64 at = READ_ONCE(a->tsc);
	u64 ns = READ_ONCE(a->ns);

	if (unlikely(t - at > IOLAYERS_ANCHOR_CYCLES || READ_ONCE(a->tsc) != at))
		return iolayers_clock_anchor_set(tsc);
	*tsc = t;
	return ns + (((t - at) * iolayers_tsc_mult) >> iolayers_tsc_shift);
#else
	*tsc = ktime_get_ns();
	return *tsc;
#endif
}

void iolayers_clock_init(void);
void iolayers_clock_check(void);
void iolayers_clock_gap(void);
u64 iolayers_clock_gaps(void);
void iolayers_clock_gaps_reset(void);

#endif /* _IOLAYERS_CLOCK_H */
