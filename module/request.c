// SPDX-License-Identifier: GPL-2.0
/*
 * Requests bound to flows: a bio a followed read queued is kept in the bio
 * table until a request carrying it is seen (inserted, set up by a driver
 * or issued, wherever that runs); the request's entry then holds the flows
 * of all its bios (merges), until it completes. Entries whose end was
 * never seen expire. Any layer that sees requests binds them here.
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/blk-mq.h>
#include <linux/blk_types.h>
#include <linux/export.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <iolayers/compat.h>
#include <iolayers/disk.h>
#include <iolayers/flow.h>
#include <iolayers/percpu.h>
#include <iolayers/request.h>
#include <iolayers/table.h>

static const char * const iolayers_blk_counter_names[IOLAYERS_NR_BLK_COUNTERS] = {
	[IOLAYERS_BLK_RQ_BOUND] = "requests_bound",
	[IOLAYERS_BLK_RQ_LATE] = "requests_late",
	[IOLAYERS_BLK_LATE_BYTES] = "late_bytes",
	[IOLAYERS_BLK_RQ_OVERFLOW] = "flow_overflow",
	[IOLAYERS_BLK_RQ_PARTIAL] = "partial_completions",
	[IOLAYERS_BLK_RQ_REQUEUED] = "requeues",
	[IOLAYERS_BLK_BIO_STALE] = "bio_reused",
	[IOLAYERS_BLK_RQ_MERGED] = "requests_merged",
	[IOLAYERS_BLK_BIO_REMAPPED] = "bios_remapped",
	[IOLAYERS_BLK_DISK_OVERFLOW] = "disk_overflow",
	[IOLAYERS_BLK_BIO_FOREIGN] = "bios_foreign",
};

DEFINE_PER_CPU(u64 [IOLAYERS_NR_BLK_COUNTERS], iolayers_blk_counters);

/* Entries of the bio and request tables older than this are expired. */
unsigned int iolayers_expire_ms = 10000;

/*
 * A read's bio may wait in its flow's slot: every event that moves a slot
 * into the bio table is attached (layers/block.c sets it at its start).
 */
bool iolayers_bio_slot_ready;

/**
 * iolayers_blk_counter() - A BLOCK counter summed over CPUs.
 * @which: index, 0 up to the first for which iolayers_blk_counter_name()
 *	is NULL
 *
 * Return: the count.
 */
u64 iolayers_blk_counter(int which)
{
	return IOLAYERS_PERCPU_SUM(iolayers_blk_counters, [which]);
}

/**
 * iolayers_blk_counter_name() - Name of a BLOCK counter in `stats`.
 * @which: index
 *
 * Return: a static string, NULL past the last counter.
 */
const char *iolayers_blk_counter_name(int which)
{
	return which < IOLAYERS_NR_BLK_COUNTERS ? iolayers_blk_counter_names[which] : NULL;
}

/**
 * iolayers_blk_counters_reset() - Zero the BLOCK counters.
 *
 * Context: process context; counts racing with it may survive.
 */
void iolayers_blk_counters_reset(void)
{
	IOLAYERS_PERCPU_ZERO(iolayers_blk_counters);
}

/* A bound bio of @flow, @bytes long, queued at @queue_ns, into @r. */
static bool iolayers_rq_add(struct iolayers_rq *r, const struct iolayers_flow_ref *flow,
			    u32 bytes, u64 queue_ns)
{
	unsigned int i;

	for (i = 0; i < r->nr_flows; i++)
		if (r->flows[i].seq == flow->seq && r->flows[i].key == flow->key)
			break;
	if (i == IOLAYERS_RQ_FLOWS)
		return false;
	if (i == r->nr_flows) {
		r->flows[i] = *flow;
		r->nr_flows++;
	}
	r->bytes[i] += bytes;
	if (!r->queue_ns || queue_ns < r->queue_ns)
		r->queue_ns = queue_ns;
	return true;
}

/**
 * iolayers_rq_add_bio() - Add a bound bio to its request's entry.
 * @r: the request's entry
 * @b: the bio's entry (its flow and bytes)
 *
 * Bios of one flow share a slot; the request's queue start is its earliest
 * bio's queue time.
 *
 * Context: any.
 * Return: false when the entry already holds IOLAYERS_RQ_FLOWS other flows
 * (the bio is not attributed).
 */
