// SPDX-License-Identifier: GPL-2.0
/*
 * FS layer: ext4_file_read_iter, and filemap_read for other file systems,
 * from their entry (an ftrace callback) to the syscall's exit.
 */

#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/ktime.h>
#include <linux/uio.h>
#include <iolayers/iolayers.h>
#include <iolayers/flow.h>
#include <iolayers/compat.h>

/*
 * The outermost FS call of a followed read() describes the range and
 * starts the layer's time; a nested one (ext4_file_read_iter calls
 * filemap_read for buffered reads) is counted and left alone. The layer
 * ends at the syscall's exit, as VFS does: what runs between the FS
 * call's return and sys_exit is vfs_read's bookkeeping (fsnotify, the
 * task's I/O counters) and the file reference's release, which neither
 * waits nor adds pages, and the FS call's value is the syscall's. No
 * return probe is armed: on 6.1 the kretprobe's return trampoline and
 * kprobe dispatch were half the floor (Documentation/benchmarks.rst).
 */
static void iolayers_fs_entry(struct ftrace_regs *fregs, enum iolayers_probe_id id)
{
	IOLAYERS_COST_SCOPE(id);
	struct kiocb *iocb;
	struct iov_iter *iter;
	struct iolayers_task_flow *f;
	size_t len;

	if (iolayers_table_empty(IOLAYERS_T_TASK))
		return;
	/* An RCU reader already (iolayers_fentry_run()). */
	f = iolayers_flow_find(current->pid);
	if (!f)
		return;
	iolayers_hit(id);
	if (f->fs_reached)
		return;	/* nested in the flow's outer FS call */
	/* Both functions take (struct kiocb *, struct iov_iter *). */
	iocb = (struct kiocb *)iolayers_fregs_arg(fregs, 0);
	iter = (struct iov_iter *)iolayers_fregs_arg(fregs, 1);
	len = iov_iter_count(iter);
	f->fs_reached = true;
	f->direct = iocb->ki_flags & IOCB_DIRECT;
	f->mapping = iocb->ki_filp->f_mapping;
	f->fs_pos = iocb->ki_pos;
	f->first_index = iocb->ki_pos >> PAGE_SHIFT;
	f->last_index = len ? (iocb->ki_pos + len - 1) >> PAGE_SHIFT : f->first_index;
	f->fs_start_ns = ktime_get_ns();
}

IOLAYERS_DEFINE_FENTRY(iolayers_ext4, IOLAYERS_P_EXT4_READ, iolayers_fs_entry);
IOLAYERS_DEFINE_FENTRY(iolayers_filemap, IOLAYERS_P_FILEMAP_READ, iolayers_fs_entry);

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
	iolayers_fentry_attach(&iolayers_probes[IOLAYERS_P_EXT4_READ], &iolayers_ext4_ops);
	iolayers_fentry_attach(&iolayers_probes[IOLAYERS_P_FILEMAP_READ], &iolayers_filemap_ops);
}

/**
 * iolayers_fs_unregister() - Detach the FS layer's probes.
 *
 * Context: process context, may sleep.
 */
void iolayers_fs_unregister(void)
{
	iolayers_fentry_detach(&iolayers_probes[IOLAYERS_P_FILEMAP_READ]);
	iolayers_fentry_detach(&iolayers_probes[IOLAYERS_P_EXT4_READ]);
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
