/* SPDX-License-Identifier: GPL-2.0 */
/* The /sys/kernel/debug/iolayers/ directory (debugfs.c). */
#ifndef _IOLAYERS_DEBUGFS_H
#define _IOLAYERS_DEBUGFS_H

void iolayers_debugfs_init(void);
void iolayers_debugfs_exit(void);

#endif /* _IOLAYERS_DEBUGFS_H */
