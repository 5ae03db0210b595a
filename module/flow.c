// SPDX-License-Identifier: GPL-2.0
/*
 * Flows: the task table's entries (a read() in flight) and the per-CPU
 * rings of completed flows shown in `flows` and `slow`.
 */

#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <iolayers/iolayers.h>
#include <iolayers/flow.h>
#include <iolayers/table.h>

/* Flow ids: a per-CPU counter with the CPU number in the low bits. */
#define IOLAYERS_SEQ_CPU_BITS	12

static DEFINE_PER_CPU(u64, iolayers_seq);

/**
 * iolayers_flow_find() - Find the syscall in flight of a task.
 * @tid: the thread id
 *
 * Context: under rcu_read_lock(); the entry stays valid until it is
 * unlocked, and for the task itself until its sys_exit.
 * Return: the entry, or NULL.
 */
struct iolayers_task_flow *iolayers_flow_find(pid_t tid)
{
	return iolayers_table_find(IOLAYERS_T_TASK, tid);
}

/**
 * iolayers_flow_get() - Find a flow named from an async context.
 * @ref: its task and id
 *
 * Context: any, under rcu_read_lock().
 * Return: the flow if that read() is still in flight, else NULL.
 */
struct iolayers_task_flow *iolayers_flow_get(const struct iolayers_flow_ref *ref)
{
	struct iolayers_task_flow *f = iolayers_flow_find(ref->tid);

	return f && f->seq == ref->seq ? f : NULL;
}

/**
 * iolayers_flow_start() - Create the entry for a syscall of the current task.
 * @tid: the current task's thread id
 *
 * An entry the task left behind (its exit was not seen) is dropped and
 * counted as stale. A full table or a failed allocation is counted and
 * returns NULL.
 *
 * Context: the task itself, under rcu_read_lock().
 * Return: a zeroed entry (but for its id and @tid), or NULL.
 */
struct iolayers_task_flow *iolayers_flow_start(pid_t tid)
{
	struct iolayers_task_flow *f = iolayers_flow_find(tid);
	int cpu;

	if (f) {
		iolayers_table_drop(IOLAYERS_T_TASK, IOLAYERS_DROP_STALE);
		iolayers_table_del(IOLAYERS_T_TASK, f);
	}
	f = iolayers_table_add(IOLAYERS_T_TASK, tid);
	if (!f)
		return NULL;
	cpu = get_cpu();
	f->seq = (this_cpu_inc_return(iolayers_seq) << IOLAYERS_SEQ_CPU_BITS) | cpu;
	put_cpu();
	f->tid = tid;
	spin_lock_init(&f->lock);
	return f;
}

/**
 * iolayers_flow_end() - Remove a flow and free it after a grace period.
 * @f: the flow, found under the caller's rcu_read_lock()
 *
 * Context: the flow's task (sys_exit), or a new flow replacing it.
 */
void iolayers_flow_end(struct iolayers_task_flow *f)
{
	iolayers_table_del(IOLAYERS_T_TASK, f);
}

/* Completed flows: one ring per CPU and kind, written at sys_exit. */
struct iolayers_ring {
	spinlock_t lock;	/* the writer on this CPU against readers */
	unsigned int head;	/* next slot */
	unsigned int used;
	struct iolayers_flow_rec *recs;
};

/* Per CPU records kept (flows=); 0 keeps none (histograms only). */
unsigned int iolayers_flows_kept = 256;
/* Reads at least this slow (syscall latency) also go to `slow`. */
u64 iolayers_slow_ns = 10 * NSEC_PER_MSEC;

static struct iolayers_ring __percpu *iolayers_rings[2];

static void iolayers_ring_put(struct iolayers_ring *r, const struct iolayers_flow_rec *rec)
{
	spin_lock(&r->lock);
	r->recs[r->head] = *rec;
	r->head = (r->head + 1) % iolayers_flows_kept;
	if (r->used < iolayers_flows_kept)
		r->used++;
	spin_unlock(&r->lock);
}

/**
 * iolayers_flow_store() - Keep the record of a completed flow.
 * @r: the record
 *
 * Context: task context (sys_exit); disables preemption briefly.
 */
