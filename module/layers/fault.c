// SPDX-License-Identifier: GPL-2.0
/*
 * FAULT layer: page faults of followed tasks on a file's mapping, one
 * flow per fault, from handle_mm_fault()'s entry to its last return (a
 * kretprobe): a fault whose handler returned VM_FAULT_RETRY (it dropped
 * the mmap lock to wait for its page's I/O, or the per-VMA lock's try
 * failed) is retried in a new call, the same fault. The flow is the
 * task's, as a read()'s: the pages its readahead adds, its I/O waits and
 * the bios it queues bind to it through the same probes, and its page is
 * its FS range (fs.c's part, set here), so the cache's decision is a
 * read's of one page: HIT (a minor fault, its page in the page cache),
 * MISS (a major one that read its page), PARTIAL (one that waited for
 * another's I/O of it). A write fault is recorded when it read its page
 * (a major one), else counted. Faults on memory that maps no file, or a
 * file of memory (tmpfs, hugetlbfs), are counted, not recorded; a fault
 * inside a read in flight (the copy to or from the user faulting) is that
 * read's, counted. A page mapped by fault-around
 * takes no fault: no event, rightly.
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/hugetlb_inline.h>
#include <linux/kprobes.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <uapi/iolayers.h>
#include <iolayers/compat.h>
#include <iolayers/fault.h>
#include <iolayers/filter.h>
#include <iolayers/flow.h>
#include <iolayers/layers.h>
#include <iolayers/percpu.h>
#include <iolayers/probe.h>
#include <iolayers/table.h>

IOLAYERS_PROBE_COUNTERS(iolayers_pc_fault);

static DEFINE_PER_CPU(u64, iolayers_nr_faults_anon);
static DEFINE_PER_CPU(u64, iolayers_nr_faults_nested);
static DEFINE_PER_CPU(u64, iolayers_nr_faults_write);
static DEFINE_PER_CPU(u64, iolayers_nr_faults_given_up);

/* What the return handler needs: the fault's flow, checked again. */
struct iolayers_fault_att {
	u64 seq;
	unsigned int flags;
};

/*
 * A file of memory: tmpfs and memfd (shmem), ramfs, hugetlbfs. Their
 * faults read no disk, and their pages enter the page cache without the
 * cache's tracepoint (shmem), or are zeroed huge pages that do
 * (hugetlbfs, whose page index is not in pages either): a label would be
 * wrong. The superblock's magic, as the kernel's shmem test is not
 * exported.
 */
static bool iolayers_fault_memfs(const struct vm_area_struct *vma, const struct inode *inode)
{
	unsigned long magic = inode->i_sb->s_magic;

	return is_vm_hugetlb_page((struct vm_area_struct *)vma) || magic == TMPFS_MAGIC ||
	       magic == RAMFS_MAGIC || magic == HUGETLBFS_MAGIC;
}

/*
 * A mapping whose faults read a file: a file's, but not the kernel's own
 * files (S_PRIVATE: the shmem behind MAP_SHARED|MAP_ANONYMOUS and
 * /dev/zero, SysV shared memory), nor a file of memory, nor a device's
 * pages (VM_PFNMAP, VM_IO, VM_MIXEDMAP), nor another process's memory
 * (process_vm_readv(), ptrace: a remote get_user_pages()).
 */
static bool iolayers_fault_file(const struct vm_area_struct *vma)
{
	return vma->vm_file && !(vma->vm_flags & (VM_PFNMAP | VM_IO | VM_MIXEDMAP)) &&
	       !IS_PRIVATE(file_inode(vma->vm_file)) && vma->vm_mm == current->mm &&
	       !iolayers_fault_memfs(vma, file_inode(vma->vm_file));
}

/*
 * A fault on @file's page @index: the retry of the current flow's fault,
 * which returned VM_FAULT_RETRY for the same page?
 */
static bool iolayers_fault_retry(const struct iolayers_task_flow *f, const struct file *file,
				 pgoff_t index)
{
	return f->rd.sys.via == IOLAYERS_VIA_FAULT && f->rd.sys.retried &&
	       f->rd.fs.mapping == file->f_mapping && f->rd.fs.first_index == index;
}

