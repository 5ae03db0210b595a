/* SPDX-License-Identifier: GPL-2.0 */
/* The files followed reads read, and their paths (file.c). */
#ifndef _IOLAYERS_FILE_H
#define _IOLAYERS_FILE_H

#include <linux/types.h>
#include <iolayers/table.h>

struct file;
struct seq_file;

/* A path longer than this keeps its end, after "...". */
#define IOLAYERS_PATH_LEN	256

/**
 * struct iolayers_file - A file that followed reads have read.
 * @e: table entry, keyed by the inode's address (never shown)
 * @ino: its inode number
 * @dev: its file system's device
 * @path: its path when first read (d_path(); pipes and sockets have
 *	names such as "pipe:[1234]"), control characters as '?'
 */
struct iolayers_file {
	struct iolayers_entry e;
	u64 ino;
	dev_t dev;
	char path[IOLAYERS_PATH_LEN];
};

void iolayers_file_note(const struct file *file);
void iolayers_files_show(struct seq_file *m);
int iolayers_files_init(void);
size_t iolayers_files_bytes(void);
void iolayers_files_exit(void);

#endif /* _IOLAYERS_FILE_H */
