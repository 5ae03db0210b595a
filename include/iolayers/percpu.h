/* SPDX-License-Identifier: GPL-2.0 */
/* Reading the per-CPU counters the probes keep. */
#ifndef _IOLAYERS_PERCPU_H
#define _IOLAYERS_PERCPU_H

#include <linux/types.h>
#include <linux/percpu.h>
#include <linux/cpumask.h>
#include <linux/string.h>

/**
 * IOLAYERS_PERCPU_SUM() - Sum a u64 of a DEFINE_PER_CPU variable over CPUs.
 * @var: the per-CPU variable
 * @idx: what follows per_cpu(@var, cpu) to reach the u64, e.g. ``[i]``, or
 *	nothing for a plain u64
 *
 * Not atomic with respect to probes that are counting.
 */
#define IOLAYERS_PERCPU_SUM(var, idx...) ({			\
	u64 __sum = 0;						\
	int __cpu;						\
								\
	for_each_possible_cpu(__cpu)				\
		__sum += READ_ONCE(per_cpu(var, __cpu)idx);	\
	__sum;							\
})

/**
 * IOLAYERS_PERCPU_ZERO() - Zero a DEFINE_PER_CPU variable on every CPU.
 * @var: the per-CPU variable (a counter or an array of them)
 *
 * For `reset`: counts racing with it may survive.
 */
#define IOLAYERS_PERCPU_ZERO(var) do {				\
	int __cpu;						\
								\
	for_each_possible_cpu(__cpu)				\
		memset(per_cpu_ptr(&(var), __cpu), 0, sizeof(var));	\
} while (0)

#endif /* _IOLAYERS_PERCPU_H */
