// SPDX-License-Identifier: GPL-2.0
/*
 * Which tasks are followed: a process (pid=, all its threads), every
 * process with a name (comm=), and with children=1 the processes a followed
 * one forks after load. All three can change at runtime (debugfs); a read()
 * already in flight keeps its flow until its own sys_exit.
 */

#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/kstrtox.h>
#include <iolayers/iolayers.h>
#include <iolayers/flow.h>
#include <iolayers/table.h>

static pid_t iolayers_target_tgid;
/* The comm filter as two words, compared without a lock; all 0 when off. */
static u64 iolayers_comm[TASK_COMM_LEN / sizeof(u64)];
static bool iolayers_children;

static bool iolayers_comm_match(struct task_struct *task)
{
	u64 c[TASK_COMM_LEN / sizeof(u64)];
	u64 want0 = READ_ONCE(iolayers_comm[0]);

	if (!want0)
		return false;
	memcpy(c, task->comm, sizeof(c));
	return c[0] == want0 && c[1] == READ_ONCE(iolayers_comm[1]);
}

/**
 * iolayers_follows() - Is a task followed?
 * @task: the task (current in syscall probes, the parent at fork)
 *
 * Context: any task context, under rcu_read_lock().
 * Return: true when its process is the pid= one, has the comm= name, or
 * was forked by a followed one while children=1.
 */
bool iolayers_follows(struct task_struct *task)
{
	pid_t target = READ_ONCE(iolayers_target_tgid);

	if (target && task->tgid == target)
		return true;
	if (iolayers_comm_match(task))
		return true;
	return !iolayers_table_empty(IOLAYERS_T_TGID) &&
	       iolayers_table_find(IOLAYERS_T_TGID, task->tgid);
}

/**
 * iolayers_filter_any() - Is any filter set (pid or comm)?
 *
 * Return: true when something can be followed.
 */
bool iolayers_filter_any(void)
{
	return READ_ONCE(iolayers_target_tgid) || READ_ONCE(iolayers_comm[0]);
}

/**
 * iolayers_filter_set_pid() - Follow another process.
 * @val: its pid, as text
 *
 * Context: process context.
 * Return: 0, or -EINVAL (with a pr_err naming @val) when @val is not a pid
 * or no such process exists.
 */
int iolayers_filter_set_pid(const char *val)
{
	struct pid *p;
	pid_t pid;

	if (iolayers_parse_pid(val, &pid)) {
		pr_err("iolayers: invalid pid '%s': want a process id in 1..%d\n",
		       val, (int)PID_MAX_LIMIT);
		return -EINVAL;
	}
	p = find_get_pid(pid);
	if (!p) {
		pr_err("iolayers: invalid pid '%d': no such process\n", pid);
		return -EINVAL;
	}
	put_pid(p);
	WRITE_ONCE(iolayers_target_tgid, pid);
	return 0;
}

/**
 * iolayers_filter_set_comm() - Follow every process with a name.
 * @val: the name (up to TASK_COMM_LEN - 1 bytes); empty turns it off
 *
 * Context: process context.
 * Return: 0, or -EINVAL with a pr_err naming @val.
 */
int iolayers_filter_set_comm(const char *val)
{
	u64 c[TASK_COMM_LEN / sizeof(u64)];

	if (iolayers_parse_comm(val, (char *)c)) {
		pr_err("iolayers: invalid comm '%s': want a task name of at most %d bytes\n",
		       val, TASK_COMM_LEN - 1);
		return -EINVAL;
	}
	/* Off first, so a half-written name never matches. */
	WRITE_ONCE(iolayers_comm[0], 0);
	WRITE_ONCE(iolayers_comm[1], c[1]);
	WRITE_ONCE(iolayers_comm[0], c[0]);
	return 0;
}

/**
 * iolayers_filter_set_children() - Follow children forked from now on.
 * @val: a boolean ("1", "0", "y", "n")
 *
 * Turning it off forgets the children followed so far.
 *
 * Context: process context.
 * Return: 0, or -EINVAL with a pr_err naming @val.
 */
