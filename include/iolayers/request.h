/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Requests bound to flows (request.c): the bios a followed read queued,
 * the requests that carry them, and the BLOCK counters. Shared by the
 * layers that see requests: BLOCK and the device layers.
 */
#ifndef _IOLAYERS_REQUEST_H
#define _IOLAYERS_REQUEST_H

#include <linux/types.h>
#include <linux/percpu.h>
#include <linux/blk-mq.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <iolayers/flow.h>
#include <iolayers/table.h>

struct bio;
struct request;

/**
 * struct iolayers_bio - A bio queued by a followed read, not yet in a
 * request that was seen.
 * @e: table entry, keyed by the bio's address; or, for a bio of a stacked
 *	(bio-based) device, by its device and sector (@dev set), until it is
 *	remapped to the device below
 * @flow: the read that queued it
 * @dev: the stacked device, 0 for a bio keyed by address
 * @sector: its first sector, to tell a reused bio apart (on @dev: where
 *	the part not yet remapped starts)
 * @queue_ns: when the read's bio was first queued (the top of a stack)
 * @bytes: its size when queued (on @dev: the part not yet remapped)
 */
struct iolayers_bio {
	struct iolayers_entry e;
	struct iolayers_flow_ref flow;
	dev_t dev;
	sector_t sector;
	u64 queue_ns;
	u32 bytes;
};

#define IOLAYERS_RQ_FLOWS	4

/**
 * struct iolayers_rq - A request carrying bios of followed reads.
 * @e: table entry, keyed by the request's address
 * @sector: its first sector when bound, to tell a reused request apart
 * @nr_flows: entries used in @flows
 * @flows: the reads whose bios it carries (merges)
 * @bytes: bytes of each flow's bios in it
 * @queue_ns: insert, or else its earliest bio's queue time
 * @insert_ns: block_rq_insert, 0 if it went straight to the driver
 * @first_issue_ns: the first block_rq_issue
 * @issue_ns: the latest block_rq_issue
 * @queue_lat: queue latency, fixed at the first issue
 * @setup_ns: the latest time the driver handed it to the device
 *	(nvme_setup_cmd, scsi_dispatch_cmd_start), 0 on other devices
 * @devdone_ns: the device's completion (nvme_complete_rq,
 *	scsi_dispatch_cmd_done), 0 if not seen
 * @requeues: times it was requeued
 * @requeued: requeued and not yet issued again
 * @disk: its disk's id in the table of disks (disk.c), 0 if none
 */
struct iolayers_rq {
	struct iolayers_entry e;
	sector_t sector;
	unsigned int nr_flows;
	struct iolayers_flow_ref flows[IOLAYERS_RQ_FLOWS];
	u32 bytes[IOLAYERS_RQ_FLOWS];
	u64 queue_ns;
	u64 insert_ns;
	u64 first_issue_ns;
	u64 issue_ns;
	u64 queue_lat;
	u64 setup_ns;
	u64 devdone_ns;
	u32 requeues;
	bool requeued;
	u8 disk;
};

/**
 * enum iolayers_blk_counter - BLOCK layer events shown in `stats`.
 * @IOLAYERS_BLK_RQ_BOUND: requests that carried a followed read's bio
 * @IOLAYERS_BLK_RQ_LATE: (request, flow) pairs completed after the read
 *	returned (async readahead nobody waited for)
 * @IOLAYERS_BLK_LATE_BYTES: their bytes
 * @IOLAYERS_BLK_RQ_OVERFLOW: bios of more flows than a request entry holds
 *	(or, at a request merge, than the merged request's bios can carry)
 * @IOLAYERS_BLK_RQ_PARTIAL: partial completions
 * @IOLAYERS_BLK_RQ_REQUEUED: requeues of bound requests
 * @IOLAYERS_BLK_BIO_STALE: bios whose entry no longer matched (reused)
 * @IOLAYERS_BLK_RQ_MERGED: bound requests merged into another one
 * @IOLAYERS_BLK_BIO_REMAPPED: bios of a stacked device remapped (or cloned)
 *	to the device below
 * @IOLAYERS_BLK_DISK_OVERFLOW: bound requests to a disk beyond the
 *	IOLAYERS_MAX_DISKS the table of disks holds (no disk in their flows)
 * @IOLAYERS_BLK_BIO_FOREIGN: bios a followed read's task queued that were
 *	not its file's (swap-in, another file's page): not bound
 * @IOLAYERS_NR_BLK_COUNTERS: number of counters
 */