VISIBLE_IF_KUNIT bool __maybe_unused
iolayers_rq_add_bio(struct iolayers_rq *r, const struct iolayers_bio *b)
{
	return iolayers_rq_add(r, &b->flow, b->bytes, b->queue_ns);
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_rq_add_bio);

/**
 * iolayers_rq_other_life() - Is a request's entry left from an earlier use?
 * @r: the entry found for the request's address
 * @pos: the request's first sector now
 * @issuing: the request is being inserted, set up or issued (not
 *	requeued or completed)
 *
 * Requests are reused per tag: an entry whose completion was missed must
 * not be mistaken for the new request. Before it completes, a request's
 * first sector moves only with a front merge (before issue) or a partial
 * completion, which the entry follows: so an entry is another life when,
 * completing, the sector differs, or when an entry already issued is
 * issued again without a requeue in between. An entry of a request
 * merged into another is removed at the merge (iolayers_rq_merged()).
 *
 * Context: any.
 * Return: true when @r does not describe the request now.
 */
VISIBLE_IF_KUNIT bool iolayers_rq_other_life(const struct iolayers_rq *r, sector_t pos,
					     bool issuing)
{
	if (issuing)
		return r->first_issue_ns && !r->requeued;
	return r->sector != pos;
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_rq_other_life);

/*
 * A stacked device's bio is found by its device and sector: a 32-bit hash
 * of them, made odd so that it never equals a bio's address; the entry's
 * @dev and @sector tell a collision apart.
 */
static unsigned long iolayers_stacked_key(dev_t dev, sector_t sector)
{
	return (unsigned long)hash_64(((u64)dev << 40) ^ sector, 32) << 1 | 1;
}

static struct iolayers_bio *iolayers_stacked_find(dev_t dev, sector_t sector)
{
	struct iolayers_bio *b = iolayers_table_find(IOLAYERS_T_BIO,
						     iolayers_stacked_key(dev, sector));

	return b && b->dev == dev && b->sector == sector ? b : NULL;
}

/* Does a bio on this device become a request, or is it remapped first? */
static bool iolayers_bio_stacked(const struct bio *bio)
{
	return !queue_is_mq(iolayers_bio_queue_of(bio));
}

/*
 * May a bio the reader queues wait in its flow's slot? Only where the
 * request made of it is first seen in the reader's own context, or at an
 * event there that moves it into the table: a device that makes requests
 * (not stacked), whose driver has no dispatch budget (SCSI's: a request
 * that finds none goes onto the dispatch list with no event at all, and
 * a worker issues it), while every event that may move it is attached
 * (iolayers_bio_slot_ready).
 */
static bool iolayers_bio_slot_ok(const struct bio *bio)
{
	struct request_queue *q = iolayers_bio_queue_of(bio);

	return READ_ONCE(iolayers_bio_slot_ready) && queue_is_mq(q) && !q->mq_ops->get_budget;
}

/*
 * Add a bio of @flow: keyed by its address where it becomes a request, by
 * its device and sector on a stacked device. Only bios of the first kind
 * count in the flow: a stacked device's bio comes back as its remaps. @f
 * is the flow's entry when the caller has it (the reader), else NULL.
 */
static void iolayers_bio_add(const struct iolayers_flow_ref *flow, struct iolayers_task_flow *f,
			     struct bio *bio, u64 queue_ns)
{
	struct iolayers_bio *b = iolayers_table_alloc(IOLAYERS_T_BIO);
	bool stacked = iolayers_bio_stacked(bio);

	if (!b) {
		iolayers_flow_lost_blk(flow);
		return;
	}
	b->flow = *flow;
	b->sector = bio->bi_iter.bi_sector;
	b->queue_ns = queue_ns ?: b->e.born_ns;
	b->bytes = bio->bi_iter.bi_size;
	if (stacked) {
		b->dev = bio_dev(bio);
		iolayers_table_insert(IOLAYERS_T_BIO, b, iolayers_stacked_key(b->dev, b->sector));
		return;
	}
	iolayers_table_insert(IOLAYERS_T_BIO, b, (unsigned long)bio);
	if (!f)
		f = iolayers_flow_get(flow);
	if (f)
		iolayers_flow_add_bio(f, flow->seq, b->bytes, b->queue_ns);
}

