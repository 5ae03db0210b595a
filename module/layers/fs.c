// SPDX-License-Identifier: GPL-2.0
/*
 * FS layer: filemap_read (every page-cache file system's buffered reads),
 * iomap_dio_rw (O_DIRECT on ext4, xfs and btrfs), dax_iomap_rw (DAX) and
 * shmem_file_read_iter (tmpfs), from the first one's entry (an ftrace
 * callback) to the syscall's exit.
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/ktime.h>
#include <linux/uio.h>
#include <iolayers/clock.h>
#include <iolayers/flow.h>
#include <iolayers/compat.h>
#include <iolayers/layers.h>
#include <iolayers/probe.h>

IOLAYERS_PROBE_COUNTERS(iolayers_pc_shmem_read);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_filemap_read);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_iomap_dio);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_dax_rw);

/* What an FS probe point says about the page cache. */
enum iolayers_fs_how {
	IOLAYERS_FS_PAGECACHE,	/* filemap_read: the page cache serves the read */
	IOLAYERS_FS_ASKED,	/* shmem, iomap_dio_rw: IOCB_DIRECT at its word */
	IOLAYERS_FS_DAX,	/* dax_iomap_rw: no page cache whatever was asked */
};

/*
 * The outermost FS call of a followed read() describes the range and
 * starts the layer's time; a nested one (a short direct read finished
 * through the page cache) is counted and left alone. The layer
 * ends at the syscall's exit, as VFS does: what runs between the FS
 * call's return and sys_exit is vfs_read's bookkeeping (fsnotify, the
 * task's I/O counters) and the file reference's release, which neither
 * waits nor adds pages, and the FS call's value is the syscall's. No
 * return probe is armed: on 6.1 the kretprobe's return trampoline and
 * kprobe dispatch were half the floor (Documentation/benchmarks.rst).
 * @how says what the probe point tells of the page cache.
 */
static __always_inline void iolayers_fs_entry(struct iolayers_fregs *fregs,
					      struct iolayers_probe_pcpu __percpu *pcpu,
					      enum iolayers_fs_how how)
{
	IOLAYERS_COST_SCOPE(pcpu);
	struct kiocb *iocb;
	struct iov_iter *iter;
	struct iolayers_task_flow *f;
	size_t len;

	if (iolayers_table_empty(IOLAYERS_T_TASK))
		return;
	/* An RCU reader already (iolayers_fentry_run()). */
	f = iolayers_flow_here(current->pid);
	if (!f)
		return;
	iolayers_hit(pcpu);
	f->rd.fs.entries++;
	if (f->rd.fs.reached) {
		/*
		 * Nested in the flow's outer FS call. A direct read the file
		 * system sends through the page cache after all (ext4 with
		 * data=journal, inline data or fs-verity; the rest of a short
		 * direct read in generic_file_read_iter) is not direct.
		 */
		if (how == IOLAYERS_FS_PAGECACHE)
			f->rd.fs.direct = false;
		return;
	}
	/* All four functions take (struct kiocb *, struct iov_iter *) first. */
	iocb = (struct kiocb *)iolayers_fregs_arg(fregs, 0);
	iter = (struct iov_iter *)iolayers_fregs_arg(fregs, 1);
	len = iov_iter_count(iter);
	f->rd.fs.reached = true;
	f->rd.fs.direct = how == IOLAYERS_FS_DAX ||
			  (how == IOLAYERS_FS_ASKED && (iocb->ki_flags & IOCB_DIRECT));
	f->rd.fs.mapping = iocb->ki_filp->f_mapping;
	if (!f->rd.file.ino) {	/* VFS not reached (its entry refused) */
		const struct inode *inode = file_inode(iocb->ki_filp);

		f->rd.file.ino = inode->i_ino;
		f->rd.file.dev = inode->i_sb->s_dev;
	}
	if (unlikely(f->rd.sys.via))	/* a request: its size is here */
		f->rd.sys.req = len;
	f->rd.fs.pos = iocb->ki_pos;
	f->rd.fs.first_index = iocb->ki_pos >> PAGE_SHIFT;
	f->rd.fs.last_index = len ? (iocb->ki_pos + len - 1) >> PAGE_SHIFT : f->rd.fs.first_index;
	f->rd.fs.start = iolayers_stamp(f->rd.sys.tsc);
}

