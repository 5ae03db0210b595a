/* SPDX-License-Identifier: GPL-2.0 */
/* Reading the per-CPU counters the probes keep. */
#ifndef _IOLAYERS_PERCPU_H
#define _IOLAYERS_PERCPU_H

#include <linux/types.h>
#include <linux/percpu.h>
#include <linux/cpumask.h>

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

#endif /* _IOLAYERS_PERCPU_H */
