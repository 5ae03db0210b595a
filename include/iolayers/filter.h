/* SPDX-License-Identifier: GPL-2.0 */
/* Which tasks are followed (filter.c): pid=, comm=, children=, cgroup=. */
#ifndef _IOLAYERS_FILTER_H
#define _IOLAYERS_FILTER_H

#include <linux/printk.h>
#include <linux/types.h>
#include <linux/sched.h>

extern pid_t iolayers_target_tgid;
bool iolayers_follows_other(struct task_struct *task);

/**
 * iolayers_follows() - Is a task followed?
 * @task: the task (current in syscall probes, the parent at fork)
 *
 * Inline: every read-family syscall of every task asks, and the pid=
 * process's answer needs no call.
 *
 * Context: any task context, under rcu_read_lock() (or preemption
 * disabled).
 * Return: true when its process is the pid= one, has the comm= name, is
 * in the cgroup= cgroup or under it, or was forked by a followed one
 * while children=1.
 */
static __always_inline bool iolayers_follows(struct task_struct *task)
{
	pid_t target = READ_ONCE(iolayers_target_tgid);

	if (target && task->tgid == target)
		return true;
	return iolayers_follows_other(task);
}

bool iolayers_filter_any(void);
int iolayers_filter_set_pid(const char *val);
int iolayers_filter_set_comm(const char *val);
int iolayers_filter_set_children(const char *val);
#ifdef CONFIG_CGROUPS
int iolayers_filter_set_cgroup(const char *val);
int iolayers_filter_show_cgroup(char *buf, size_t size);
void iolayers_filter_exit(void);
#else
/* A kernel without cgroups: cgroup= can only be off. */
static inline int iolayers_filter_set_cgroup(const char *val)
{
	if (val && !val[0])
		return 0;
	pr_err_ratelimited("invalid cgroup '%*pE': this kernel has no cgroups (CONFIG_CGROUPS)\n",
			   val ? (int)strlen(val) : 0, val ? val : "");
	return -EINVAL;
}

static inline int iolayers_filter_show_cgroup(char *buf, size_t size)
{
	return snprintf(buf, size, "\n");
}

static inline void iolayers_filter_exit(void)
{
}
#endif
int iolayers_filter_show_pid(char *buf, size_t size);
int iolayers_filter_show_comm(char *buf, size_t size);
int iolayers_filter_show_children(char *buf, size_t size);
u64 iolayers_filter_target_exits(void);
void iolayers_filter_recheck_target(void);

#if IS_ENABLED(CONFIG_KUNIT)
/* Static in the module; visible to the KUnit tests (compat.h). */
int iolayers_parse_pid(const char *val, pid_t *out);
int iolayers_parse_comm(const char *val, char *out);
#endif

#endif /* _IOLAYERS_FILTER_H */
