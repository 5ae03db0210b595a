// SPDX-License-Identifier: GPL-2.0
/*
 * The layers' clock (include/iolayers/clock.h): the CPU's counter (the
 * TSC, arm64's architecture timer) where ktime is.
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/clocksource.h>
#include <linux/delay.h>
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

#ifndef CONFIG_X86_TSC
/** iolayers_anchor_cycles - The counter's cycles in an anchor's span. */
u64 iolayers_anchor_cycles __read_mostly = U64_MAX;
EXPORT_SYMBOL_IF_KUNIT(iolayers_anchor_cycles);
#endif

/* Reads that found no anchor (iolayers_clock_gap()). */
static DEFINE_PER_CPU(u64, iolayers_clock_gap_n);

DEFINE_PER_CPU(struct iolayers_clock_anchor, iolayers_clock_anchor);
#if IS_ENABLED(CONFIG_KUNIT)
/* For the KUnit tests of the anchored time (kunit/clock_kunit.c). */
EXPORT_PER_CPU_SYMBOL_GPL(iolayers_clock_anchor);
#endif

/* Tries at an anchor before its read takes ktime_get_ns() instead. */
#define IOLAYERS_ANCHOR_TRIES		3

#ifdef IOLAYERS_COUNTER
/*
 * A timekeeper snapshot whose counter lies between counter reads around
 * it (another clocksource's would not: the HPET's 32 bits, ACPI PM's 24,
 * kvm-clock's ns). Context: not NMI.
 */
static __always_inline bool iolayers_snapshot_counter(struct system_time_snapshot *snap)
{
	u64 t0, t1;

	t0 = iolayers_counter();
	iolayers_ktime_snapshot(snap);
	t1 = iolayers_counter();
	if (!iolayers_snapshot_valid(snap) || snap->cycles < t0 || snap->cycles > t1)
		return false;
	return true;
}

/*
 * The TSC and CLOCK_MONOTONIC of one moment, from one timekeeper
 * snapshot: the counter value the kernel converted is the TSC read, so
 * the two are exact whatever happens around them. Before 7.2 the
 * snapshot has CLOCK_REALTIME, monotonic plus an offset that moves only
 * when the wall clock is set; the offset read before and after must
 * agree (iolayers_snapshot_off()); the counter is checked by
 * iolayers_snapshot_counter(). Context: not NMI.
 */
static bool iolayers_clock_snapshot(u64 *tsc, u64 *ns)
{
	struct system_time_snapshot snap;
	u64 off = iolayers_snapshot_off();

	if (!iolayers_snapshot_counter(&snap) || iolayers_snapshot_off() != off)
		return false;
	*tsc = snap.cycles;
	*ns = iolayers_snapshot_ns(&snap) - off;
	return true;
}
#endif

#ifdef IOLAYERS_COUNTER
/* ktime's clock is the counter: its snapshot is one of the counter. */
static bool iolayers_ktime_is_counter(void)
{
	u64 tsc, ns;
	int i;

	/* More than once: the wall clock may be set during one. */
	for (i = 0; i < IOLAYERS_ANCHOR_TRIES; i++)
		if (iolayers_clock_snapshot(&tsc, &ns))
			return true;
	return false;
}
#endif

#ifdef CONFIG_X86_TSC
/*
 * Is the kernel's monotonic clock the TSC? Then its snapshot is one
 * (iolayers_clock_snapshot()). 6.1 has no clocksource id for the TSC to
 * ask instead (6.12 and 7.2 have). Return: the TSC's kHz, or 0.
 */
static u32 iolayers_counter_khz(void)
{
	if (!boot_cpu_has(X86_FEATURE_TSC) || !tsc_khz || check_tsc_unstable() ||
	    !iolayers_ktime_is_counter())
		return 0;
	return tsc_khz;
}
#elif defined(IOLAYERS_COUNTER)
/*
 * One snapshot's counter and CLOCK_MONOTONIC_RAW (iolayers_snapshot_counter()).
 * Context: process context.
 */
static bool iolayers_raw_snapshot(u64 *cycles, u64 *raw)
{
	struct system_time_snapshot snap;

	if (!iolayers_snapshot_counter(&snap))
		return false;
	*cycles = snap.cycles;
	*raw = iolayers_snapshot_raw(&snap);
	return true;
}

