// SPDX-License-Identifier: GPL-2.0
/*
 * Which tasks are followed: a process (pid=, all its threads), every
 * process with a name (comm=), every task of a cgroup v2 and of the
 * cgroups under it (cgroup=), and with children=1 the processes a
 * followed one forks after load. Each can change at runtime (the module's
 * parameters); a read() already in flight keeps its flow until its own
 * sys_exit.
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/atomic.h>
#include <linux/cgroup.h>
#include <linux/export.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/ctype.h>
#include <linux/kstrtox.h>
#include <iolayers/compat.h>
#include <iolayers/filter.h>
#include <iolayers/flow.h>
#include <iolayers/table.h>
#include <iolayers/layers.h>
#include <iolayers/probe.h>
#include <trace/events/sched.h>

IOLAYERS_PROBE_COUNTERS(iolayers_pc_process_fork);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_process_exit);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_process_exec);

/* Writers of the filters, one at a time (a comm is written in two words). */
static DEFINE_MUTEX(iolayers_filter_mutex);

/* The pid= process (iolayers_follows(), inline). */
pid_t iolayers_target_tgid;
/* Times the process pid= named exited, and the setting was cleared. */
static atomic64_t iolayers_target_exits = ATOMIC64_INIT(0);
/*
 * The comm filter as two words, compared without a lock; all 0 when off.
 * The mask keeps the name's bytes and its NUL: what follows the NUL in a
 * task's comm is whatever a longer earlier name left there on kernels
 * whose __set_task_comm() does not pad (5.10's strlcpy()).
 */
static u64 iolayers_comm[TASK_COMM_LEN / sizeof(u64)];
static u64 iolayers_comm_mask[TASK_COMM_LEN / sizeof(u64)];
static bool iolayers_children;
#ifdef CONFIG_CGROUPS
/*
 * The cgroup= cgroup (v2, the default hierarchy), held by a reference;
 * NULL when off. Replaced under the filter mutex, put a grace period
 * after. The probes do not dereference it: they compare its key (itself,
 * or before 6.0 its id: compat.h) with the task's cgroup's ancestor at
 * its depth, which the setting keeps beside it (-1: off).
 */
static struct cgroup __rcu *iolayers_cgroup;
static int iolayers_cgroup_level = -1;
static IOLAYERS_CGROUP_KEY_TYPE iolayers_cgroup_key;

/*
 * Is @task in the cgroup= cgroup or under it? Its cgroup on the default
 * hierarchy keeps its ancestors by depth: one comparison at the target's
 * depth, not a walk. The setting writes the key, then the depth with
 * release: a depth read with acquire comes with its own key or a newer
 * one; an older depth with a newer key matches nothing unless both
 * settings' cgroups are at one depth, and then it is the newer setting
 * that matches (no cgroup is at a depth other than its own). The key of
 * an older setting is never one freed under the read: its reference is
 * put a grace period after it was replaced. The caller is inside RCU
 * (preemption off, or rcu_read_lock()), which the task's css_set needs.
 */
static bool iolayers_cgroup_match(struct task_struct *task)
{
	/* Pairs with iolayers_cgroup_publish()'s release: the depth, then its key. */
	int lvl = smp_load_acquire(&iolayers_cgroup_level);
	struct cgroup *cg;

	if (lvl < 0)
		return false;
	cg = task_dfl_cgroup(task);
	return cg->level >= lvl &&
	       IOLAYERS_CGROUP_ANCESTOR(cg, lvl) == READ_ONCE(iolayers_cgroup_key);
}

static bool iolayers_cgroup_on(void)
{
	return READ_ONCE(iolayers_cgroup_level) >= 0;
}
#else
static bool iolayers_cgroup_match(struct task_struct *task)
{
	return false;
}

static bool iolayers_cgroup_on(void)
{
	return false;
}
#endif

