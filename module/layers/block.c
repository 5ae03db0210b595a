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
#include <linux/ktime.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>
#include <iolayers/iolayers.h>
#include <iolayers/flow.h>
#include <iolayers/table.h>
#include <iolayers/layers.h>
#include <iolayers/probe.h>

IOLAYERS_PROBE_COUNTERS(iolayers_pc_bio_queue);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_block_split);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_rq_insert);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_rq_issue);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_rq_requeue);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_rq_complete);

/**
 * enum iolayers_blk_counter - BLOCK layer events shown in `stats`.
 * @IOLAYERS_BLK_RQ_BOUND: requests that carried a followed read's bio
 * @IOLAYERS_BLK_RQ_LATE: (request, flow) pairs completed after the read
 *	returned (async readahead nobody waited for)
 * @IOLAYERS_BLK_LATE_BYTES: their bytes
 * @IOLAYERS_BLK_RQ_OVERFLOW: bios of more flows than a request entry holds
 * @IOLAYERS_BLK_RQ_PARTIAL: partial completions
 * @IOLAYERS_BLK_RQ_REQUEUED: requeues of bound requests
 * @IOLAYERS_BLK_BIO_STALE: bios whose entry no longer matched (reused)
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
	IOLAYERS_NR_BLK_COUNTERS,
};

static const char * const iolayers_blk_counter_names[IOLAYERS_NR_BLK_COUNTERS] = {
	[IOLAYERS_BLK_RQ_BOUND] = "requests_bound",
	[IOLAYERS_BLK_RQ_LATE] = "requests_late",
	[IOLAYERS_BLK_LATE_BYTES] = "late_bytes",
	[IOLAYERS_BLK_RQ_OVERFLOW] = "flow_overflow",
	[IOLAYERS_BLK_RQ_PARTIAL] = "partial_completions",
	[IOLAYERS_BLK_RQ_REQUEUED] = "requeues",
	[IOLAYERS_BLK_BIO_STALE] = "bio_reused",
};

static DEFINE_PER_CPU(u64 [IOLAYERS_NR_BLK_COUNTERS], iolayers_blk_counters);

/* Entries of the bio and request tables older than this are expired. */
unsigned int iolayers_expire_ms = 10000;

static void iolayers_blk_count(enum iolayers_blk_counter c, u64 n)
{
	this_cpu_add(iolayers_blk_counters[c], n);
}

/**
 * iolayers_block_counter() - A BLOCK counter summed over CPUs.
 * @which: index, 0 up to the first for which iolayers_block_counter_name()
 *	is NULL
 *
 * Return: the count.
 */
u64 iolayers_block_counter(int which)
{
	return IOLAYERS_PERCPU_SUM(iolayers_blk_counters, [which]);
}

/**
 * iolayers_block_counter_name() - Name of a BLOCK counter in `stats`.
 * @which: index
 *
 * Return: a static string, NULL past the last counter.
 */
const char *iolayers_block_counter_name(int which)
{
	return which < IOLAYERS_NR_BLK_COUNTERS ? iolayers_blk_counter_names[which] : NULL;
}

/**
 * iolayers_block_reset() - Zero the BLOCK counters.
 *
 * Context: process context; counts racing with it may survive.
 */
void iolayers_block_reset(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&iolayers_blk_counters, cpu), 0,
		       sizeof(iolayers_blk_counters));
}

/* Prototype of DEFINE_EVENT(block_bio, block_bio_queue) since 5.11. */
static void iolayers_bio_queue(void *data, struct bio *bio)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_bio_queue);
	struct iolayers_task_flow *f;
	struct iolayers_bio *b;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	if (iolayers_table_empty(IOLAYERS_T_TASK) || bio_op(bio) != REQ_OP_READ)
		return;
	rcu_read_lock();
	f = iolayers_flow_find(current->pid);
	if (!f)
		goto out;
	iolayers_hit(&iolayers_pc_bio_queue);
	b = iolayers_table_find(IOLAYERS_T_BIO, (unsigned long)bio);
	if (b && iolayers_table_del(IOLAYERS_T_BIO, b))
		iolayers_table_drop(IOLAYERS_T_BIO, IOLAYERS_DROP_STALE);
	b = iolayers_table_add(IOLAYERS_T_BIO, (unsigned long)bio);
	if (!b)
		goto out;
	b->flow.tid = f->tid;
	b->flow.seq = f->seq;
	b->sector = bio->bi_iter.bi_sector;
	b->queue_ns = b->e.born_ns;
	b->bytes = bio->bi_iter.bi_size;
	iolayers_flow_add_bio(f, b->bytes, b->queue_ns);
