// SPDX-License-Identifier: GPL-2.0
/*
 * BLOCK layer: bios queued by a followed read are bound to its flow
 * (block_bio_queue, in the reader's context; block_split passes the binding
 * on); requests are bound through their bios wherever they are inserted or
 * issued (the reader, kblockd); completions (hard interrupt) fold each
 * request's queue, service and device latency into the flows it carries.
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/blk-mq.h>
#include <linux/blk_types.h>
#include <linux/ftrace.h>
#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <iolayers/compat.h>
#include <iolayers/disk.h>
#include <iolayers/flow.h>
#include <iolayers/layers.h>
#include <iolayers/probe.h>
#include <trace/events/block.h>
#include <iolayers/request.h>
#include <iolayers/table.h>

IOLAYERS_PROBE_COUNTERS(iolayers_pc_bio_queue);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_throtl);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_bio_remap);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_block_split);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_bio_backmerge);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_bio_frontmerge);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_rq_insert);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_rq_merge);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_rq_issue);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_rq_requeue);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_rq_complete);

/* Prototype of DEFINE_EVENT(block_bio, block_bio_queue) since 5.11. */
static void iolayers_bio_queue(void *data, IOLAYERS_TP_BIO_QUEUE struct bio *bio)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_bio_queue);
	struct iolayers_task_flow *f;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	if (iolayers_table_empty(IOLAYERS_T_TASK) || bio_op(bio) != REQ_OP_READ)
		return;
	iolayers_handler_rcu_lock();
	f = iolayers_flow_here(current->pid);
	if (!f)
		goto out;
	iolayers_hit(&iolayers_pc_bio_queue);
	if (unlikely(iolayers_bio_foreign(f, bio))) {
		/* Not the read's I/O, but the read may wait for it. */
		f->rd.foreign = true;
		iolayers_blk_count(IOLAYERS_BLK_BIO_FOREIGN, 1);
		goto out;
	}
	iolayers_bio_bind(f, bio, true);
out:
	iolayers_handler_rcu_unlock();
}

/*
 * Entry of __blk_throtl_bio(struct bio *), reached only by bios a cgroup's
 * io.max applies to, in the submitter's context and before
 * block_bio_queue: a bio it holds back is queued later by a kworker,
 * where no flow is current, so the reader binds it here (the queue time
 * then includes the throttle's wait). A bio it lets through finds the
 * binding at its block_bio_queue.
 */
static void iolayers_throtl_entry(struct iolayers_fregs *fregs,
				  struct iolayers_probe_pcpu __percpu *pcpu)
{
	IOLAYERS_COST_SCOPE(pcpu);
	struct iolayers_task_flow *f;
	struct bio *bio;

	if (iolayers_table_empty(IOLAYERS_T_TASK))
		return;
	bio = (struct bio *)iolayers_fregs_arg(fregs, 0);
	if (bio_op(bio) != REQ_OP_READ)
		return;
	/* An RCU reader already (iolayers_fentry_run()). */
	f = iolayers_flow_here(current->pid);
	if (!f)
		return;
	iolayers_hit(pcpu);
	/* A foreign bio is counted at its block_bio_queue, if it has one here. */
	if (unlikely(iolayers_bio_foreign(f, bio)))
		f->rd.foreign = true;
	else
		iolayers_bio_bind(f, bio, false);
}

IOLAYERS_DEFINE_FENTRY_IF(iolayers_throtl_fentry, iolayers_pc_throtl, iolayers_throtl_entry,
			  iolayers_flow_maybe_here)

/*
 * Prototype of TRACE_EVENT(block_bio_remap): @bio goes down from a stacked
 * device (@dev, sector @from) to the one below, in any context.
 */
static void iolayers_bio_remap(void *data, IOLAYERS_TP_BIO_QUEUE struct bio *bio, dev_t dev,
			       sector_t from)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_bio_remap);

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	if (iolayers_table_empty(IOLAYERS_T_BIO) || bio_op(bio) != REQ_OP_READ)
		return;
	iolayers_handler_rcu_lock();
	iolayers_hit(&iolayers_pc_bio_remap);
	iolayers_bio_remapped(bio, dev, from);
	iolayers_handler_rcu_unlock();
}