/* shmem's read_iter or iomap_dio_rw. */
static void iolayers_fs_call(struct iolayers_fregs *fregs,
			     struct iolayers_probe_pcpu __percpu *pcpu)
{
	iolayers_fs_entry(fregs, pcpu, IOLAYERS_FS_ASKED);
}

static void iolayers_fs_pagecache(struct iolayers_fregs *fregs,
				  struct iolayers_probe_pcpu __percpu *pcpu)
{
	iolayers_fs_entry(fregs, pcpu, IOLAYERS_FS_PAGECACHE);
}

/* A DAX file's read goes to the device's memory: DIRECT, asked or not. */
static void iolayers_fs_dax(struct iolayers_fregs *fregs,
			    struct iolayers_probe_pcpu __percpu *pcpu)
{
	iolayers_fs_entry(fregs, pcpu, IOLAYERS_FS_DAX);
}

IOLAYERS_DEFINE_FENTRY_IF(iolayers_shmem_fentry, iolayers_pc_shmem_read, iolayers_fs_call,
			  iolayers_flow_maybe_here)
IOLAYERS_DEFINE_FENTRY_IF(iolayers_filemap_fentry, iolayers_pc_filemap_read, iolayers_fs_pagecache,
			  iolayers_flow_maybe_here)
IOLAYERS_DEFINE_FENTRY_IF(iolayers_iomap_dio_fentry, iolayers_pc_iomap_dio, iolayers_fs_call,
			  iolayers_flow_maybe_here)
IOLAYERS_DEFINE_FENTRY_IF(iolayers_dax_fentry, iolayers_pc_dax_rw, iolayers_fs_dax,
			  iolayers_flow_maybe_here)

/*
 * The functions where file systems hand a read to the kernel's common
 * code: filemap_read (built in) for every page-cache file system's
 * buffered reads, iomap_dio_rw for O_DIRECT on ext4, xfs and btrfs,
 * dax_iomap_rw for DAX files; tmpfs reads none of them. ext4's own
 * read_iter is not a probe point: it only dispatches to those three (after
 * its shutdown and zero-length checks), and it was a second callback on
 * every cached ext4 read, about 130 instructions (Documentation/
 * benchmarks.rst). A read's layer starts at the first it enters.
 * filemap_read has an ftrace_ops of its own; the others, which a cached
 * read does not meet, share one (grouped: a faster rmmod).
 */
static struct iolayers_probe iolayers_fs_probes[] = {
	IOLAYERS_FENTRY("shmem_file_read_iter", iolayers_shmem_fentry, iolayers_pc_shmem_read,
			.optional = true, .missed_layer = IOLAYERS_MISSED_FS, .grouped = true),
	IOLAYERS_FENTRY(IOLAYERS_FILEMAP_READ, iolayers_filemap_fentry, iolayers_pc_filemap_read,
			.missed_layer = IOLAYERS_MISSED_FS),
	IOLAYERS_FENTRY("iomap_dio_rw", iolayers_iomap_dio_fentry, iolayers_pc_iomap_dio,
			.optional = true, .missed_layer = IOLAYERS_MISSED_FS, .grouped = true),
	IOLAYERS_FENTRY("dax_iomap_rw", iolayers_dax_fentry, iolayers_pc_dax_rw,
			.optional = true, .missed_layer = IOLAYERS_MISSED_FS, .grouped = true),
};

/* The FS layer: from the outermost FS call's entry to sys_exit. */
struct iolayers_layer_probes iolayers_fs_layer = {
	.name = "FS",
	.probes = iolayers_fs_probes,
	.nr_probes = ARRAY_SIZE(iolayers_fs_probes),
};