static bool iolayers_comm_match(struct task_struct *task)
{
	u64 c[TASK_COMM_LEN / sizeof(u64)];
	u64 want0 = READ_ONCE(iolayers_comm[0]);

	if (!want0)
		return false;
	memcpy(c, task->comm, sizeof(c));
	return (c[0] & READ_ONCE(iolayers_comm_mask[0])) == want0 &&
	       (c[1] & READ_ONCE(iolayers_comm_mask[1])) == READ_ONCE(iolayers_comm[1]);
}

/**
 * iolayers_parse_pid() - Parse a process id given by the user.
 * @val: the text, as written to the module parameter or debugfs
 * @out: where the parsed id is stored on success
 *
 * Accepts a decimal number in 1..PID_MAX_LIMIT, with an optional trailing
 * newline. Does not check that the process exists.
 *
 * Context: any.
 * Return: 0 on success, -EINVAL when @val is not such a number.
 */
VISIBLE_IF_KUNIT int iolayers_parse_pid(const char *val, pid_t *out)
{
	int v;

	if (!val || kstrtoint(val, 10, &v) || v <= 0 || v > PID_MAX_LIMIT)
		return -EINVAL;
	*out = v;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_parse_pid);

/**
 * iolayers_parse_comm() - Parse a task name given by the user.
 * @val: the text; one trailing newline is ignored
 * @out: TASK_COMM_LEN bytes, set to the name NUL-padded on success
 *
 * An empty name is valid: it turns the comm filter off.
 *
 * Context: any.
 * Return: 0 on success, -EINVAL when the name is longer than the kernel
 * keeps (TASK_COMM_LEN - 1) or has a control character.
 */
VISIBLE_IF_KUNIT int iolayers_parse_comm(const char *val, char *out)
{
	size_t len, i;

	if (!val)
		return -EINVAL;
	len = strlen(val);
	if (len && val[len - 1] == '\n')
		len--;
	if (len >= TASK_COMM_LEN)
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (iscntrl(val[i]))
			return -EINVAL;
	memset(out, 0, TASK_COMM_LEN);
	memcpy(out, val, len);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_parse_comm);

/**
 * iolayers_follows_other() - Is a task that is not of the pid= process
 *	followed?
 * @task: the task
 *
 * Context: as iolayers_follows().
 * Return: true when its process has the comm= name, it is in the cgroup=
 * cgroup or under it, or its process was forked by a followed one while
 * children=1.
 */
bool iolayers_follows_other(struct task_struct *task)
{
	if (iolayers_comm_match(task) || iolayers_cgroup_match(task))
		return true;
	return !iolayers_table_empty(IOLAYERS_T_TGID) &&
	       iolayers_table_find(IOLAYERS_T_TGID, task->tgid);
}

/**
 * iolayers_filter_any() - Is any filter set (pid, comm or cgroup)?
 *
 * Return: true when something can be followed.
 */
bool iolayers_filter_any(void)
{
	return READ_ONCE(iolayers_target_tgid) || READ_ONCE(iolayers_comm[0]) ||
	       iolayers_cgroup_on();
}

/*
 * A filter changed: the idle entries of threads are forgotten, as they
 * would otherwise stay, followed or not, until their threads exit
 * (threads still followed get an entry again at their next read()); with
 * @forget_children (pid= moved, or children=0) so are the children
 * followed so far.
 */