enum iolayers_blk_counter {
	IOLAYERS_BLK_RQ_BOUND,
	IOLAYERS_BLK_RQ_LATE,
	IOLAYERS_BLK_LATE_BYTES,
	IOLAYERS_BLK_RQ_OVERFLOW,
	IOLAYERS_BLK_RQ_PARTIAL,
	IOLAYERS_BLK_RQ_REQUEUED,
	IOLAYERS_BLK_BIO_STALE,
	IOLAYERS_BLK_RQ_MERGED,
	IOLAYERS_BLK_BIO_REMAPPED,
	IOLAYERS_BLK_DISK_OVERFLOW,
	IOLAYERS_BLK_BIO_FOREIGN,
	IOLAYERS_NR_BLK_COUNTERS,
};

DECLARE_PER_CPU(u64 [IOLAYERS_NR_BLK_COUNTERS], iolayers_blk_counters);

/* Count a BLOCK event: one per-CPU add, inline in the probes. */
static inline void iolayers_blk_count(enum iolayers_blk_counter c, u64 n)
{
	this_cpu_add(iolayers_blk_counters[c], n);
}

extern unsigned int iolayers_expire_ms;
extern bool iolayers_bio_slot_ready;

bool iolayers_bio_foreign(const struct iolayers_task_flow *f, struct bio *bio);
void iolayers_bio_bind(struct iolayers_task_flow *f, struct bio *bio, bool slot);
void iolayers_bio_slot_flush(struct iolayers_task_flow *f);

/**
 * iolayers_slot_here() - The current task's read in flight, when it holds
 *	a bio in its slot (struct iolayers_bio_slot).
 *
 * Asked by a request's binding, in any context: only the reader itself
 * makes a request of its slot's bio (an interrupt that comes while the
 * reader fills or empties its slot does not look), and a task this CPU
 * knows to have no read in flight is sent back at once.
 *
 * Context: in an RCU read-side critical section.
 * Return: the flow, or NULL.
 */
static __always_inline struct iolayers_task_flow *iolayers_slot_here(void)
{
	struct iolayers_task_flow *f;

	if (!in_task() || (current->flags & PF_KTHREAD) || !iolayers_flow_maybe_here())
		return NULL;
	f = iolayers_flow_here(current->pid);
	return f && f->task == current && f->slot.bio ? f : NULL;
}

/**
 * iolayers_slot_flush_bio() - Move the current reader's slot bio into the
 *	bio table if it is @bio.
 * @bio: a bio at an event after which another context may bind it (a
 *	merge into a request already made; the original of a split)
 *
 * Context: in an RCU read-side critical section.
 * Return: true when the slot held @bio.
 */
static inline bool iolayers_slot_flush_bio(const void *bio)
{
	struct iolayers_task_flow *f = iolayers_slot_here();

	if (!f || f->slot.bio != bio)
		return false;
	iolayers_bio_slot_flush(f);
	return true;
}

/**
 * iolayers_slot_take() - Move the current reader's slot bio into the bio
 *	table if @rq carries it.
 * @rq: a read request at an event after which another context may make
 *	its binding (a requeue: it goes back onto the dispatch list)
 *
 * Context: in an RCU read-side critical section.
 */
static inline void iolayers_slot_take(struct request *rq)
{
	struct iolayers_task_flow *f;
	struct bio *bio;

	if (req_op(rq) != REQ_OP_READ)
		return;
	f = iolayers_slot_here();
	for (bio = f ? rq->bio : NULL; bio; bio = bio->bi_next) {
		if (bio == f->slot.bio) {
			iolayers_bio_slot_flush(f);
			return;
		}
	}
}

void iolayers_bio_remapped(struct bio *bio, dev_t dev, sector_t from);
struct iolayers_rq *iolayers_rq_find(struct request *rq);
struct iolayers_rq *iolayers_rq_bind(struct request *rq);
void iolayers_rq_merged(struct request *next);
u64 iolayers_blk_counter(int which);
const char *iolayers_blk_counter_name(int which);
void iolayers_blk_counters_reset(void);
void iolayers_requests_start(void);
void iolayers_requests_stop(void);

#if IS_ENABLED(CONFIG_KUNIT)
/* Static in the module; visible to the KUnit tests (compat.h). */
bool iolayers_rq_add_bio(struct iolayers_rq *r, const struct iolayers_bio *b);
bool iolayers_rq_other_life(const struct iolayers_rq *r, sector_t pos, bool issuing);
#endif

#endif /* _IOLAYERS_REQUEST_H */