/*
 * Prototype of TRACE_EVENT(block_split). @split is the new front part,
 * chained to the original (split->bi_private), which continues with the
 * rest right after it: both stay bound to the original's flow. The
 * tracepoint's own @new_sector is an unsigned int, cut to 32 bits past
 * 2 TiB: the rest's sector is taken from the front part's end instead.
 */
static void iolayers_block_split(void *data, IOLAYERS_TP_BIO_QUEUE struct bio *split,
				 unsigned int new_sector)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_block_split);
	struct iolayers_bio *parent, *b;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	if (iolayers_table_empty(IOLAYERS_T_BIO) && iolayers_table_empty(IOLAYERS_T_TASK))
		return;
	iolayers_handler_rcu_lock();
	/* The reader splitting its slot's bio: into the table with it first. */
	if (bio_op(split) == REQ_OP_READ)
		iolayers_slot_flush_bio(split->bi_private);
	if (iolayers_table_empty(IOLAYERS_T_BIO))
		goto out;
	parent = iolayers_table_find(IOLAYERS_T_BIO, (unsigned long)split->bi_private);
	if (!parent || parent->sector != split->bi_iter.bi_sector)
		goto out;
	iolayers_hit(&iolayers_pc_block_split);
	b = iolayers_table_alloc(IOLAYERS_T_BIO);
	if (b) {
		b->flow = parent->flow;
		b->sector = split->bi_iter.bi_sector;
		b->queue_ns = parent->queue_ns;
		b->bytes = split->bi_iter.bi_size;
		iolayers_table_insert(IOLAYERS_T_BIO, b, (unsigned long)split);
	}
	parent->sector = bio_end_sector(split);
	parent->bytes -= min(parent->bytes, split->bi_iter.bi_size);
out:
	iolayers_handler_rcu_unlock();
}

/*
 * A bio joins a request already made (the plug's or the I/O scheduler's),
 * in the submitter's context, which takes it in at its next event,
 * wherever that runs: a bio the reader holds in its slot goes into the
 * bio table first.
 */
static __always_inline void iolayers_bio_merge(struct bio *bio,
					       struct iolayers_probe_pcpu __percpu *pcpu)
{
	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	if (iolayers_table_empty(IOLAYERS_T_TASK) || bio_op(bio) != REQ_OP_READ)
		return;
	iolayers_handler_rcu_lock();
	if (iolayers_slot_flush_bio(bio))
		iolayers_hit(pcpu);
	iolayers_handler_rcu_unlock();
}

/* Prototype of DEFINE_EVENT(block_bio, block_bio_backmerge) since 5.11. */
static void iolayers_bio_backmerge(void *data, IOLAYERS_TP_BIO_MERGE struct bio *bio)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_bio_backmerge);

	iolayers_bio_merge(bio, &iolayers_pc_bio_backmerge);
}

/* Prototype of DEFINE_EVENT(block_bio, block_bio_frontmerge) since 5.11. */
static void iolayers_bio_frontmerge(void *data, IOLAYERS_TP_BIO_MERGE struct bio *bio)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_bio_frontmerge);

	iolayers_bio_merge(bio, &iolayers_pc_bio_frontmerge);
}

/* Prototype of DEFINE_EVENT(block_rq, block_rq_insert). */
static void iolayers_rq_insert(void *data, struct request *rq)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_rq_insert);
	struct iolayers_rq *r;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	iolayers_handler_rcu_lock();
	r = iolayers_rq_bind(rq);
	if (r) {
		iolayers_hit(&iolayers_pc_rq_insert);
		if (!r->first_issue_ns)
			r->insert_ns = ktime_get_ns();
	}
	iolayers_handler_rcu_unlock();
}

/*
 * Prototype of DEFINE_EVENT(block_rq, block_rq_merge): @rq is merged into
 * another request (attempt_merge(), before either is issued) and goes away;
 * when the scheduler merges a request as it is inserted, in the context
 * that made it, which may hold its bio in its slot.
 */