static void iolayers_filter_changed(bool forget_children)
{
	lockdep_assert_held(&iolayers_filter_mutex);
	if (forget_children)
		iolayers_table_expire(IOLAYERS_T_TGID, 0);
	iolayers_flows_forget_idle();
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
	struct task_struct *task;
	pid_t pid, tgid = 0;
	bool leader = false, live = false;
	struct pid *p;

	if (iolayers_parse_pid(val, &pid)) {
		pr_err_ratelimited("invalid pid '%s': want a process id in 1..%d\n",
				   val, (int)PID_MAX_LIMIT);
		return -EINVAL;
	}
	p = find_get_pid(pid);
	rcu_read_lock();
	task = p ? pid_task(p, PIDTYPE_PID) : NULL;
	if (task) {
		leader = pid_task(p, PIDTYPE_TGID) == task;
		live = atomic_read(&task->signal->live);
		tgid = leader ? task->tgid : task_tgid_vnr(task);
	}
	rcu_read_unlock();
	put_pid(p);
	if (!task) {
		pr_err_ratelimited("invalid pid '%d': no such process\n", pid);
		return -EINVAL;
	}
	if (!leader) {
		pr_err_ratelimited("invalid pid '%d': a thread of process %d; pid= takes a process id\n",
				   pid, tgid);
		return -EINVAL;
	}
	if (!live) {
		pr_err_ratelimited("invalid pid '%d': the process has exited\n", pid);
		return -EINVAL;
	}
	mutex_lock(&iolayers_filter_mutex);
	WRITE_ONCE(iolayers_target_tgid, tgid);
	iolayers_filter_changed(true);
	mutex_unlock(&iolayers_filter_mutex);
	/* It may have exited since it was looked up. */
	iolayers_filter_recheck_target();
	return 0;
}

/* Whether process @tgid has a live thread (its group not dead). */
static bool iolayers_tgid_live(pid_t tgid)
{
	struct task_struct *task;
	struct pid *p = find_get_pid(tgid);
	bool live = false;

	rcu_read_lock();
	task = p ? pid_task(p, PIDTYPE_TGID) : NULL;
	if (task)
		live = atomic_read(&task->signal->live);
	rcu_read_unlock();
	put_pid(p);
	return live;
}

/**
 * iolayers_filter_recheck_target() - Clear pid= if its process has exited.
 *
 * For a pid= set while its process was exiting: the exit's handler
 * (sched_process_exit, the group's live count already 0) saw the old
 * setting, or was not attached yet (at load). The full barrier orders
 * the setting's store before the look at the count, as the exit's
 * atomic_dec_and_test() orders the count before its handler's look at
 * the setting: one of the two sees the other, and the cmpxchg clears it
 * once.
 *
 * Context: process context.
 */
void iolayers_filter_recheck_target(void)
{
	pid_t tgid;

	smp_mb();	/* the setting's store before the look at the live count */
	tgid = READ_ONCE(iolayers_target_tgid);
	if (tgid && !iolayers_tgid_live(tgid) &&
	    cmpxchg(&iolayers_target_tgid, tgid, 0) == tgid)
		atomic64_inc(&iolayers_target_exits);
}

/**
 * iolayers_filter_target_exits() - How often the process pid= named
 *	exited, which cleared the setting.
 *
 * Return: the count since the module was loaded.
 */
u64 iolayers_filter_target_exits(void)
{
	return atomic64_read(&iolayers_target_exits);
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
	u64 m[TASK_COMM_LEN / sizeof(u64)] = { 0 };

	if (iolayers_parse_comm(val, (char *)c)) {
		pr_err_ratelimited("invalid comm '%s': want a task name of at most %d bytes\n",
				   val, TASK_COMM_LEN - 1);
		return -EINVAL;
	}
	/* The name and its NUL. */
	memset(m, 0xff, strnlen((char *)c, TASK_COMM_LEN - 1) + 1);
	mutex_lock(&iolayers_filter_mutex);
	/* Off first, so a half-written name never matches. */
	WRITE_ONCE(iolayers_comm[0], 0);
	WRITE_ONCE(iolayers_comm_mask[0], m[0]);
	WRITE_ONCE(iolayers_comm_mask[1], m[1]);
	WRITE_ONCE(iolayers_comm[1], c[1]);
	WRITE_ONCE(iolayers_comm[0], c[0]);
	iolayers_filter_changed(false);
	mutex_unlock(&iolayers_filter_mutex);
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
		pr_err_ratelimited("invalid children '%s': want 0 or 1\n", val ? val : "");
		return -EINVAL;
	}
	mutex_lock(&iolayers_filter_mutex);
	WRITE_ONCE(iolayers_children, on);
	if (!on)
		iolayers_filter_changed(true);
	mutex_unlock(&iolayers_filter_mutex);
	return 0;
}

