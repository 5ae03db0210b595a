// SPDX-License-Identifier: GPL-2.0
/*
 * VFS layer: vfs_read and vfs_readv, from their entry (an ftrace callback)
 * to the syscall's exit, inside a syscall's flow.
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/ktime.h>
#include <iolayers/clock.h>
#include <iolayers/compat.h>
#include <iolayers/file.h>
#include <iolayers/flow.h>
#include <iolayers/layers.h>
#include <iolayers/probe.h>

IOLAYERS_PROBE_COUNTERS(iolayers_pc_vfs_read);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_vfs_readv);

/*
 * VFS ends where the syscall's exit begins: after vfs_read() returns, the
 * read family only drops the file reference (fdput_pos) before sys_exit,
 * so no return probe is armed (it was a kretprobe, twice the mechanism's
 * cost). sys_exit sets the flow's vfs_ns. Here the read learns its file
 * (inode number, file system) and the position it starts at: both
 * functions take (struct file *, the buffer or iovecs, a count,
 * loff_t *pos), pos NULL for a stream (a pipe, a socket).
 */
static __always_inline void iolayers_vfs_entry(struct iolayers_fregs *fregs,
					       struct iolayers_probe_pcpu __percpu *pcpu)
{
	IOLAYERS_COST_SCOPE(pcpu);
	struct iolayers_task_flow *f;
	const struct file *file;
	const struct inode *inode;
	const loff_t *ppos;

	if (iolayers_table_empty(IOLAYERS_T_TASK))
		return;
	/* An RCU reader already (iolayers_fentry_run()). */
	f = iolayers_flow_here(current->pid);
	if (!f || f->rd.vfs.start)	/* not a followed read(), or nested */
		return;
	iolayers_hit(pcpu);
	file = (const struct file *)iolayers_fregs_arg(fregs, 0);
	inode = file_inode(file);
	f->rd.file.ino = inode->i_ino;
	f->rd.file.dev = inode->i_sb->s_dev;
	f->rd.file.block_fs = S_ISREG(inode->i_mode) &&
			      (inode->i_sb->s_type->fs_flags & FS_REQUIRES_DEV);
	/* A new file for this thread: its path, once per file (file.c). */
	if (unlikely(inode != f->last_inode || inode->i_ino != f->last_ino)) {
		f->last_inode = inode;
		f->last_ino = inode->i_ino;
		iolayers_file_note(file);
	}
	ppos = (const loff_t *)iolayers_fregs_arg(fregs, 3);
	f->rd.vfs.pos = ppos ? *ppos : -1;
	f->rd.vfs.start = iolayers_stamp(f->rd.sys.tsc);
}

IOLAYERS_DEFINE_FENTRY_IF(iolayers_vfs_read_fentry, iolayers_pc_vfs_read, iolayers_vfs_entry,
			  iolayers_flow_maybe_here)
IOLAYERS_DEFINE_FENTRY_IF(iolayers_vfs_readv_fentry, iolayers_pc_vfs_readv, iolayers_vfs_entry,
			  iolayers_flow_maybe_here)

static struct iolayers_probe iolayers_vfs_probes[] = {
	IOLAYERS_FENTRY("vfs_read", iolayers_vfs_read_fentry, iolayers_pc_vfs_read,
			.missed_layer = IOLAYERS_MISSED_VFS),
	/* The readv family's (static in fs/read_write.c; may be inlined). */
	IOLAYERS_FENTRY("vfs_readv", iolayers_vfs_readv_fentry, iolayers_pc_vfs_readv,
			.optional = true, .missed_layer = IOLAYERS_MISSED_VFS),
};

/* The VFS layer: from vfs_read's (or vfs_readv's) entry to sys_exit. */
struct iolayers_layer_probes iolayers_vfs_layer = {
	.name = "VFS",
	.probes = iolayers_vfs_probes,
	.nr_probes = ARRAY_SIZE(iolayers_vfs_probes),
};
