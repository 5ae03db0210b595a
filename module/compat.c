// SPDX-License-Identifier: GPL-2.0
/*
 * What older kernels lack and compat.h cannot define inline: the only
 * other file with kernel-version conditionals.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hardirq.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <iolayers/compat.h>

#if KERNEL_VERSION(5, 11, 0) > LINUX_VERSION_CODE
/* A bit per context (task, softirq, hard IRQ, NMI) a callback runs in. */
static DEFINE_PER_CPU(unsigned int, iolayers_fentry_busy);

/**
 * iolayers_recursion_trylock() - 5.10's stand-in for
 *	ftrace_test_recursion_trylock(): refuse a callback that entered again
 *	in the context one of ours already runs in on this CPU (a traced
 *	function called by our own handler), else take the context's bit
 *	with preemption disabled.
 * @ip: the traced function (unused; kept for the same call as 5.11's)
 * @parent_ip: its caller (unused)
 *
 * Context: an ftrace callback, any context.
 * Return: the bit to hand to iolayers_recursion_unlock(), or -1: refused.
 */
int notrace iolayers_recursion_trylock(unsigned long ip, unsigned long parent_ip)
{
	unsigned int bit;

	preempt_disable_notrace();
	if (in_nmi())
		bit = 3;
	else if (in_irq())
		bit = 2;
	else if (in_serving_softirq())
		bit = 1;
	else
		bit = 0;
	if (__this_cpu_read(iolayers_fentry_busy) & BIT(bit)) {
		preempt_enable_notrace();
		return -1;
	}
	__this_cpu_or(iolayers_fentry_busy, BIT(bit));
	return bit;
}

/**
 * iolayers_recursion_unlock() - Give back what iolayers_recursion_trylock()
 *	took.
 * @bit: its return value (not -1)
 *
 * Context: the same callback, still on the same CPU.
 */
void notrace iolayers_recursion_unlock(int bit)
{
	__this_cpu_and(iolayers_fentry_busy, ~BIT(bit));
	preempt_enable_notrace();
}
#endif