#ifdef CONFIG_CGROUPS
/* What the probes compare, for @cg (NULL: off). Under the filter mutex. */
static void iolayers_cgroup_publish(struct cgroup *cg)
{
	lockdep_assert_held(&iolayers_filter_mutex);
	if (!cg) {
		WRITE_ONCE(iolayers_cgroup_level, -1);
		return;
	}
	WRITE_ONCE(iolayers_cgroup_key, IOLAYERS_CGROUP_KEY(cg));
	/* The key before the depth (iolayers_cgroup_match()). */
	smp_store_release(&iolayers_cgroup_level, cg->level);
}

/*
 * Has @cg been removed (rmdir)? Its own state's reference count is
 * killed then, on every kernel; css_is_dying() looks at a flag that 6.12
 * on sets only for the controllers' states. The root is never removed.
 */
static bool iolayers_cgroup_removed(struct cgroup *cg)
{
	return !(cg->self.flags & CSS_NO_REF) && percpu_ref_is_dying(&cg->self.refcnt);
}

/*
 * The cgroup whose id is @id, on the default hierarchy under what
 * cgroup_get_from_path("/") names (the caller's cgroup namespace's root
 * from 6.1, the hierarchy's root on 5.10), with a reference; NULL when
 * there is none. A walk, at the setting's write only (the kernel's
 * cgroup_get_from_id() is not exported before 6.1), in one RCU read
 * section: long only on a host of hundreds of thousands of cgroups.
 */
static struct cgroup *iolayers_cgroup_by_id(u64 id)
{
	struct cgroup_subsys_state *css;
	struct cgroup *root, *found = NULL;

	root = cgroup_get_from_path("/");
	if (IS_ERR(root))
		return NULL;
	rcu_read_lock();
	css_for_each_descendant_pre(css, &root->self) {
		if (cgroup_id(css->cgroup) != id)
			continue;
		/* A removed one is not there to be named, as by its path. */
		if (!iolayers_cgroup_removed(css->cgroup) && cgroup_tryget(css->cgroup))
			found = css->cgroup;
		break;
	}
	rcu_read_unlock();
	cgroup_put(root);
	return found;
}

/**
 * iolayers_filter_set_cgroup() - Follow every task of a cgroup and of
 *	the cgroups under it.
 * @val: its path under the cgroup2 mount ("/system.slice/x.service"),
 *	its id (the directory's inode number there), or "" for none
 *
 * Tasks are matched at each read by the cgroup they are in then: those
 * there before the setting, forked or moved in after it. A cgroup
 * removed while followed is held until the setting changes (it matches
 * no task any more).
 *
 * Context: process context.
 * Return: 0, or -EINVAL (with a pr_err naming @val) when @val is neither
 * or names no cgroup.
 */
int iolayers_filter_set_cgroup(const char *val)
{
	struct cgroup *cg = NULL, *old;
	u64 id;

	if (!val) {
		pr_err_ratelimited("invalid cgroup '': want a path under the cgroup2 mount or a cgroup id\n");
		return -EINVAL;
	}
	if (val[0] == '/') {
		cg = cgroup_get_from_path(val);
		if (IS_ERR(cg)) {
			pr_err_ratelimited("invalid cgroup '%*pE': no such cgroup under the cgroup2 root (error %ld; a host with cgroup v1 alone has none)\n",
					   (int)strlen(val), val, PTR_ERR(cg));
			return -EINVAL;
		}
	} else if (val[0]) {
		if (kstrtou64(val, 10, &id) || !id) {
			pr_err_ratelimited("invalid cgroup '%*pE': want a path under the cgroup2 mount (/...) or a cgroup id\n",
					   (int)strlen(val), val);
			return -EINVAL;
		}
		cg = iolayers_cgroup_by_id(id);
		if (!cg) {
			pr_err_ratelimited("invalid cgroup '%*pE': no cgroup has that id\n",
					   (int)strlen(val), val);
			return -EINVAL;
		}
	}
	mutex_lock(&iolayers_filter_mutex);
	old = rcu_replace_pointer(iolayers_cgroup, cg, lockdep_is_held(&iolayers_filter_mutex));
	iolayers_cgroup_publish(cg);
	iolayers_filter_changed(false);
	mutex_unlock(&iolayers_filter_mutex);
	if (old) {
		/* No probe looks at it any more. */
		synchronize_rcu();
		cgroup_put(old);
	}
	return 0;
}