/**
 * iolayers_bio_foreign() - Is a bio the reader queues not its read's?
 * @f: the reader's flow in flight
 * @bio: a bio it queues
 *
 * During a buffered read the reader may queue I/O that is not its file's:
 * a swap-in, or another file's page when the copy to the user buffer
 * faults on a mapping of it. The bio's first page tells: in the swap
 * cache, or in the page cache of a regular file other than the read's.
 * The file system's metadata stays the read's: on the block device's
 * page cache (ext4's buffer heads), on an inode of its own that is no
 * regular file (btrfs's btree inode), or in memory of no mapping: xfs's
 * buffers, from the page allocator, vmalloc() or, below a page, kmalloc().
 * A kmalloc() buffer lies on a slab page, whose mapping field is no
 * address_space (on 6.1 it holds the slab's kmem_cache, on later kernels
 * one of the slab's list pointers): a slab page is never followed. An O_DIRECT bio carries the
 * user buffer's own pages, of any mapping: those are never called foreign.
 *
 * Context: the reader, in an RCU read-side critical section; the bio
 * holds its pages, and a page cache page is locked for the read, so its
 * mapping holds.
 * Return: true for a bio of another file or of swap.
 */
bool iolayers_bio_foreign(const struct iolayers_task_flow *f, struct bio *bio)
{
	const struct address_space *mapping;
	const struct inode *host;
	struct iolayers_pcmem *folio;

	if (!f->rd.fs.reached || f->rd.fs.direct || !bio->bi_vcnt)
		return false;
	folio = iolayers_pcmem_of_page(bio_first_page_all(bio));
	if (iolayers_pcmem_slab(folio))
		return false;
	if (iolayers_pcmem_swapcache(folio))
		return true;
	mapping = READ_ONCE(folio->mapping);
	if (!mapping || ((unsigned long)mapping & IOLAYERS_MAPPING_FLAGS) ||
	    mapping == f->rd.fs.mapping)
		return false;
	host = READ_ONCE(mapping->host);
	return host && S_ISREG(host->i_mode);
}

/**
 * iolayers_bio_slot_flush() - Move a flow's slot bio into the bio table.
 * @f: the reader's flow
 *
 * For whatever may have to find the bio by its address elsewhere: the
 * request it joins (a merge), the front part split off it, a request
 * made of it after its read ended (late). An entry that cannot be made
 * leaves the read saying it missed the BLOCK layer.
 *
 * Context: the reader, in an RCU read-side critical section.
 */
void iolayers_bio_slot_flush(struct iolayers_task_flow *f)
{
	struct iolayers_flow_ref ref = iolayers_flow_ref_of(f);
	struct iolayers_bio *b;

	if (!f->slot.bio)
		return;
	b = iolayers_table_alloc(IOLAYERS_T_BIO);
	if (b) {
		b->flow = ref;
		b->sector = f->slot.sector;
		b->queue_ns = f->slot.queue_ns;
		b->bytes = f->slot.bytes;
		iolayers_table_insert(IOLAYERS_T_BIO, b, (unsigned long)f->slot.bio);
	} else {
		iolayers_flow_lost_blk(&ref);
	}
	f->slot.bio = NULL;
}

/**
 * iolayers_bio_bind() - Bind a bio the flow's task queues (block_bio_queue).
 * @f: the task's flow in flight
 * @bio: the bio
 * @slot: the bio may be kept in the flow's slot (struct iolayers_bio_slot)
 *	rather than the bio table: it is being queued, by the reader, so a
 *	request made of it now is made in the reader's context; not when a
 *	worker will queue it (a bio blk-throttle holds back)
 *
 * A bio already bound to this flow at its remap (a stacked device's clone,
 * queued by the reader itself) is left as it is. A stacked device's bio,
 * found again by its device and sector at its remap, is never in the slot.
 *
 * Context: the reader, in an RCU read-side critical section.
 */
