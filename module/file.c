// SPDX-License-Identifier: GPL-2.0
/*
 * The files followed reads read: each file's path, resolved once, the
 * first time a followed read enters VFS for it, into the file table
 * (keyed by inode address, bounded like the other tables). A record of
 * the stream names its file by inode number and file system device;
 * `files` maps those to paths. Resolving takes d_path() (the dcache's
 * RCU walk, a few thousand instructions) once per file, in the reading
 * task's context at vfs_read's entry, where it holds no VFS lock; never
 * in an interrupt. A thread's last file is remembered in its flow entry,
 * so a thread reading one file looks nothing up.
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/path.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <iolayers/file.h>
#include <iolayers/table.h>

/* d_path()'s scratch space, per CPU (callers run with preemption off). */
static char __percpu *iolayers_path_buf;

/* Copy @p into @out: its end if too long, control characters as '?'. */
static void iolayers_path_copy(char *out, const char *p)
{
	size_t len = strlen(p), i;

	if (len >= IOLAYERS_PATH_LEN) {
		memcpy(out, "...", 3);
		p += len - (IOLAYERS_PATH_LEN - 4);
		len = IOLAYERS_PATH_LEN - 4;
		out += 3;
	}
	for (i = 0; i < len; i++)
		out[i] = (unsigned char)p[i] < 0x20 ? '?' : p[i];
	out[len] = '\0';
}

/**
 * iolayers_file_note() - Remember @file's path, if it is new.
 * @file: the file a followed read is reading (referenced by the read)
 *
 * Context: the reading task, preemption disabled, under RCU (an ftrace
 * callback at vfs_read's entry).
 */
void iolayers_file_note(const struct file *file)
{
	const struct inode *inode = file_inode(file);
	unsigned long key = (unsigned long)inode;
	struct iolayers_file *e;
	char *buf, *p;

	e = iolayers_table_find(IOLAYERS_T_FILE, key);
	if (e) {
		if (e->ino == inode->i_ino && e->dev == inode->i_sb->s_dev)
			return;
		/* The inode's memory now holds another file: renew. */
		iolayers_table_del(IOLAYERS_T_FILE, e);
	}
	e = iolayers_table_alloc(IOLAYERS_T_FILE);
	if (!e)
		return;	/* counted (table_full, nomem): its reads have no path */
	e->ino = inode->i_ino;
	e->dev = inode->i_sb->s_dev;
	/*
	 * d_path() reads mount_lock and rename_lock as seqlocks, and takes
	 * them when a writer is at work: on PREEMPT_RT they are sleeping
	 * locks, which this callback (preemption off) may not take. There
	 * the path is not known ("?").
	 */
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		iolayers_path_copy(e->path, "?");
	} else {
		buf = this_cpu_ptr(iolayers_path_buf);
		p = d_path(&file->f_path, buf, PATH_MAX);
		iolayers_path_copy(e->path, IS_ERR(p) ? "?" : p);
	}
	iolayers_table_insert(IOLAYERS_T_FILE, e, key);
}

static bool iolayers_file_line(void *entry, void *arg)
{
	const struct iolayers_file *e = entry;

	seq_printf(arg, "%u:%u %llu %s\n", MAJOR(e->dev), MINOR(e->dev), e->ino, e->path);
	return false;
}

/**
 * iolayers_files_show() - The `files` file: a header, then per file its
 *	file system's major:minor, inode number and path (the rest of the
 *	line; it may hold blanks).
 * @m: the seq_file
 *
 * Context: process context.
 */
void iolayers_files_show(struct seq_file *m)
{
	seq_puts(m, "fs_dev ino path\n");
	iolayers_table_prune(IOLAYERS_T_FILE, iolayers_file_line, m);
}

/**
 * iolayers_files_bytes() - Memory d_path()'s scratch space takes (the
 *	entries are the file table's).
 *
 * Return: bytes.
 */
size_t iolayers_files_bytes(void)
{
	return iolayers_path_buf ? num_possible_cpus() * (size_t)PATH_MAX : 0;
}

/**
 * iolayers_files_init() - Allocate d_path()'s scratch space.
 *
 * Context: process context (load).
 * Return: 0, or -ENOMEM.
 */
int iolayers_files_init(void)
{
	iolayers_path_buf = __alloc_percpu(PATH_MAX, 1);
	return iolayers_path_buf ? 0 : -ENOMEM;
}

/**
 * iolayers_files_exit() - Free it (the table's entries go with the tables).
 *
 * Context: process context (unload), no probe attached.
 */
void iolayers_files_exit(void)
{
	free_percpu(iolayers_path_buf);
	iolayers_path_buf = NULL;
}