/**
 * iolayers_filter_show_cgroup() - The cgroup filter as text (empty when
 *	off): its path in the reader's cgroup namespace.
 * @buf: where to write it, with a newline
 * @size: bytes available at @buf
 *
 * A cgroup removed while followed shows " (removed)" after its path.
 *
 * Context: process context.
 * Return: the length written (as snprintf()).
 */
int iolayers_filter_show_cgroup(char *buf, size_t size)
{
	struct cgroup *cg;
	int n, len;

	mutex_lock(&iolayers_filter_mutex);
	cg = rcu_dereference_protected(iolayers_cgroup, lockdep_is_held(&iolayers_filter_mutex));
	if (!cg) {
		mutex_unlock(&iolayers_filter_mutex);
		return snprintf(buf, size, "\n");
	}
	/* Room for the path and " (removed)\n" after it, or "?" in its place. */
	n = size > 12 ? cgroup_path_ns(cg, buf, size - 11, current->nsproxy->cgroup_ns) : -1;
	if (n < 0 || (size_t)n >= size - 11)
		len = scnprintf(buf, size, "?");
	else
		len = n;
	len += scnprintf(buf + len, size - len, "%s\n",
			 iolayers_cgroup_removed(cg) ? " (removed)" : "");
	mutex_unlock(&iolayers_filter_mutex);
	return len;
}

/**
 * iolayers_filter_exit() - Let go of the cgroup= cgroup.
 *
 * Context: process context, with no probe attached any more (unload, or
 * a load that failed).
 */
void iolayers_filter_exit(void)
{
	struct cgroup *cg;

	mutex_lock(&iolayers_filter_mutex);
	cg = rcu_replace_pointer(iolayers_cgroup, NULL, lockdep_is_held(&iolayers_filter_mutex));
	iolayers_cgroup_publish(NULL);
	mutex_unlock(&iolayers_filter_mutex);
	if (cg) {
		synchronize_rcu();
		cgroup_put(cg);
	}
}
#endif

/**
 * iolayers_filter_show_pid() - The pid filter as text.
 * @buf: where to write it, with a newline
 * @size: bytes available at @buf
 *
 * Return: the length written (as snprintf()).
 */
int iolayers_filter_show_pid(char *buf, size_t size)
{
	return snprintf(buf, size, "%d\n", READ_ONCE(iolayers_target_tgid));
}

/**
 * iolayers_filter_show_comm() - The comm filter as text (empty when off).
 * @buf: where to write it, with a newline
 * @size: bytes available at @buf
 *
 * Return: the length written (as snprintf()).
 */
int iolayers_filter_show_comm(char *buf, size_t size)
{
	u64 c[TASK_COMM_LEN / sizeof(u64) + 1] = { 0 };

	c[0] = READ_ONCE(iolayers_comm[0]);
	c[1] = READ_ONCE(iolayers_comm[1]);
	return snprintf(buf, size, "%.*s\n", TASK_COMM_LEN - 1, (char *)c);
}

/**
 * iolayers_filter_show_children() - The children setting as text (0 or 1).
 * @buf: where to write it, with a newline
 * @size: bytes available at @buf
 *
 * Return: the length written (as snprintf()).
 */
int iolayers_filter_show_children(char *buf, size_t size)
{
	return snprintf(buf, size, "%d\n", READ_ONCE(iolayers_children));
}