void iolayers_bio_bind(struct iolayers_task_flow *f, struct bio *bio, bool slot)
{
	struct iolayers_flow_ref ref = iolayers_flow_ref_of(f);
	struct iolayers_bio *b = NULL;

	/* Before any entry names the flow: its end takes the lock. */
	f->bound = true;
	/* The same bio again: bound already, or its slot is stale. */
	if (unlikely(f->slot.bio == bio)) {
		if (f->slot.sector == bio->bi_iter.bi_sector)
			return;
		f->slot.bio = NULL;
	}
	if (!iolayers_table_empty(IOLAYERS_T_BIO))
		b = iolayers_table_find(IOLAYERS_T_BIO, (unsigned long)bio);
	if (b) {
		if (b->sector == bio->bi_iter.bi_sector && b->flow.key == ref.key &&
		    b->flow.seq == ref.seq)
			return;
		iolayers_table_del_stale(IOLAYERS_T_BIO, b);
	}
	if (slot && !f->slot.bio && iolayers_bio_slot_ok(bio)) {
		f->slot.sector = bio->bi_iter.bi_sector;
		f->slot.bytes = bio->bi_iter.bi_size;
		f->slot.queue_ns = ktime_get_ns();
		f->slot.bio = bio;
		iolayers_flow_add_bio(f, ref.seq, f->slot.bytes, f->slot.queue_ns);
		return;
	}
	iolayers_bio_add(&ref, f, bio, 0);
}

/**
 * iolayers_bio_remapped() - A bio was remapped to the device below
 *	(block_bio_remap).
 * @bio: the bio as it goes down: a stacked device's clone (dm) or the
 *	same bio (md, a partition), at its new device and sector
 * @dev: the device it comes from
 * @from: its sector there
 *
 * A stacked device's bio of a followed read, found by @dev and @from,
 * hands its flow and queue time to @bio, whatever context remaps it (dm
 * targets that defer bios remap them from a workqueue, e.g. dm-delay), and
 * keeps only the part not yet remapped (a bio split across targets is
 * remapped a part at a time, in order). A bio bound by address that a
 * partition moves on (a clone going down to a partition) keeps its entry
 * at its new sector; a partition's remap of a bio not yet queued finds
 * nothing.
 *
 * Context: any, in an RCU read-side critical section.
 */
void iolayers_bio_remapped(struct bio *bio, dev_t dev, sector_t from)
{
	struct iolayers_bio *top = iolayers_stacked_find(dev, from);
	struct iolayers_bio *b, *rest;
	u32 size = bio->bi_iter.bi_size;

	if (!top) {
		/*
		 * The same bio moved on (a partition below a stacked device;
		 * a partition's own remap comes before the bio is queued, so
		 * never finds it in a slot).
		 */
		b = iolayers_table_find(IOLAYERS_T_BIO, (unsigned long)bio);
		if (b && !b->dev && b->sector == from)
			b->sector = bio->bi_iter.bi_sector;
		return;
	}
	iolayers_blk_count(IOLAYERS_BLK_BIO_REMAPPED, 1);
	b = iolayers_bio_stacked(bio) ? NULL :
	    iolayers_table_find(IOLAYERS_T_BIO, (unsigned long)bio);
	if (b)
		iolayers_table_del_stale(IOLAYERS_T_BIO, b);
	iolayers_bio_add(&top->flow, NULL, bio, top->queue_ns);
	if (size < top->bytes) {
		rest = iolayers_table_alloc(IOLAYERS_T_BIO);
		if (rest) {
			*rest = *top;
			rest->sector = from + (size >> SECTOR_SHIFT);
			rest->bytes = top->bytes - size;
			iolayers_table_insert(IOLAYERS_T_BIO, rest,
					      iolayers_stacked_key(dev, rest->sector));
		} else {
			iolayers_flow_lost_blk(&top->flow);
		}
	}
	iolayers_table_del(IOLAYERS_T_BIO, top);
}

/*
 * No entry for a request: every read with a bio of it from @bio's (of
 * @flow) on says it missed the BLOCK layer.
 */
static void iolayers_rq_lost(const struct iolayers_flow_ref *flow, struct bio *bio)
{
	struct iolayers_bio *b;

	iolayers_flow_lost_blk(flow);
	for (bio = bio->bi_next; bio; bio = bio->bi_next) {
		b = iolayers_table_find(IOLAYERS_T_BIO, (unsigned long)bio);
		if (b)
			iolayers_flow_lost_blk(&b->flow);
	}
}

