/* SPDX-License-Identifier: GPL-2.0 */
/* Internal API shared by the iolayers module's files. */
#ifndef _IOLAYERS_IOLAYERS_H
#define _IOLAYERS_IOLAYERS_H

#include <linux/types.h>
#include <linux/percpu.h>
#include <linux/sched.h>

/*
 * What the files share beyond the probe registry (probe.h), the flow
 * (flow.h), the tables (table.h) and the histograms (hist.h).
 */

extern unsigned int iolayers_expire_ms;

bool iolayers_follows(struct task_struct *task);
int iolayers_filter_set_pid(const char *val);
int iolayers_filter_set_comm(const char *val);
int iolayers_filter_set_children(const char *val);
int iolayers_filter_show_pid(char *buf, size_t size);
int iolayers_filter_show_comm(char *buf, size_t size);
int iolayers_filter_show_children(char *buf, size_t size);
bool iolayers_filter_any(void);

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

int iolayers_parse_pid(const char *val, pid_t *out);
int iolayers_parse_comm(const char *val, char *out);
bool iolayers_expired(u64 born_ns, u64 now_ns, u64 max_age_ns);

int iolayers_syscall_index(int nr);
bool iolayers_fs_available(void);
void iolayers_block_expire(void);
u64 iolayers_block_counter(int which);
const char *iolayers_block_counter_name(int which);
void iolayers_block_reset(void);
void iolayers_stats_reset(void);
void iolayers_debugfs_init(void);
void iolayers_debugfs_exit(void);

#endif /* _IOLAYERS_IOLAYERS_H */
