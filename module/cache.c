// SPDX-License-Identifier: GPL-2.0
/*
 * Page cache state of a read: pages the reader adds to the page cache
 * (mm_filemap_add_to_page_cache) and I/O waits (sched_switch) from its FS
 * call's entry to the syscall's exit (fs.c).
 */

#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <iolayers/iolayers.h>
#include <iolayers/flow.h>

static DEFINE_PER_CPU(u64, iolayers_ra_pages);

/* Prototype of DEFINE_EVENT(mm_filemap_op_page_cache, mm_filemap_add_to_page_cache). */
static void iolayers_add_to_page_cache(void *data, struct folio *folio)
{
	IOLAYERS_COST_SCOPE(IOLAYERS_P_ADD_TO_PAGE_CACHE);
	struct iolayers_task_flow *f;
	u64 first, last, in;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	if (iolayers_table_empty(IOLAYERS_T_TASK))
		return;
	rcu_read_lock();
	f = iolayers_flow_find(current->pid);
	if (f)
		iolayers_hit(IOLAYERS_P_ADD_TO_PAGE_CACHE);
	if (f && f->fs_reached && !f->direct && folio->mapping == f->mapping) {
		first = max_t(u64, folio->index, f->first_index);
		last = min_t(u64, folio->index + folio_nr_pages(folio) - 1, f->last_index);
		in = last >= first ? last - first + 1 : 0;
		f->added_pages += in;
		f->ra_pages += folio_nr_pages(folio) - in;
		this_cpu_add(iolayers_ra_pages, folio_nr_pages(folio) - in);
	}
	rcu_read_unlock();
}

/* Prototype of TRACE_EVENT(sched_switch) since 5.18 (prev_state added). */
static void iolayers_sched_switch(void *data, bool preempt, struct task_struct *prev,
				  struct task_struct *next, unsigned int prev_state)
{
	IOLAYERS_COST_SCOPE(IOLAYERS_P_SCHED_SWITCH);
	struct iolayers_task_flow *f;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	if (!prev->in_iowait || iolayers_table_empty(IOLAYERS_T_TASK))
		return;
	rcu_read_lock();
	f = iolayers_flow_find(prev->pid);
	if (f && f->fs_reached) {
		iolayers_hit(IOLAYERS_P_SCHED_SWITCH);
		f->iowait = true;
	}
	rcu_read_unlock();
}

/**
 * iolayers_ra_pages_sum() - Pages added outside the requested ranges.
 *
 * Return: readahead pages added by followed reads, over all CPUs.
 */
u64 iolayers_ra_pages_sum(void)
{
	return IOLAYERS_PERCPU_SUM(iolayers_ra_pages);
}

/**
 * iolayers_cache_register() - Attach the cache-state tracepoints.
 *
 * Context: process context, may sleep.
 */
void iolayers_cache_register(void)
{
	iolayers_tracepoint_attach(&iolayers_probes[IOLAYERS_P_ADD_TO_PAGE_CACHE],
				   iolayers_add_to_page_cache, NULL);
	iolayers_tracepoint_attach(&iolayers_probes[IOLAYERS_P_SCHED_SWITCH],
				   iolayers_sched_switch, NULL);
}

/**
 * iolayers_cache_unregister() - Detach the cache-state tracepoints.
 *
 * Context: process context, may sleep.
 */
void iolayers_cache_unregister(void)
{
	iolayers_tracepoint_detach(&iolayers_probes[IOLAYERS_P_SCHED_SWITCH],
				   iolayers_sched_switch, NULL);
	iolayers_tracepoint_detach(&iolayers_probes[IOLAYERS_P_ADD_TO_PAGE_CACHE],
				   iolayers_add_to_page_cache, NULL);
}