/* Prototype of TRACE_EVENT(sched_process_fork). */
static void iolayers_process_fork(void *data, struct task_struct *parent,
				  struct task_struct *child)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_process_fork);

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	if (!READ_ONCE(iolayers_children) || child->tgid == parent->tgid)
		return;		/* a thread: followed through its tgid already */
	rcu_read_lock();
	if (iolayers_follows(parent) && !iolayers_table_find(IOLAYERS_T_TGID, child->tgid)) {
		struct iolayers_tgid *g = iolayers_table_alloc(IOLAYERS_T_TGID);

		iolayers_hit(&iolayers_pc_process_fork);
		if (g)
			iolayers_table_insert(IOLAYERS_T_TGID, g, child->tgid);
	}
	rcu_read_unlock();
}

/*
 * Prototype of DEFINE_EVENT(sched_process_template, sched_process_exit),
 * run by the exiting thread itself: its task entry goes (kept between
 * reads), and with its thread group its tgid entry (children=1).
 */
static void iolayers_process_exit(void *data, IOLAYERS_TP_EXIT_ARGS)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_process_exit);
	struct iolayers_entry *e;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	if (!iolayers_table_empty(IOLAYERS_T_TASK))
		iolayers_flow_exit(p->pid);
	/* The group is dead once its last thread exits, leader or not. */
	if (atomic_read(&p->signal->live))
		return;
	/*
	 * The process pid= named is gone: a process given its number later
	 * is another, and is not followed (perf and bpftrace stop at their
	 * target's exit too). Unless pid= was moved meanwhile.
	 */
	if (p->tgid == READ_ONCE(iolayers_target_tgid) &&
	    cmpxchg(&iolayers_target_tgid, p->tgid, 0) == p->tgid)
		atomic64_inc(&iolayers_target_exits);
	if (iolayers_table_empty(IOLAYERS_T_TGID))
		return;
	rcu_read_lock();
	e = iolayers_table_find(IOLAYERS_T_TGID, p->tgid);
	if (e) {
		iolayers_hit(&iolayers_pc_process_exit);
		iolayers_table_del(IOLAYERS_T_TGID, e);
	}
	rcu_read_unlock();
}

/*
 * Prototype of TRACE_EVENT(sched_process_exec), run by the task that
 * exec'd. A thread that is not the leader takes the leader's id in
 * exec (de_thread()): the entry under its old id would never be removed.
 */
static void iolayers_process_exec(void *data, struct task_struct *p, pid_t old_pid,
				  struct linux_binprm *bprm)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_process_exec);

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	if (old_pid == p->pid || iolayers_table_empty(IOLAYERS_T_TASK))
		return;
	iolayers_hit(&iolayers_pc_process_exec);
	iolayers_flow_exit(old_pid);
}

/* The handlers' prototypes against the kernel's (never called). */
static void __maybe_unused iolayers_filter_check_types(void)
{
	IOLAYERS_TP_CHECK(sched_process_fork, iolayers_process_fork);
	IOLAYERS_TP_CHECK(sched_process_exit, iolayers_process_exit);
	IOLAYERS_TP_CHECK(sched_process_exec, iolayers_process_exec);
}

static struct iolayers_probe iolayers_filter_probes[] = {
	IOLAYERS_TRACEPOINT("sched_process_fork", iolayers_process_fork,
			    iolayers_pc_process_fork),
	IOLAYERS_TRACEPOINT("sched_process_exit", iolayers_process_exit,
			    iolayers_pc_process_exit),
	IOLAYERS_TRACEPOINT("sched_process_exec", iolayers_process_exec,
			    iolayers_pc_process_exec),
};

/* Who is followed: children forked after load, tasks that exit or exec. */
struct iolayers_layer_probes iolayers_filter_layer = {
	.name = "FILTER",
	.probes = iolayers_filter_probes,
	.nr_probes = ARRAY_SIZE(iolayers_filter_probes),
};
