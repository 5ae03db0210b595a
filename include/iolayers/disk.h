/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The disks followed reads' requests went to (disk.c): a small table of
 * them, each with its own request, byte, error and latency counters.
 */
#ifndef _IOLAYERS_DISK_H
#define _IOLAYERS_DISK_H

#include <linux/types.h>

struct gendisk;
struct seq_file;
struct iolayers_rq;

/*
 * Disks told apart; requests to more are counted (disk_overflow). A flow
 * keeps a bit per disk in a u16 (struct iolayers_blk_acc).
 */
#define IOLAYERS_MAX_DISKS	16

u8 iolayers_disk_id(struct gendisk *disk);
void iolayers_disk_complete(const struct iolayers_rq *r, u64 now, bool error);
const char *iolayers_disk_name(u8 id);
dev_t iolayers_disk_dev(u8 id);
void iolayers_disks_show(struct seq_file *m);
void iolayers_disks_reset(void);

#endif /* _IOLAYERS_DISK_H */