static void iolayers_rq_merge(void *data, struct request *rq)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_rq_merge);

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	if (iolayers_table_empty(IOLAYERS_T_RQ) && iolayers_table_empty(IOLAYERS_T_TASK))
		return;
	iolayers_handler_rcu_lock();
	iolayers_hit(&iolayers_pc_rq_merge);
	iolayers_rq_merged(rq);
	iolayers_handler_rcu_unlock();
}

/* Prototype of DEFINE_EVENT(block_rq, block_rq_issue). */
static void iolayers_rq_issue(void *data, struct request *rq)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_rq_issue);
	struct iolayers_rq *r;
	u64 now;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	iolayers_handler_rcu_lock();
	r = iolayers_rq_bind(rq);
	if (r) {
		iolayers_hit(&iolayers_pc_rq_issue);
		now = ktime_get_ns();
		if (!r->first_issue_ns) {
			r->first_issue_ns = now;
			r->queue_lat = now - (r->insert_ns ?: r->queue_ns);
		}
		r->issue_ns = now;
		r->requeued = false;
	}
	iolayers_handler_rcu_unlock();
}

/* Prototype of TRACE_EVENT(block_rq_requeue). */
static void iolayers_rq_requeue(void *data, struct request *rq)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_rq_requeue);
	struct iolayers_rq *r;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	iolayers_handler_rcu_lock();
	/* Back to the dispatch list, which a worker may issue from. */
	iolayers_slot_take(rq);
	r = iolayers_rq_find(rq);
	if (r) {
		iolayers_hit(&iolayers_pc_rq_requeue);
		iolayers_blk_count(IOLAYERS_BLK_RQ_REQUEUED, 1);
		r->requeues++;
		r->requeued = true;
		r->setup_ns = 0;
	}
	iolayers_handler_rcu_unlock();
}

/* Fold a completed request into one flow it carried, or count it late. */
static void iolayers_rq_fold(const struct iolayers_rq *r, unsigned int i, u64 now, bool error)
{
	if (!iolayers_flow_fold_rq(r, i, now, error)) {
		iolayers_blk_count(IOLAYERS_BLK_RQ_LATE, 1);
		iolayers_blk_count(IOLAYERS_BLK_LATE_BYTES, r->bytes[i]);
	}
}

/* Prototype of DEFINE_EVENT(block_rq_completion, block_rq_complete). */
static void iolayers_rq_complete(void *data, struct request *rq, iolayers_tp_status_t error,
				 unsigned int nr_bytes)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_rq_complete);
	struct iolayers_rq *r;
	unsigned int i;
	u64 now;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	iolayers_handler_rcu_lock();
	r = iolayers_rq_find(rq);
	if (!r || !r->issue_ns)
		goto out;
	iolayers_hit(&iolayers_pc_rq_complete);
	if (nr_bytes < blk_rq_bytes(rq)) {
		/* More completions of this request follow, from a later sector. */
		iolayers_blk_count(IOLAYERS_BLK_RQ_PARTIAL, 1);
		r->sector += nr_bytes >> SECTOR_SHIFT;
		goto out;
	}
	now = ktime_get_ns();
	if (iolayers_table_del(IOLAYERS_T_RQ, r)) {
		iolayers_disk_complete(r, now, error != BLK_STS_OK);
		for (i = 0; i < r->nr_flows; i++)
			iolayers_rq_fold(r, i, now, error != BLK_STS_OK);
	}
out:
	iolayers_handler_rcu_unlock();
}