int iolayers_filter_set_children(const char *val)
{
	bool on;

	if (!val || kstrtobool(val, &on)) {
		pr_err("iolayers: invalid children '%s': want 0 or 1\n", val ? val : "");
		return -EINVAL;
	}
	WRITE_ONCE(iolayers_children, on);
	if (!on)
		iolayers_table_expire(IOLAYERS_T_TGID, 0);
	return 0;
}

/**
 * iolayers_filter_show() - One filter's value as text.
 * @buf: where to write it, with a newline
 * @size: bytes available at @buf
 * @which: 0 the pid, 1 the comm, 2 children
 *
 * Return: the length written (as snprintf()).
 */
int iolayers_filter_show(char *buf, size_t size, int which)
{
	u64 c[TASK_COMM_LEN / sizeof(u64) + 1] = { 0 };

	switch (which) {
	case 0:
		return snprintf(buf, size, "%d\n", READ_ONCE(iolayers_target_tgid));
	case 1:
		c[0] = READ_ONCE(iolayers_comm[0]);
		c[1] = READ_ONCE(iolayers_comm[1]);
		return snprintf(buf, size, "%.*s\n", TASK_COMM_LEN - 1, (char *)c);
	default:
		return snprintf(buf, size, "%d\n", READ_ONCE(iolayers_children));
	}
}

/* Prototype of TRACE_EVENT(sched_process_fork). */
static void iolayers_process_fork(void *data, struct task_struct *parent,
				  struct task_struct *child)
{
	IOLAYERS_COST_SCOPE(IOLAYERS_P_PROCESS_FORK);

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	if (!READ_ONCE(iolayers_children) || child->tgid == parent->tgid)
		return;		/* a thread: followed through its tgid already */
	rcu_read_lock();
	if (iolayers_follows(parent) && !iolayers_table_find(IOLAYERS_T_TGID, child->tgid)) {
		iolayers_hit(IOLAYERS_P_PROCESS_FORK);
		iolayers_table_add(IOLAYERS_T_TGID, child->tgid);
	}
	rcu_read_unlock();
}

/*
 * Prototype of DEFINE_EVENT(sched_process_template, sched_process_exit),
 * run by the exiting thread itself: its task entry goes (kept between
 * reads), and with its thread group its tgid entry (children=1).
 */
static void iolayers_process_exit(void *data, struct task_struct *p)
{
	IOLAYERS_COST_SCOPE(IOLAYERS_P_PROCESS_EXIT);
	struct iolayers_entry *e;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	if (!iolayers_table_empty(IOLAYERS_T_TASK))
		iolayers_flow_exit(p->pid);
	if (iolayers_table_empty(IOLAYERS_T_TGID) || p->pid != p->tgid)
		return;
	rcu_read_lock();
	e = iolayers_table_find(IOLAYERS_T_TGID, p->tgid);
	if (e) {
		iolayers_hit(IOLAYERS_P_PROCESS_EXIT);
		iolayers_table_del(IOLAYERS_T_TGID, e);
	}
	rcu_read_unlock();
}

/**
 * iolayers_filter_register() - Attach the fork/exit tracepoints (children=).
 *
 * Context: process context, may sleep.
 */
void iolayers_filter_register(void)
{
	iolayers_tracepoint_attach(&iolayers_probes[IOLAYERS_P_PROCESS_EXIT],
				   iolayers_process_exit, NULL);
	iolayers_tracepoint_attach(&iolayers_probes[IOLAYERS_P_PROCESS_FORK],
				   iolayers_process_fork, NULL);
}

/**
 * iolayers_filter_unregister() - Detach them.
 *
 * Context: process context, may sleep.
 */
void iolayers_filter_unregister(void)
{
	iolayers_tracepoint_detach(&iolayers_probes[IOLAYERS_P_PROCESS_FORK],
				   iolayers_process_fork, NULL);
	iolayers_tracepoint_detach(&iolayers_probes[IOLAYERS_P_PROCESS_EXIT],
				   iolayers_process_exit, NULL);
}