out:
	rcu_read_unlock();
}

/*
 * Prototype of TRACE_EVENT(block_split). @split is the new front part,
 * chained to the original (split->bi_private), which continues at
 * @new_sector with the rest: both stay bound to the original's flow.
 */
static void iolayers_block_split(void *data, struct bio *split, unsigned int new_sector)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_block_split);
	struct iolayers_bio *parent, *b;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	if (iolayers_table_empty(IOLAYERS_T_BIO))
		return;
	rcu_read_lock();
	parent = iolayers_table_find(IOLAYERS_T_BIO, (unsigned long)split->bi_private);
	if (!parent || parent->sector != split->bi_iter.bi_sector)
		goto out;
	iolayers_hit(&iolayers_pc_block_split);
	b = iolayers_table_add(IOLAYERS_T_BIO, (unsigned long)split);
	if (b) {
		b->flow = parent->flow;
		b->sector = split->bi_iter.bi_sector;
		b->queue_ns = parent->queue_ns;
		b->bytes = split->bi_iter.bi_size;
	}
	parent->sector = new_sector;
	parent->bytes -= min(parent->bytes, split->bi_iter.bi_size);
out:
	rcu_read_unlock();
}

/*
 * Move the request's bios that are in the bio table into its entry,
 * creating the entry at the first one. Bios merged into a request after it
 * was first seen are picked up at the next call.
 */
static struct iolayers_rq *iolayers_rq_take_bios(struct request *rq, struct iolayers_rq *r)
{
	struct iolayers_bio *b;
	struct bio *bio;

	if (iolayers_table_empty(IOLAYERS_T_BIO))
		return r;
	for (bio = rq->bio; bio; bio = bio->bi_next) {
		b = iolayers_table_find(IOLAYERS_T_BIO, (unsigned long)bio);
		if (!b)
			continue;
		if (b->sector != bio->bi_iter.bi_sector) {
			if (iolayers_table_del(IOLAYERS_T_BIO, b))
				iolayers_blk_count(IOLAYERS_BLK_BIO_STALE, 1);
			continue;
		}
		if (!r) {
			r = iolayers_table_add(IOLAYERS_T_RQ, (unsigned long)rq);
			if (!r)
				return NULL;
			r->sector = blk_rq_pos(rq);
			r->queue_ns = b->queue_ns;
			iolayers_blk_count(IOLAYERS_BLK_RQ_BOUND, 1);
		}
		if (iolayers_table_del(IOLAYERS_T_BIO, b) && !iolayers_rq_add_bio(r, b))
			iolayers_blk_count(IOLAYERS_BLK_RQ_OVERFLOW, 1);
	}
	return r;
}

/**
 * iolayers_rq_find() - The entry of a request, if it carries followed bios.
 * @rq: the request
 *
 * An entry left by an earlier life of the same request (its completion was
 * not seen: the sector differs) is removed and counted as stale.
 *
 * Context: any, under rcu_read_lock().
 * Return: the entry, or NULL.
 */
struct iolayers_rq *iolayers_rq_find(struct request *rq)
{
	struct iolayers_rq *r;

	if (iolayers_table_empty(IOLAYERS_T_RQ))
		return NULL;
	r = iolayers_table_find(IOLAYERS_T_RQ, (unsigned long)rq);
	if (r && iolayers_rq_other_life(r, blk_rq_pos(rq), false)) {
		if (iolayers_table_del(IOLAYERS_T_RQ, r))
			iolayers_table_drop(IOLAYERS_T_RQ, IOLAYERS_DROP_STALE);
		r = NULL;
	}
	return r;
}

/**
 * iolayers_rq_bind() - Find or create a request's entry from its bios.
 * @rq: the request, being inserted, set up by the driver or issued
 *
 * Context: any, under rcu_read_lock().
 * Return: the entry, or NULL when it carries no followed bio.
 */
struct iolayers_rq *iolayers_rq_bind(struct request *rq)
{
	struct iolayers_rq *r = iolayers_rq_find(rq);