void iolayers_flow_store(const struct iolayers_flow_rec *r)
{
	if (!iolayers_flows_kept)
		return;
	iolayers_ring_put(get_cpu_ptr(iolayers_rings[0]), r);
	put_cpu_ptr(iolayers_rings[0]);
	if (r->sys_ns >= READ_ONCE(iolayers_slow_ns)) {
		iolayers_ring_put(get_cpu_ptr(iolayers_rings[1]), r);
		put_cpu_ptr(iolayers_rings[1]);
	}
}

static int iolayers_rec_cmp(const void *a, const void *b)
{
	const struct iolayers_flow_rec *x = a, *y = b;

	if (x->end_ns != y->end_ns)
		return x->end_ns < y->end_ns ? -1 : 1;
	return 0;
}

/**
 * iolayers_rings_snapshot() - Copy the newest completed flows.
 * @slow: the slow ring instead of the all-flows one
 * @n: set to the number of records returned
 *
 * Context: process context, may sleep.
 * Return: at most flows= records, oldest first, to be kvfree()d; NULL
 * when there are none or on allocation failure (@n is 0 then).
 */
struct iolayers_flow_rec *iolayers_rings_snapshot(bool slow, unsigned int *n)
{
	unsigned int total = 0, kept = iolayers_flows_kept, skip;
	struct iolayers_flow_rec *all;
	int cpu;

	*n = 0;
	if (!kept)
		return NULL;
	all = kvmalloc_array(num_possible_cpus() * kept, sizeof(*all), GFP_KERNEL);
	if (!all)
		return NULL;
	for_each_possible_cpu(cpu) {
		struct iolayers_ring *r = per_cpu_ptr(iolayers_rings[slow], cpu);
		unsigned int i;

		spin_lock_irq(&r->lock);
		for (i = 0; i < r->used; i++)
			all[total++] = r->recs[i];
		spin_unlock_irq(&r->lock);
	}
	sort(all, total, sizeof(*all), iolayers_rec_cmp, NULL);
	skip = total > kept ? total - kept : 0;
	memmove(all, all + skip, (total - skip) * sizeof(*all));
	*n = total - skip;
	return all;
}

/**
 * iolayers_rings_reset() - Forget every kept record.
 *
 * Context: process context.
 */
void iolayers_rings_reset(void)
{
	int k, cpu;

	for (k = 0; k < 2; k++)
		for_each_possible_cpu(cpu) {
			struct iolayers_ring *r = per_cpu_ptr(iolayers_rings[k], cpu);

			spin_lock_irq(&r->lock);
			r->head = 0;
			r->used = 0;
			spin_unlock_irq(&r->lock);
		}
}

/**
 * iolayers_rings_exit() - Free the rings.
 *
 * Context: process context (unload), no probe attached.
 */
void iolayers_rings_exit(void)
{
	int k, cpu;

	for (k = 0; k < 2; k++) {
		if (!iolayers_rings[k])
			continue;
		for_each_possible_cpu(cpu)
			kvfree(per_cpu_ptr(iolayers_rings[k], cpu)->recs);
		free_percpu(iolayers_rings[k]);
		iolayers_rings[k] = NULL;
	}
}

/**
 * iolayers_rings_init() - Allocate the rings of completed flows.
 *
 * Context: process context (load), may sleep.
 * Return: 0, or -ENOMEM.
 */
int iolayers_rings_init(void)
{
	int k, cpu;

	for (k = 0; k < 2; k++) {
		iolayers_rings[k] = alloc_percpu(struct iolayers_ring);
		if (!iolayers_rings[k])
			goto fail;
		for_each_possible_cpu(cpu) {
			struct iolayers_ring *r = per_cpu_ptr(iolayers_rings[k], cpu);

			spin_lock_init(&r->lock);
			if (!iolayers_flows_kept)
				continue;
			r->recs = kvcalloc(iolayers_flows_kept, sizeof(*r->recs), GFP_KERNEL);
			if (!r->recs)
				goto fail;
		}
	}
	return 0;
fail:
	iolayers_rings_exit();
	return -ENOMEM;
}