/*
 * arm64: is the kernel's monotonic clock the architecture timer, and at
 * the frequency CNTFRQ_EL0 says? The kernel takes a devicetree's
 * clock-frequency over the register (firmware that never set it), which
 * a module cannot read: the register is checked against two snapshots
 * 2 ms apart, each an exact pair of counter and CLOCK_MONOTONIC_RAW
 * (the kernel's nominal rate for the counter: NTP's slew, up to 8 % with
 * chrony, is not in it), and must agree with them within 0.1 %.
 * Return: kHz, or 0.
 */
static u32 iolayers_counter_khz(void)
{
	u64 c0, r0, c1, r1, hz = arch_timer_get_cntfrq(), measured;

	if (!hz || hz % 1000 || !iolayers_ktime_is_counter())
		return 0;
	if (!iolayers_raw_snapshot(&c0, &r0))
		return 0;
	usleep_range(2000, 3000);
	if (!iolayers_raw_snapshot(&c1, &r1) || r1 <= r0 || c1 <= c0)
		return 0;
	measured = mul_u64_u64_div_u64(c1 - c0, NSEC_PER_SEC, r1 - r0);
	if (measured > hz + hz / 1000 || measured < hz - hz / 1000) {
		pr_info("CNTFRQ_EL0 says %llu Hz, the kernel's clock %llu Hz\n", hz, measured);
		return 0;
	}
	return div_u64(hz, 1000);
}
#endif

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
#ifdef IOLAYERS_COUNTER
	u32 khz = iolayers_counter_khz();
#endif

	iolayers_clock_tsc = false;
#ifdef IOLAYERS_COUNTER
	if (khz) {
		/* 3600 s: the longest read converted at full precision. */
		clocks_calc_mult_shift(&iolayers_tsc_mult, &iolayers_tsc_shift, khz,
				       NSEC_PER_MSEC, 3600 * MSEC_PER_SEC);
#ifndef CONFIG_X86_TSC
		/* 0.35 ms of the counter, as 2^20 cycles are of a 3 GHz TSC. */
		iolayers_anchor_cycles = div_u64((u64)khz * 35, 100);
#endif
		iolayers_clock_tsc = true;
	}
#endif
	pr_info("layer times from %s\n", !iolayers_clock_tsc ? "ktime_get_ns()" :
		IS_ENABLED(CONFIG_X86_TSC) ? "the TSC" : "the architecture timer");
}

/**
 * iolayers_clock_anchor_set() - Take this CPU's anchor again: the TSC and
 *	ktime_get_ns() of one moment.
 * @tsc: where that moment's TSC stamp goes
 *
 * Two clock reads, however close, are not of one moment: a hypervisor may
 * stop the vCPU between two instructions (seen under QEMU: 400 µs between
 * two reads, which moved a flow's start after its request's completion;
 * and 30 µs with interrupts off inside a bracket of two TSC reads around
 * ktime_get_ns(), which put a read's start 15 µs early). So the anchor is
 * the timekeeper's own snapshot, the TSC value it converted and the
 * time it made of it (iolayers_clock_snapshot()). Where none is had in
 * IOLAYERS_ANCHOR_TRIES (the wall clock set at that instant each time,
 * or the kernel's clock is no longer the TSC), the read takes
 * ktime_get_ns() and a TSC read after it, keeps no anchor, and is counted
 * in clock_gaps. Also where the TSC's stability is checked
 * (iolayers_clock_check()), once an anchor's span at most.
 *
 * Context: preemption disabled, not NMI (a read's sys_exit).
 * Return: ktime_get_ns() of the moment.
 */
u64 iolayers_clock_anchor_set(u64 *tsc)
{
#ifdef IOLAYERS_COUNTER
	struct iolayers_clock_anchor *a;
	unsigned long flags;
	u64 t, ns;
	int i;

	iolayers_clock_check();
	for (i = 0; i < IOLAYERS_ANCHOR_TRIES; i++) {
		if (likely(iolayers_clock_snapshot(&t, &ns)))
			break;
	}
	if (unlikely(i == IOLAYERS_ANCHOR_TRIES)) {
		iolayers_clock_gap();
		ns = ktime_get_ns();
		*tsc = iolayers_counter();
		return ns;
	}
	*tsc = t;
	local_irq_save(flags);
	a = this_cpu_ptr(&iolayers_clock_anchor);
	WRITE_ONCE(a->tsc, t);
	WRITE_ONCE(a->ns, ns);
	local_irq_restore(flags);
	return ns;
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
 * iolayers_clock_gap() - Count a read whose end found no anchor.
 *
 * Its end is ktime_get_ns() and a TSC read after it, not of one moment,
 * so its start (that end less its TSC syscall time) may be off by as much
 * as a vCPU was stopped between the two; its layer times, TSC
 * differences, are not affected.
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
