// SPDX-License-Identifier: GPL-2.0
/*
 * Page cache state of a read: pages the reader adds to the page cache
 * (mm_filemap_add_to_page_cache) and I/O waits (sched_switch) from its FS
 * call's entry to the syscall's exit (fs.c).
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <iolayers/percpu.h>
#include <iolayers/cache.h>
#include <iolayers/flow.h>
#include <iolayers/layers.h>
#include <iolayers/probe.h>
#include <trace/events/filemap.h>
#include <trace/events/sched.h>

IOLAYERS_PROBE_COUNTERS(iolayers_pc_add_to_page_cache);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_sched_switch);

static DEFINE_PER_CPU(u64, iolayers_ra_pages);

/* Prototype of DEFINE_EVENT(mm_filemap_op_page_cache, mm_filemap_add_to_page_cache). */
static void iolayers_add_to_page_cache(void *data, struct iolayers_pcmem *folio)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_add_to_page_cache);
	struct iolayers_task_flow *f;
	u64 first, last, in;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	if (iolayers_table_empty(IOLAYERS_T_TASK))
		return;
	iolayers_handler_rcu_lock();
	f = iolayers_flow_here(current->pid);
	if (f)
		iolayers_hit(&iolayers_pc_add_to_page_cache);
	if (f && f->rd.fs.reached && !f->rd.fs.direct && folio->mapping == f->rd.fs.mapping) {
		first = max_t(u64, folio->index, f->rd.fs.first_index);
		last = min_t(u64, folio->index + iolayers_pcmem_pages(folio) - 1,
			     f->rd.fs.last_index);
		in = last >= first ? last - first + 1 : 0;
		f->rd.cache.added_pages += in;
		f->rd.cache.ra_pages += iolayers_pcmem_pages(folio) - in;
		this_cpu_add(iolayers_ra_pages, iolayers_pcmem_pages(folio) - in);
	}
	iolayers_handler_rcu_unlock();
}

/* Prototype of TRACE_EVENT(sched_switch) since 5.18 (prev_state added). */
static void iolayers_sched_switch(void *data, IOLAYERS_TP_SWITCH_ARGS)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_sched_switch);
	struct iolayers_task_flow *f;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	if (!prev->in_iowait || iolayers_table_empty(IOLAYERS_T_TASK))
		return;
	iolayers_handler_rcu_lock();
	f = iolayers_flow_here(prev->pid);
	if (f && f->rd.fs.reached) {
		iolayers_hit(&iolayers_pc_sched_switch);
		f->rd.cache.iowait = true;
	}
	iolayers_handler_rcu_unlock();
}

/**
 * iolayers_cache_state() - The cache state of a read that has returned.
 * @f: its flow, ended
 * @ret: what the read returned
 *
 * The range is the pages of the bytes the FS call returned; the pages the
 * reader added to it, and whether it waited for I/O, come from this
 * file's probes; iolayers_cache_decide() says what they mean. A read
 * that lost an FS entry to the recursion guard is undecidable. A
 * read of a regular file on a block file system that failed with -EIO is
 * ERROR even when it failed before its FS call.
 *
 * Context: the task itself, in an RCU read-side critical section.
 * Return: the state.
 */
enum iolayers_cache iolayers_cache_state(const struct iolayers_task_flow *f, long ret)
{
	u64 range = 0;

	bool whole = !(f->rd.missed & IOLAYERS_MISSED_FS);

	/*
	 * A block file system's file whose read failed with -EIO before the
	 * FS calls the layer follows (the file system shut down, as when its
	 * disk went away: ext4 refuses at once): a file read that failed.
	 * vfs_read()'s own refusals (-EBADF, -EINVAL, -EFAULT, an LSM's)
	 * say nothing of the file system, and stay other.
	 */
	if (!f->rd.fs.reached && ret == -EIO && f->rd.file.block_fs)
		return IOLAYERS_C_ERROR;
	if (!f->rd.fs.reached)	/* the FS layer's presence tells OTHER from UNK */
		return iolayers_cache_decide(false,
					     whole && iolayers_layer_attached(&iolayers_fs_layer),
					     false, false, 0, 0, false, false);
	if (ret > 0)
		range = ((f->rd.fs.pos + ret - 1) >> PAGE_SHIFT) - f->rd.fs.first_index + 1;
	return iolayers_cache_decide(true, whole, ret < 0, f->rd.fs.direct, range,
				     f->rd.cache.added_pages, f->rd.cache.iowait, f->rd.foreign);
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
 * iolayers_cache_reset() - Zero the readahead page count (`reset`).
 *
 * Context: process context; counts racing with it may survive.
 */
void iolayers_cache_reset(void)
{
	IOLAYERS_PERCPU_ZERO(iolayers_ra_pages);
}

/* The handlers' prototypes against the kernel's (never called). */
static void __maybe_unused iolayers_cache_check_types(void)
{
	IOLAYERS_TP_CHECK(mm_filemap_add_to_page_cache, iolayers_add_to_page_cache);
	IOLAYERS_TP_CHECK(sched_switch, iolayers_sched_switch);
}

static struct iolayers_probe iolayers_cache_probes[] = {
	IOLAYERS_TRACEPOINT("mm_filemap_add_to_page_cache", iolayers_add_to_page_cache,
			    iolayers_pc_add_to_page_cache),
	IOLAYERS_TRACEPOINT("sched_switch", iolayers_sched_switch, iolayers_pc_sched_switch),
};

/* What tells a read's cache state: pages it added, I/O it waited for. */
struct iolayers_layer_probes iolayers_cache_layer = {
	.name = "CACHE",
	.probes = iolayers_cache_probes,
	.nr_probes = ARRAY_SIZE(iolayers_cache_probes),
};
