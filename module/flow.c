// SPDX-License-Identifier: GPL-2.0
/* The task table: read() syscalls in flight, keyed by thread id. */

#include <linux/hashtable.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/atomic.h>
#include <linux/percpu.h>
#include <iolayers/iolayers.h>
#include <iolayers/flow.h>

#define IOLAYERS_TASK_BITS	10
#define IOLAYERS_TASK_LOCKS	64

static DEFINE_HASHTABLE(iolayers_tasks, IOLAYERS_TASK_BITS);
/* Writers take the lock of their bucket group; readers use RCU. */
static spinlock_t iolayers_task_locks[IOLAYERS_TASK_LOCKS] = {
	[0 ... IOLAYERS_TASK_LOCKS - 1] = __SPIN_LOCK_UNLOCKED(iolayers_task_locks),
};

static atomic_t iolayers_tasks_nr = ATOMIC_INIT(0);
static atomic_t iolayers_tasks_high = ATOMIC_INIT(0);
static DEFINE_PER_CPU(u64 [IOLAYERS_NR_DROPS], iolayers_drops);

static const char * const iolayers_drop_names[IOLAYERS_NR_DROPS] = {
	[IOLAYERS_DROP_TABLE_FULL] = "table_full",
	[IOLAYERS_DROP_NOMEM] = "nomem",
	[IOLAYERS_DROP_STALE] = "stale",
};

static spinlock_t *iolayers_task_lock(pid_t tid)
{
	return &iolayers_task_locks[hash_min(tid, IOLAYERS_TASK_BITS) % IOLAYERS_TASK_LOCKS];
}

/**
 * iolayers_flow_find() - Find the syscall in flight of a task.
 * @tid: the thread id
 *
 * Context: under rcu_read_lock(); the entry stays valid until it is
 * unlocked.
 * Return: the entry, or NULL.
 */
struct iolayers_task_flow *iolayers_flow_find(pid_t tid)
{
	struct iolayers_task_flow *f;

	hash_for_each_possible_rcu(iolayers_tasks, f, node, tid)
		if (f->tid == tid)
			return f;
	return NULL;
}

/**
 * iolayers_flow_start() - Create the entry for a syscall of the current task.
 * @tid: the current task's thread id
 *
 * An entry the task left behind (its exit was not seen) is dropped and
 * counted as stale. Allocates with GFP_ATOMIC; a full table or a failed
 * allocation is counted and returns NULL.
 *
 * Context: any task context, under rcu_read_lock().
 * Return: a zeroed entry (but for @tid), or NULL.
 */
struct iolayers_task_flow *iolayers_flow_start(pid_t tid)
{
	struct iolayers_task_flow *f = iolayers_flow_find(tid);
	spinlock_t *lock;	/* the bucket group's, see iolayers_task_locks */
	unsigned long flags;
	int n, high;

	if (f) {
		this_cpu_inc(iolayers_drops[IOLAYERS_DROP_STALE]);
		iolayers_flow_end(f);
	}
	n = atomic_inc_return(&iolayers_tasks_nr);
	if (n > READ_ONCE(iolayers_max_flows)) {
		atomic_dec(&iolayers_tasks_nr);
		this_cpu_inc(iolayers_drops[IOLAYERS_DROP_TABLE_FULL]);
		return NULL;
	}
	f = kzalloc(sizeof(*f), GFP_ATOMIC | __GFP_NOWARN);
	if (!f) {
		atomic_dec(&iolayers_tasks_nr);
		this_cpu_inc(iolayers_drops[IOLAYERS_DROP_NOMEM]);
		return NULL;
	}
	high = atomic_read(&iolayers_tasks_high);
	while (n > high && !atomic_try_cmpxchg(&iolayers_tasks_high, &high, n))
		;
	f->tid = tid;
	lock = iolayers_task_lock(tid);
	spin_lock_irqsave(lock, flags);
	hash_add_rcu(iolayers_tasks, &f->node, tid);
	spin_unlock_irqrestore(lock, flags);
	return f;
}

/**
 * iolayers_flow_end() - Remove an entry and free it after a grace period.
 * @f: the entry, found under the caller's rcu_read_lock()
 *
 * Context: any.
 */
void iolayers_flow_end(struct iolayers_task_flow *f)
{
	spinlock_t *lock = iolayers_task_lock(f->tid);	/* the bucket group's */
	unsigned long flags;

	spin_lock_irqsave(lock, flags);
	hash_del_rcu(&f->node);
	spin_unlock_irqrestore(lock, flags);
	atomic_dec(&iolayers_tasks_nr);
	kfree_rcu(f, rcu);
}

/**
 * iolayers_flow_free_all() - Free every entry (unload).
 *
 * Context: process context, after every probe is unregistered and
 * tracepoint_synchronize_unregister() returned.
 */
void iolayers_flow_free_all(void)
{
	struct iolayers_task_flow *f;
	struct hlist_node *tmp;
	int bkt;

	hash_for_each_safe(iolayers_tasks, bkt, tmp, f, node) {
		hash_del(&f->node);
		atomic_dec(&iolayers_tasks_nr);
		kfree(f);
	}
}

/**
 * iolayers_flow_occupancy() - Entries in the task table now.
 * @high_water: if not NULL, set to the most entries seen at once
 *
 * Return: the number of entries.
 */
int iolayers_flow_occupancy(int *high_water)
{
	if (high_water)
		*high_water = atomic_read(&iolayers_tasks_high);
	return atomic_read(&iolayers_tasks_nr);
}

/**
 * iolayers_drops_sum() - Drops of one cause, summed over CPUs.
 * @cause: the cause
 *
 * Return: the count.
 */
u64 iolayers_drops_sum(enum iolayers_drop cause)
{
	return IOLAYERS_PERCPU_SUM(iolayers_drops, [cause]);
}

/**
 * iolayers_drop_name() - Name of a drop cause, as shown in `stats`.
 * @cause: the cause
 *
 * Return: a static string.
 */
const char *iolayers_drop_name(enum iolayers_drop cause)
{
	return iolayers_drop_names[cause];
}