/*
 * handle_mm_fault(vma, address, flags, regs): the fault's flow starts,
 * or goes on (a retry). A kprobe handler runs with preemption off, an RCU
 * reader of the tables; the VMA is held (its lock or the mmap lock).
 */
static int iolayers_fault_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_fault);
	struct iolayers_fault_att *a = (struct iolayers_fault_att *)ri->data;
	struct vm_area_struct *vma = (struct vm_area_struct *)regs_get_kernel_argument(regs, 0);
	unsigned long address = regs_get_kernel_argument(regs, 1);
	const struct inode *inode;
	unsigned int flags = regs_get_kernel_argument(regs, 2);
	struct iolayers_task_flow *f;
	const struct file *file;
	pgoff_t index;

	if (iolayers_empty || !iolayers_follows(current))
		return 1;
	iolayers_hit(&iolayers_pc_fault);
	if (!iolayers_fault_file(vma)) {
		this_cpu_inc(iolayers_nr_faults_anon);
		return 1;
	}
	file = vma->vm_file;
	index = linear_page_index(vma, address);
	f = iolayers_flow_here(current->pid);
	if (f && iolayers_fault_retry(f, file, index)) {
		f->rd.sys.retried = false;
		a->seq = f->seq;
		a->flags = flags;
		return 0;
	}
	if (f && !(f->rd.sys.via == IOLAYERS_VIA_FAULT && f->rd.sys.retried)) {
		this_cpu_inc(iolayers_nr_faults_nested);
		return 1;
	}
	/*
	 * A write fault is followed too: on a page not in memory it reads
	 * the file (a private mapping's copy, a shared one's page) and
	 * waits for that as a read fault does. Whether it did is known at
	 * its return (iolayers_fault_return()).
	 */
	/* A fault whose retry did not come is counted stale here. */
	f = iolayers_flow_start(current->pid);
	if (!f)
		return 1;
	inode = file_inode(file);
	f->rd.sys.via = IOLAYERS_VIA_FAULT;
	f->rd.sys.retried = false;
	f->rd.sys.nr = 0;
	f->rd.sys.fd = -1;
	f->rd.sys.req = PAGE_SIZE;
	f->rd.sys.pos = (s64)index << PAGE_SHIFT;
	f->rd.file.ino = inode->i_ino;
	f->rd.file.dev = inode->i_sb->s_dev;
	/* Its page, for the cache's probes (iolayers_add_to_page_cache()). */
	f->rd.fs.direct = vma_is_dax(vma);	/* no page cache: as a DAX read() */
	f->rd.fs.mapping = file->f_mapping;
	f->rd.fs.pos = f->rd.sys.pos;
	f->rd.fs.first_index = index;
	f->rd.fs.last_index = index;
	f->rd.fs.start = f->rd.sys.start;
	f->rd.fs.reached = true;
	a->seq = f->seq;
	a->flags = flags;
	return 0;
}

/*
 * A VM_FAULT_RETRY after which the fault is not retried: the arch's
 * handler returns at once when a signal is pending (any for a user-mode
 * fault, a fatal one otherwise: fault_signal_pending()), and the access
 * faults again after it, a fault of its own; a caller that asked not to
 * wait (FAULT_FLAG_RETRY_NOWAIT) does not retry either.
 */
static bool iolayers_fault_given_up(unsigned int flags)
{
	return fatal_signal_pending(current) ||
	       ((flags & FAULT_FLAG_USER) && signal_pending(current)) ||
	       (flags & FAULT_FLAG_RETRY_NOWAIT);
}

/*
 * handle_mm_fault() returned: VM_FAULT_RETRY (the same fault comes
 * again, or it was given up: no record, as the kernel counts no fault
 * for it), an error (SIGBUS, SIGSEGV, out of memory: -EFAULT in the
 * record), or the page mapped (a page's bytes).
 */
