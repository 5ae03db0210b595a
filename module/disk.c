// SPDX-License-Identifier: GPL-2.0
/*
 * The disks of followed reads' requests: a request's disk is looked up
 * when its entry is made (request.c) and kept by id in the entry, then in
 * the flows it folds into; at its completion the disk's own counters add
 * it up. The table of disks fills as they are first seen, from any
 * context and without a lock: a free slot is claimed by writing its dev_t
 * with cmpxchg(), its name copied, then published. Slots stay until
 * unload, with the name the disk had when first seen.
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/blkdev.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <iolayers/disk.h>
#include <iolayers/percpu.h>
#include <iolayers/request.h>

/**
 * struct iolayers_disk - A disk that requests of followed reads went to.
 * @dev: its dev_t, 0 while the slot is free
 * @ready: @name is set (store-release by the slot's claimer)
 * @name: its gendisk's disk_name
 */
struct iolayers_disk {
	dev_t dev;
	bool ready;
	char name[DISK_NAME_LEN];
};

static struct iolayers_disk iolayers_disks[IOLAYERS_MAX_DISKS];

/**
 * struct iolayers_disk_stats - One CPU's counts for one disk.
 * @requests: completed requests that carried followed reads' bios
 * @bytes: those bios' bytes
 * @errors: requests that failed
 * @service_ns: the sum of their issue-to-completion times
 * @device_requests: those with a device time (NVMe, SCSI)
 * @device_ns: the sum of those device times
 */
struct iolayers_disk_stats {
	u64 requests;
	u64 bytes;
	u64 errors;
	u64 service_ns;
	u64 device_requests;
	u64 device_ns;
};

static DEFINE_PER_CPU(struct iolayers_disk_stats [IOLAYERS_MAX_DISKS], iolayers_disk_stats);

/**
 * iolayers_disk_id() - A disk's id in the table of disks, added if new.
 * @disk: a request's disk, or NULL
 *
 * Context: any.
 * Return: 1 + its slot; 0 for NULL or when every slot holds another disk
 * (counted as disk_overflow).
 */
u8 iolayers_disk_id(struct gendisk *disk)
{
	unsigned int i;
	dev_t dev, cur;

	if (!disk)
		return 0;
	dev = disk_devt(disk);
	for (i = 0; i < IOLAYERS_MAX_DISKS; i++) {
		struct iolayers_disk *d = &iolayers_disks[i];

		cur = READ_ONCE(d->dev);
		if (!cur) {
			cur = cmpxchg(&d->dev, 0, dev);
			if (!cur) {
				strscpy(d->name, disk->disk_name, sizeof(d->name));
				/* The name before @ready: pairs with iolayers_disk_name(). */
				smp_store_release(&d->ready, true);
				return i + 1;
			}
		}
		if (cur == dev)
			return i + 1;
	}
	iolayers_blk_count(IOLAYERS_BLK_DISK_OVERFLOW, 1);
	return 0;
}

/**
 * iolayers_disk_complete() - Count a completed request in its disk's
 *	counters.
 * @r: the request's entry, its disk id set when it was made
 * @now: completion time
 * @error: the request failed
 *
 * Context: any (the completion interrupt, usually).
 */
void iolayers_disk_complete(const struct iolayers_rq *r, u64 now, bool error)
{
	unsigned int i, d = r->disk - 1;
	u64 bytes = 0;

	if (!r->disk)
		return;
	for (i = 0; i < r->nr_flows; i++)
		bytes += r->bytes[i];
	this_cpu_inc(iolayers_disk_stats[d].requests);
	this_cpu_add(iolayers_disk_stats[d].bytes, bytes);
	if (error)
		this_cpu_inc(iolayers_disk_stats[d].errors);
	this_cpu_add(iolayers_disk_stats[d].service_ns, now - r->issue_ns);
	if (r->setup_ns && r->devdone_ns) {
		this_cpu_inc(iolayers_disk_stats[d].device_requests);
		this_cpu_add(iolayers_disk_stats[d].device_ns, r->devdone_ns - r->setup_ns);
	}
}

/**
 * iolayers_disk_name() - The name of a disk by its id.
 * @id: from iolayers_disk_id()
 *
 * Context: any.
 * Return: the name, or NULL for id 0 or a slot whose name is not yet set.
 */
const char *iolayers_disk_name(u8 id)
{
	if (!id || id > IOLAYERS_MAX_DISKS)
		return NULL;
	/* @ready before the name: pairs with the claimer's store-release. */
	if (!smp_load_acquire(&iolayers_disks[id - 1].ready))
		return NULL;
	return iolayers_disks[id - 1].name;
}

/**
 * iolayers_disk_dev() - A disk's device number, by its id.
 * @id: its id (iolayers_disk_id())
 *
 * Return: its dev_t, 0 for id 0 or a disk not in the table yet.
 */
dev_t iolayers_disk_dev(u8 id)
{
	if (!iolayers_disk_name(id))
		return 0;
	return READ_ONCE(iolayers_disks[id - 1].dev);
}

/**
 * iolayers_disks_show() - The disks' section of `stats`: a header line,
 *	then one line per disk seen (name, major, minor, counters).
 * @m: the seq_file
 *
 * Context: process context.
 */
void iolayers_disks_show(struct seq_file *m)
{
	unsigned int i;

	seq_printf(m, "%-8s %6s %6s %10s %14s %8s %14s %10s %14s\n", "disk", "major", "minor",
		   "requests", "bytes", "errors", "service_ns", "device_rqs", "device_ns");
	for (i = 0; i < IOLAYERS_MAX_DISKS; i++) {
		const char *name = iolayers_disk_name(i + 1);
		dev_t dev = READ_ONCE(iolayers_disks[i].dev);

		if (!name)
			continue;
		seq_printf(m, "%-8s %6u %6u %10llu %14llu %8llu %14llu %10llu %14llu\n", name,
			   MAJOR(dev), MINOR(dev),
			   IOLAYERS_PERCPU_SUM(iolayers_disk_stats, [i].requests),
			   IOLAYERS_PERCPU_SUM(iolayers_disk_stats, [i].bytes),
			   IOLAYERS_PERCPU_SUM(iolayers_disk_stats, [i].errors),
			   IOLAYERS_PERCPU_SUM(iolayers_disk_stats, [i].service_ns),
			   IOLAYERS_PERCPU_SUM(iolayers_disk_stats, [i].device_requests),
			   IOLAYERS_PERCPU_SUM(iolayers_disk_stats, [i].device_ns));
	}
}

/**
 * iolayers_disks_reset() - Zero every disk's counters (`reset`); the
 *	disks stay known.
 *
 * Context: process context; counts racing with it may survive.
 */
void iolayers_disks_reset(void)
{
	IOLAYERS_PERCPU_ZERO(iolayers_disk_stats);
}