/*
 * Move the request's bios that are in the bio table into its entry,
 * creating the entry at the first one. Bios merged into a request after it
 * was first seen are picked up at the next call.
 */
static struct iolayers_rq *iolayers_rq_take_bios(struct request *rq, struct iolayers_rq *r)
{
	struct iolayers_rq *n = NULL;	/* a new entry, published at the end */
	struct iolayers_task_flow *f = req_op(rq) == REQ_OP_READ ? iolayers_slot_here() : NULL;
	struct iolayers_flow_ref slot_flow;
	const struct iolayers_flow_ref *flow;
	struct iolayers_bio *b;
	struct bio *bio;
	u64 queue_ns;
	u32 bytes;

	if (!f && iolayers_table_empty(IOLAYERS_T_BIO))
		return r;
	for (bio = rq->bio; bio; bio = bio->bi_next) {
		if (f && bio == f->slot.bio &&
		    f->slot.sector != bio->bi_iter.bi_sector) {
			/* A stale slot (its bio ended unmade): maybe another's. */
			iolayers_blk_count(IOLAYERS_BLK_BIO_STALE, 1);
			f->slot.bio = NULL;
		}
		if (f && bio == f->slot.bio) {
			/* The reader's own bio, from its slot (b NULL). */
			b = NULL;
			slot_flow = iolayers_flow_ref_of(f);
			flow = &slot_flow;
			bytes = f->slot.bytes;
			queue_ns = f->slot.queue_ns;
		} else {
			if (iolayers_table_empty(IOLAYERS_T_BIO))
				continue;
			b = iolayers_table_find(IOLAYERS_T_BIO, (unsigned long)bio);
			if (!b)
				continue;
			if (b->sector != bio->bi_iter.bi_sector) {
				if (iolayers_table_del(IOLAYERS_T_BIO, b))
					iolayers_blk_count(IOLAYERS_BLK_BIO_STALE, 1);
				continue;
			}
			flow = &b->flow;
			bytes = b->bytes;
			queue_ns = b->queue_ns;
		}
		if (!r) {
			r = iolayers_table_alloc(IOLAYERS_T_RQ);
			if (!r) {
				iolayers_rq_lost(flow, bio);
				return NULL;
			}
			r->sector = blk_rq_pos(rq);
			r->queue_ns = queue_ns;
			r->disk = iolayers_disk_id(iolayers_rq_disk(rq));
			n = r;
		}
		if (!b)
			f->slot.bio = NULL;
		else if (!iolayers_table_del(IOLAYERS_T_BIO, b))
			continue;	/* another context took it */
		if (!iolayers_rq_add(r, flow, bytes, queue_ns)) {
			iolayers_blk_count(IOLAYERS_BLK_RQ_OVERFLOW, 1);
			iolayers_flow_lost_blk(flow);
		}
	}
	if (n) {
		iolayers_table_insert(IOLAYERS_T_RQ, n, (unsigned long)rq);
		iolayers_blk_count(IOLAYERS_BLK_RQ_BOUND, 1);
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
 * Context: any, in an RCU read-side critical section.
 * Return: the entry, or NULL.
 */
struct iolayers_rq *iolayers_rq_find(struct request *rq)
{
	struct iolayers_rq *r;

	if (iolayers_table_empty(IOLAYERS_T_RQ))
		return NULL;
	r = iolayers_table_find(IOLAYERS_T_RQ, (unsigned long)rq);
	if (r && iolayers_rq_other_life(r, blk_rq_pos(rq), false)) {
		iolayers_table_del_stale(IOLAYERS_T_RQ, r);
		r = NULL;
	}
	return r;
}

/**
 * iolayers_rq_bind() - Find or create a request's entry from its bios.
 * @rq: the request, being inserted, set up by the driver or issued
 *
 * The entry's sector follows the request's (a front merge moves it).
 *
 * Context: any, in an RCU read-side critical section.
 * Return: the entry, or NULL when it carries no followed bio.
 */
struct iolayers_rq *iolayers_rq_bind(struct request *rq)
{
	struct iolayers_rq *r = NULL;

	if (!iolayers_table_empty(IOLAYERS_T_RQ))
		r = iolayers_table_find(IOLAYERS_T_RQ, (unsigned long)rq);
	if (r && iolayers_rq_other_life(r, blk_rq_pos(rq), true)) {
		iolayers_table_del_stale(IOLAYERS_T_RQ, r);
		r = NULL;
	}
	if (r)
		r->sector = blk_rq_pos(rq);
	return iolayers_rq_take_bios(rq, r);
}

/**
 * iolayers_rq_merged() - A request was merged into another (block_rq_merge).
 * @next: the request going away; its bios are at the end of the other's
 *	chain now, and still reachable from @next
 *
 * The tracepoint does not name the request that takes @next in, so each of
 * the entry's flows is handed back to the bio table, carried by one of
 * @next's bios not already there (the flow's bytes and the earliest queue
 * time with it): the other request's next event takes them in with its
 * bios. A flow no bio can carry is counted as an overflow. A bio of
 * @next the reader holds in its slot (the scheduler merged @next as the
 * reader inserted it: no entry yet) goes into the bio table first.
 *
 * Context: any, in an RCU read-side critical section; @next is not issued.
 */
void iolayers_rq_merged(struct request *next)
{
	struct iolayers_bio *b;
	struct iolayers_rq *r;
	struct bio *bio = next->bio;
	unsigned int i;

	/* A request of the reader's slot bio, merged as it is inserted. */
	iolayers_slot_take(next);
	if (iolayers_table_empty(IOLAYERS_T_RQ))
		return;
	r = iolayers_table_find(IOLAYERS_T_RQ, (unsigned long)next);
	if (!r || !iolayers_table_del(IOLAYERS_T_RQ, r))
		return;
	iolayers_blk_count(IOLAYERS_BLK_RQ_MERGED, 1);
	for (i = 0; i < r->nr_flows; i++) {
		while (bio && iolayers_table_find(IOLAYERS_T_BIO, (unsigned long)bio))
			bio = bio->bi_next;
		b = bio ? iolayers_table_alloc(IOLAYERS_T_BIO) : NULL;
		if (!b) {
			iolayers_blk_count(IOLAYERS_BLK_RQ_OVERFLOW, 1);
			iolayers_flow_lost_blk(&r->flows[i]);
			continue;
		}
		b->flow = r->flows[i];
		b->sector = bio->bi_iter.bi_sector;
		b->queue_ns = r->queue_ns;
		b->bytes = r->bytes[i];
		iolayers_table_insert(IOLAYERS_T_BIO, b, (unsigned long)bio);
		bio = bio->bi_next;
	}
}

static void iolayers_expire_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(iolayers_expire_work, iolayers_expire_fn);

/*
 * iolayers_requests_expire() - Expire old bio and request entries now.
 *
 * Bios that never reached a request we saw, or requests whose completion
 * we missed, would otherwise stay until unload; so would io_uring
 * requests whose CQE was not seen (flow.c).
 *
 * Context: process context.
 */
static void iolayers_requests_expire(void)
{
	u64 age = (u64)READ_ONCE(iolayers_expire_ms) * NSEC_PER_MSEC;

	iolayers_table_expire(IOLAYERS_T_BIO, age);
	iolayers_table_expire(IOLAYERS_T_RQ, age);
	/* io_uring requests may wait long (a pipe's data): ten times as old. */
	iolayers_reqs_expire(age * 10);
}

static void iolayers_expire_fn(struct work_struct *work)
{
	iolayers_requests_expire();
	schedule_delayed_work(&iolayers_expire_work, HZ);
}

/**
 * iolayers_requests_start() - Start expiring old bio and request entries.
 *
 * The BLOCK layer's start hook: once a second from now on.
 *
 * Context: process context.
 */
void iolayers_requests_start(void)
{
	schedule_delayed_work(&iolayers_expire_work, HZ);
}

/**
 * iolayers_requests_stop() - Stop the expiry; returns once it has ended.
 *
 * The BLOCK layer's stop hook, run before its probes are detached.
 *
 * Context: process context.
 */
void iolayers_requests_stop(void)
{
	cancel_delayed_work_sync(&iolayers_expire_work);
}