static int iolayers_fault_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct iolayers_fault_att *a = (const struct iolayers_fault_att *)ri->data;
	vm_fault_t ret = (__force vm_fault_t)regs_return_value(regs);
	struct iolayers_task_flow *f = iolayers_flow_here(current->pid);

	if (!f || READ_ONCE(f->seq) != a->seq || f->rd.sys.via != IOLAYERS_VIA_FAULT)
		return 0;
	if (ret & VM_FAULT_RETRY) {
		if (unlikely(iolayers_fault_given_up(a->flags))) {
			this_cpu_inc(iolayers_nr_faults_given_up);
			iolayers_flow_abandon(f);
			return 0;
		}
		f->rd.sys.retried = true;
		return 0;
	}
	/*
	 * A write fault that was not major (the kernel's own test, a retry
	 * counting as one) read nothing from the disk: a write to a page
	 * mapped already (page_mkwrite, a copy on write) or the copy of a
	 * cached page, which cannot be told apart here. Counted, not
	 * recorded. One that failed is recorded (-EFAULT), as a read's.
	 */
	if ((a->flags & FAULT_FLAG_WRITE) && !(ret & (VM_FAULT_MAJOR | VM_FAULT_ERROR)) &&
	    !(a->flags & FAULT_FLAG_TRIED)) {
		this_cpu_inc(iolayers_nr_faults_write);
		iolayers_flow_abandon(f);
		return 0;
	}
	iolayers_flow_finish(f, ret & VM_FAULT_ERROR ? -EFAULT : (long)PAGE_SIZE);
	return 0;
}

/*
 * As many faults at once as followed tasks may wait in, each holding an
 * instance while its page is read; beyond, a fault is not followed,
 * counted in the probe's missed (a task not followed gives its instance
 * back at once).
 */
static struct kretprobe iolayers_fault_krp = {
	.entry_handler = iolayers_fault_entry,
	.handler = iolayers_fault_return,
	.data_size = sizeof(struct iolayers_fault_att),
	.maxactive = 512,
};

/**
 * iolayers_faults_no_file() - Faults of followed tasks on memory mapping
 *	no file, a file of memory (tmpfs, memfd, ramfs, hugetlbfs), or a
 *	device's or another process's (counted, not recorded).
 *
 * Return: how many, over all CPUs.
 */
u64 iolayers_faults_no_file(void)
{
	return IOLAYERS_PERCPU_SUM(iolayers_nr_faults_anon);
}

/**
 * iolayers_faults_in_reads() - Faults of followed tasks during a read of
 *	theirs (the read's, not flows of their own).
 *
 * Return: how many, over all CPUs.
 */
u64 iolayers_faults_in_reads(void)
{
	return IOLAYERS_PERCPU_SUM(iolayers_nr_faults_nested);
}

/**
 * iolayers_faults_write() - Write faults of followed tasks on a file's
 *	mapping that read nothing from the disk (not major: counted, not
 *	recorded; a major one is a record).
 *
 * Return: how many, over all CPUs.
 */
u64 iolayers_faults_write(void)
{
	return IOLAYERS_PERCPU_SUM(iolayers_nr_faults_write);
}

/**
 * iolayers_faults_given_up() - Faults whose retry did not come (a signal
 *	came while they waited), ended without a record.
 *
 * Return: how many, over all CPUs.
 */
u64 iolayers_faults_given_up(void)
{
	return IOLAYERS_PERCPU_SUM(iolayers_nr_faults_given_up);
}

/**
 * iolayers_faults_reset() - Zero the fault counts (`reset`).
 *
 * Context: process context; counts racing with it may survive.
 */
void iolayers_faults_reset(void)
{
	IOLAYERS_PERCPU_ZERO(iolayers_nr_faults_anon);
	IOLAYERS_PERCPU_ZERO(iolayers_nr_faults_nested);
	IOLAYERS_PERCPU_ZERO(iolayers_nr_faults_write);
	IOLAYERS_PERCPU_ZERO(iolayers_nr_faults_given_up);
}

/*
 * Not on a kernel where our kretprobes are unsafe (compat.h): faults then
 * make no record.
 */
static struct iolayers_probe iolayers_fault_probes[] = {
	IOLAYERS_KRETPROBE("handle_mm_fault", &iolayers_fault_krp, iolayers_pc_fault,
			   .unverified = IOLAYERS_KRETPROBE_UNSAFE),
};

/* The FAULT layer: a page fault on a file's mapping, entry to return. */
struct iolayers_layer_probes iolayers_fault_layer = {
	.name = "FAULT",
	.probes = iolayers_fault_probes,
	.nr_probes = ARRAY_SIZE(iolayers_fault_probes),
};