/* The handlers' prototypes against the kernel's (never called). */
static void __maybe_unused iolayers_block_check_types(void)
{
	IOLAYERS_TP_CHECK(block_bio_queue, iolayers_bio_queue);
	IOLAYERS_TP_CHECK(block_bio_remap, iolayers_bio_remap);
	IOLAYERS_TP_CHECK(block_split, iolayers_block_split);
	IOLAYERS_TP_CHECK(block_bio_backmerge, iolayers_bio_backmerge);
	IOLAYERS_TP_CHECK(block_bio_frontmerge, iolayers_bio_frontmerge);
	IOLAYERS_TP_CHECK(block_rq_insert, iolayers_rq_insert);
	IOLAYERS_TP_CHECK(block_rq_merge, iolayers_rq_merge);
	IOLAYERS_TP_CHECK(block_rq_issue, iolayers_rq_issue);
	IOLAYERS_TP_CHECK(block_rq_requeue, iolayers_rq_requeue);
	IOLAYERS_TP_CHECK(block_rq_complete, iolayers_rq_complete);
}

static struct iolayers_probe iolayers_block_probes[] = {
	/* Only where the kernel has blk-throttle (CONFIG_BLK_DEV_THROTTLING). */
	IOLAYERS_FENTRY("__blk_throtl_bio", iolayers_throtl_fentry, iolayers_pc_throtl,
			.optional = true, .missed_layer = IOLAYERS_MISSED_BLOCK),
	IOLAYERS_TRACEPOINT("block_bio_queue", iolayers_bio_queue, iolayers_pc_bio_queue),
	IOLAYERS_TRACEPOINT("block_bio_remap", iolayers_bio_remap, iolayers_pc_bio_remap),
	IOLAYERS_TRACEPOINT("block_split", iolayers_block_split, iolayers_pc_block_split),
	IOLAYERS_TRACEPOINT("block_bio_backmerge", iolayers_bio_backmerge,
			    iolayers_pc_bio_backmerge),
	IOLAYERS_TRACEPOINT("block_bio_frontmerge", iolayers_bio_frontmerge,
			    iolayers_pc_bio_frontmerge),
	/* Often skipped for NVMe without an I/O scheduler. */
	IOLAYERS_TRACEPOINT("block_rq_insert", iolayers_rq_insert, iolayers_pc_rq_insert,
			    .optional = true),
	IOLAYERS_TRACEPOINT("block_rq_merge", iolayers_rq_merge, iolayers_pc_rq_merge,
			    .optional = true),
	IOLAYERS_TRACEPOINT("block_rq_issue", iolayers_rq_issue, iolayers_pc_rq_issue),
	IOLAYERS_TRACEPOINT("block_rq_requeue", iolayers_rq_requeue, iolayers_pc_rq_requeue),
	IOLAYERS_TRACEPOINT("block_rq_complete", iolayers_rq_complete, iolayers_pc_rq_complete),
};

/*
 * The BLOCK layer's start, its probes attached: a read's bio may wait in
 * its flow's slot (request.c) only when every event that moves a slot
 * into the bio table fires: the merges, a split, a requeue and the
 * scheduler's insert.
 */
static void iolayers_block_start(void)
{
	static const char * const needed[] = {
		"block_split", "block_bio_backmerge", "block_bio_frontmerge", "block_rq_insert",
		"block_rq_merge", "block_rq_requeue",
	};
	unsigned int i, k, n = 0;

	for (i = 0; i < ARRAY_SIZE(iolayers_block_probes); i++)
		for (k = 0; k < ARRAY_SIZE(needed); k++)
			if (!strcmp(iolayers_block_probes[i].name, needed[k]) &&
			    iolayers_block_probes[i].state == IOLAYERS_PROBE_ATTACHED)
				n++;
	WRITE_ONCE(iolayers_bio_slot_ready, n == ARRAY_SIZE(needed));
	iolayers_requests_start();
}

/* Its stop, before its probes are detached. */
static void iolayers_block_stop(void)
{
	WRITE_ONCE(iolayers_bio_slot_ready, false);
	iolayers_requests_stop();
}

/* The BLOCK layer: bios and requests of followed reads, and their expiry. */
struct iolayers_layer_probes iolayers_block_layer = {
	.name = "BLOCK",
	.probes = iolayers_block_probes,
	.nr_probes = ARRAY_SIZE(iolayers_block_probes),
	.start = iolayers_block_start,
	.stop = iolayers_block_stop,
};
