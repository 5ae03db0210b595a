// SPDX-License-Identifier: GPL-2.0
/* FS layer: ext4_file_read_iter, and filemap_read for other file systems. */

#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include <linux/uio.h>
#include <iolayers/iolayers.h>
#include <iolayers/flow.h>

#define IOLAYERS_FS_MAXACTIVE	512

/* Per-instance data; see struct iolayers_vfs_call for the flow's lifetime. */
struct iolayers_fs_call {
	struct iolayers_task_flow *flow;
};

/*
 * empty=1 (the floor) arms return probes for the calls the full run arms,
 * decided without the task table: the outermost call of a followed task
 * (the full run's "in a followed read()": these functions are reached by
 * the read family). Nesting is told by a per-CPU owner set at the ext4
 * entry and taken by the nested filemap_read entry: nothing between them
 * sleeps, so the task is still on this CPU.
 */
static DEFINE_PER_CPU(struct task_struct *, iolayers_floor_fs_owner);

static int iolayers_fs_floor_entry(enum iolayers_probe_id id)
{
	if (!iolayers_floor_follows())
		return 1;
	if (id == IOLAYERS_P_EXT4_READ) {
		this_cpu_write(iolayers_floor_fs_owner, current);
		return 0;
	}
	if (this_cpu_read(iolayers_floor_fs_owner) != current)
		return 0;
	this_cpu_write(iolayers_floor_fs_owner, NULL);
	return 1;
}

/*
 * Both probed functions take (struct kiocb *, struct iov_iter *, ...).
 * ext4_file_read_iter calls filemap_read for buffered reads: only the
 * outermost call of a flow is timed and describes the range, and only it
 * gets a return probe (a nested call is counted and left alone: one
 * return trampoline less per buffered ext4 read).
 */
static int iolayers_fs_entry(struct kretprobe_instance *ri, struct pt_regs *regs,
			     enum iolayers_probe_id id)
{
	IOLAYERS_COST_SCOPE(id);
	struct iolayers_fs_call *c = (struct iolayers_fs_call *)ri->data;
	struct kiocb *iocb;
	struct iov_iter *iter;
	struct iolayers_task_flow *f;
	size_t len;

	if (iolayers_empty)
		return iolayers_fs_floor_entry(id);
	if (iolayers_table_empty(IOLAYERS_T_TASK))
		return 1;
	rcu_read_lock();
	f = iolayers_flow_find(current->pid);
	rcu_read_unlock();
	if (!f)
		return 1;
	iolayers_hit(id);
	if (f->fs_depth)
		return 1;	/* nested in the flow's outer FS call */
	c->flow = f;
	f->fs_depth = 1;
	iocb = (struct kiocb *)regs_get_kernel_argument(regs, 0);
	iter = (struct iov_iter *)regs_get_kernel_argument(regs, 1);
	len = iov_iter_count(iter);
	f->fs_reached = true;
	f->direct = iocb->ki_flags & IOCB_DIRECT;
	f->mapping = iocb->ki_filp->f_mapping;
	f->fs_pos = iocb->ki_pos;
	f->first_index = iocb->ki_pos >> PAGE_SHIFT;
	f->last_index = len ? (iocb->ki_pos + len - 1) >> PAGE_SHIFT : f->first_index;
	f->added_pages = 0;
	f->ra_pages = 0;
	f->iowait = false;
	f->fs_start_ns = ktime_get_ns();
	return 0;
}

static int iolayers_fs_ret(struct kretprobe_instance *ri, struct pt_regs *regs,
			   enum iolayers_probe_id id)
{
	IOLAYERS_COST_SCOPE(id);
	struct iolayers_fs_call *c = (struct iolayers_fs_call *)ri->data;
	struct iolayers_task_flow *f = c->flow;

	if (iolayers_empty) {
		/* An ext4 call that did not reach filemap_read (O_DIRECT) */
		if (this_cpu_read(iolayers_floor_fs_owner) == current)
			this_cpu_write(iolayers_floor_fs_owner, NULL);
		return 0;
	}
	f->fs_ns = ktime_get_ns() - f->fs_start_ns;
	f->fs_ret = (long)regs_return_value(regs);
	f->fs_depth = 0;
	return 0;
}

static int iolayers_ext4_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return iolayers_fs_ret(ri, regs, IOLAYERS_P_EXT4_READ);
}

static int iolayers_filemap_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return iolayers_fs_ret(ri, regs, IOLAYERS_P_FILEMAP_READ);
}

static int iolayers_ext4_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return iolayers_fs_entry(ri, regs, IOLAYERS_P_EXT4_READ);
}

static int iolayers_filemap_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return iolayers_fs_entry(ri, regs, IOLAYERS_P_FILEMAP_READ);
}

static struct kretprobe iolayers_ext4_krp = {
	.kp.symbol_name = "ext4_file_read_iter",
	.entry_handler = iolayers_ext4_entry,
	.handler = iolayers_ext4_ret,
	.data_size = sizeof(struct iolayers_fs_call),
	.maxactive = IOLAYERS_FS_MAXACTIVE,
};

static struct kretprobe iolayers_filemap_krp = {
	.kp.symbol_name = "filemap_read",
	.entry_handler = iolayers_filemap_entry,
	.handler = iolayers_filemap_ret,
	.data_size = sizeof(struct iolayers_fs_call),
	.maxactive = IOLAYERS_FS_MAXACTIVE,
};

/**
 * iolayers_fs_register() - Attach the FS layer's probes.
 *
 * ext4_file_read_iter resolves only while ext4 is loaded; filemap_read
 * (built in) still gives other page-cache file systems an FS layer.
 *
 * Context: process context, may sleep.
 */
void iolayers_fs_register(void)
{
	iolayers_kretprobe_attach(&iolayers_probes[IOLAYERS_P_EXT4_READ], &iolayers_ext4_krp);
	iolayers_kretprobe_attach(&iolayers_probes[IOLAYERS_P_FILEMAP_READ],
				  &iolayers_filemap_krp);
}

/**
 * iolayers_fs_unregister() - Detach the FS layer's probes.
 *
 * Context: process context, may sleep.
 */
void iolayers_fs_unregister(void)
{
	iolayers_kretprobe_detach(&iolayers_probes[IOLAYERS_P_FILEMAP_READ]);
	iolayers_kretprobe_detach(&iolayers_probes[IOLAYERS_P_EXT4_READ]);
}

/**
 * iolayers_fs_available() - Is at least one FS layer probe attached?
 *
 * Return: true when reads through a file system can be told apart.
 */
bool iolayers_fs_available(void)
{
	return iolayers_probes[IOLAYERS_P_EXT4_READ].state == IOLAYERS_PROBE_ATTACHED ||
	       iolayers_probes[IOLAYERS_P_FILEMAP_READ].state == IOLAYERS_PROBE_ATTACHED;
}