	if (r && iolayers_rq_other_life(r, blk_rq_pos(rq), true)) {
		if (iolayers_table_del(IOLAYERS_T_RQ, r))
			iolayers_table_drop(IOLAYERS_T_RQ, IOLAYERS_DROP_STALE);
		r = NULL;
	}
	return iolayers_rq_take_bios(rq, r);
}

/* Prototype of DEFINE_EVENT(block_rq, block_rq_insert). */
static void iolayers_rq_insert(void *data, struct request *rq)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_rq_insert);
	struct iolayers_rq *r;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	rcu_read_lock();
	r = iolayers_rq_bind(rq);
	if (r) {
		iolayers_hit(&iolayers_pc_rq_insert);
		if (!r->first_issue_ns)
			r->insert_ns = ktime_get_ns();
	}
	rcu_read_unlock();
}

/* Prototype of DEFINE_EVENT(block_rq, block_rq_issue). */
static void iolayers_rq_issue(void *data, struct request *rq)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_rq_issue);
	struct iolayers_rq *r;
	u64 now;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	rcu_read_lock();
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
	rcu_read_unlock();
}

/* Prototype of TRACE_EVENT(block_rq_requeue). */
static void iolayers_rq_requeue(void *data, struct request *rq)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_rq_requeue);
	struct iolayers_rq *r;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	rcu_read_lock();
	r = iolayers_rq_find(rq);
	if (r) {
		iolayers_hit(&iolayers_pc_rq_requeue);
		iolayers_blk_count(IOLAYERS_BLK_RQ_REQUEUED, 1);
		r->requeues++;
		r->requeued = true;
		r->setup_ns = 0;
	}
	rcu_read_unlock();
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
static void iolayers_rq_complete(void *data, struct request *rq, blk_status_t error,
				 unsigned int nr_bytes)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_rq_complete);
	struct iolayers_rq *r;
	unsigned int i;
	u64 now;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	rcu_read_lock();
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
	if (iolayers_table_del(IOLAYERS_T_RQ, r))
		for (i = 0; i < r->nr_flows; i++)
			iolayers_rq_fold(r, i, now, error != BLK_STS_OK);
out:
	rcu_read_unlock();
}

static void iolayers_expire_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(iolayers_expire_work, iolayers_expire_fn);

/**
 * iolayers_block_expire() - Expire old bio and request entries now.
 *
 * Bios that never reached a request we saw, or requests whose completion
 * we missed, would otherwise stay until unload.
 *
 * Context: process context.
 */
void iolayers_block_expire(void)
{
	u64 age = (u64)READ_ONCE(iolayers_expire_ms) * NSEC_PER_MSEC;

	iolayers_table_expire(IOLAYERS_T_BIO, age);
	iolayers_table_expire(IOLAYERS_T_RQ, age);
}

static void iolayers_expire_fn(struct work_struct *work)
{
	iolayers_block_expire();
	schedule_delayed_work(&iolayers_expire_work, HZ);
}

static void iolayers_block_start(void)
{
	schedule_delayed_work(&iolayers_expire_work, HZ);
}

static void iolayers_block_stop(void)
{
	cancel_delayed_work_sync(&iolayers_expire_work);
}

static struct iolayers_probe iolayers_block_probes[] = {
	IOLAYERS_TRACEPOINT("block_bio_queue", iolayers_bio_queue, iolayers_pc_bio_queue),
	IOLAYERS_TRACEPOINT("block_split", iolayers_block_split, iolayers_pc_block_split),
	/* Often skipped for NVMe without an I/O scheduler. */
	IOLAYERS_TRACEPOINT("block_rq_insert", iolayers_rq_insert, iolayers_pc_rq_insert,
			    .optional = true),
	IOLAYERS_TRACEPOINT("block_rq_issue", iolayers_rq_issue, iolayers_pc_rq_issue),
	IOLAYERS_TRACEPOINT("block_rq_requeue", iolayers_rq_requeue, iolayers_pc_rq_requeue),
	IOLAYERS_TRACEPOINT("block_rq_complete", iolayers_rq_complete, iolayers_pc_rq_complete),
};

/* The BLOCK layer: bios and requests of followed reads, and their expiry. */
struct iolayers_layer_probes iolayers_block_layer = {
	.name = "BLOCK",
	.probes = iolayers_block_probes,
	.nr_probes = ARRAY_SIZE(iolayers_block_probes),
	.start = iolayers_block_start,
	.stop = iolayers_block_stop,
};
