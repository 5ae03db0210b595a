// SPDX-License-Identifier: GPL-2.0
/*
 * FS layer: ext4_file_read_iter, and filemap_read for other file systems,
 * from their entry (an ftrace callback) to the syscall's exit.
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/ktime.h>
#include <linux/uio.h>
#include <iolayers/flow.h>
#include <iolayers/compat.h>
#include <iolayers/layers.h>
#include <iolayers/probe.h>

IOLAYERS_PROBE_COUNTERS(iolayers_pc_ext4_read);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_filemap_read);

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
static void iolayers_fs_entry(struct ftrace_regs *fregs,
			      struct iolayers_probe_pcpu __percpu *pcpu)
{
	IOLAYERS_COST_SCOPE(pcpu);
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
	iolayers_hit(pcpu);
	if (f->rd.fs.reached)
		return;	/* nested in the flow's outer FS call */
	/* Both functions take (struct kiocb *, struct iov_iter *). */
	iocb = (struct kiocb *)iolayers_fregs_arg(fregs, 0);
	iter = (struct iov_iter *)iolayers_fregs_arg(fregs, 1);
	len = iov_iter_count(iter);
	f->rd.fs.reached = true;
	f->rd.fs.direct = iocb->ki_flags & IOCB_DIRECT;
	f->rd.fs.mapping = iocb->ki_filp->f_mapping;
	f->rd.fs.pos = iocb->ki_pos;
	f->rd.fs.first_index = iocb->ki_pos >> PAGE_SHIFT;
	f->rd.fs.last_index = len ? (iocb->ki_pos + len - 1) >> PAGE_SHIFT : f->rd.fs.first_index;
	f->rd.fs.start_ns = ktime_get_ns();
}

IOLAYERS_DEFINE_FENTRY(iolayers_ext4_fentry, iolayers_pc_ext4_read, iolayers_fs_entry)
IOLAYERS_DEFINE_FENTRY(iolayers_filemap_fentry, iolayers_pc_filemap_read, iolayers_fs_entry)

/*
 * ext4_file_read_iter resolves only while ext4 is loaded; filemap_read
 * (built in) gives every page-cache file system an FS layer, ext4's too.
 */
static struct iolayers_probe iolayers_fs_probes[] = {
	IOLAYERS_FENTRY("ext4_file_read_iter", iolayers_ext4_fentry, iolayers_pc_ext4_read,
			.optional = true),
	IOLAYERS_FENTRY("filemap_read", iolayers_filemap_fentry, iolayers_pc_filemap_read),
};

/* The FS layer: from the outermost FS call's entry to sys_exit. */
struct iolayers_layer_probes iolayers_fs_layer = {
	.name = "FS",
	.probes = iolayers_fs_probes,
	.nr_probes = ARRAY_SIZE(iolayers_fs_probes),
};
