// SPDX-License-Identifier: GPL-2.0
/*
 * Flows: the task table's entries (a followed thread, and its read() in
 * flight), ended at sys_exit into the histograms and the stream of
 * records (stream.c).
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/export.h>
#include <linux/ktime.h>
#include <linux/llist.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <iolayers/cache.h>
#include <iolayers/clock.h>
#include <iolayers/compat.h>
#include <iolayers/flow.h>
#include <iolayers/hist.h>
#include <iolayers/percpu.h>
#include <iolayers/request.h>
#include <iolayers/sock.h>
#include <iolayers/stream.h>
#include <iolayers/table.h>

/*
 * Flow ids: a per-CPU counter with the CPU number in the low bits, as many
 * as the most CPUs a kernel can have (8192: x86's MAXSMP, Debian's
 * NR_CPUS), so that no two reads share an id (a late completion's check
 * of it is what keeps it out of a read that ends without the lock).
 */
#define IOLAYERS_SEQ_CPU_BITS	13
static_assert(CONFIG_NR_CPUS <= 1 << IOLAYERS_SEQ_CPU_BITS);

static DEFINE_PER_CPU(u64, iolayers_seq);

/*
 * The hand-off: the entry of the task whose read() last started on this
 * CPU, so that the probes that follow in the same read() (VFS, FS, the
 * cache's, sys_exit) find it without a hash lookup. One pointer, read and
 * written whole (the task may migrate between probes on kernels where
 * syscall tracepoints are preemptible): whoever reads it checks that the
 * entry is current's. It never points to a freed entry: the task's own
 * exit clears every CPU's pointer to its entry once the entry is out of
 * the table and before its grace period begins, and only the task itself sets
 * a pointer to it (at sys_enter, or finding its read in flight in the
 * table).
 */
DEFINE_PER_CPU(struct iolayers_task_flow *, iolayers_flow_cur);

/*
 * The task whose entry the hand-off last named on this CPU: compared, never
 * dereferenced (iolayers_flow_maybe_here()), and not cleared with the
 * hand-off (a stale one only sends a probe on to the full look-up).
 */
DEFINE_PER_CPU(const struct task_struct *, iolayers_flow_cur_task);

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * For the KUnit tests of iolayers_flow_maybe_here() and of a request's
 * attempts (kunit/flow_kunit.c).
 */
EXPORT_PER_CPU_SYMBOL_GPL(iolayers_flow_cur_task);
EXPORT_PER_CPU_SYMBOL_GPL(iolayers_flow_cur);
#endif

/* The hand-off and its task, set by the task itself. */
static __always_inline void iolayers_flow_hand(struct iolayers_task_flow *f)
{
	this_cpu_write(iolayers_flow_cur, f);
	this_cpu_write(iolayers_flow_cur_task, current);
}

/*
 * The task table's misses, remembered: every probe of a read's own context
 * (VFS, FS, SOCK, TCP, the waits and copies) runs for every task that
 * passes its function, and for one not followed the hand-off misses and a
 * hash lookup finds nothing, about 60 instructions each: a loopback TCP
 * read met six such probes in its unfollowed peer's reads. Per CPU, the
 * last thread id the table did not have and the table's insertions then,
 * one word: the id stays absent until an entry is inserted (entries are
 * keyed by it, and only iolayers_flow_start() inserts one).
 */
static_assert(PID_MAX_LIMIT <= 1 << IOLAYERS_TID_BITS);

/* One word read and written whole: 64-bit kernels only. */
static_assert(IS_ENABLED(CONFIG_64BIT));

atomic64_t iolayers_task_inserts __read_mostly = ATOMIC64_INIT(1);
EXPORT_SYMBOL_IF_KUNIT(iolayers_task_inserts);
DEFINE_PER_CPU(u64, iolayers_task_miss);

/**
 * iolayers_flow_table_find() - Find current's entry in the table, and
 *	remember its absence (iolayers_flow_current() looks at that first).
 * @tid: current's thread id
 * @miss: iolayers_task_miss_key() of @tid, read before this lookup
 *
 * Found with a read in flight, the entry becomes this CPU's hand-off
 * again: another followed thread's read started on the CPU meanwhile
 * (fio's main thread between a job's 128 MiB reads), and every later probe
 * of this read would look it up (32,768 pages added to the cache a read).
 * Only the task itself sets a hand-off to its entry (in task context), as
 * at sys_enter, and only while its read is in flight, which no sweep
 * removes; the read's end, later in this task, orders this store before
 * a sweep's clearing, and the task's exit clears its hand-offs after
 * taking the entry out of the table.
 *
 * Context: the task itself, in an RCU read-side critical section.
 * Return: the entry, or NULL.
 */
struct iolayers_task_flow *iolayers_flow_table_find(pid_t tid, u64 miss)
{
	struct iolayers_task_flow *f = iolayers_table_find(IOLAYERS_T_TASK, tid);

	if (!f)
		this_cpu_write(iolayers_task_miss, miss);
	else if (f->task == current && !READ_ONCE(f->state) && in_task())
		iolayers_flow_hand(f);
	return f;
}

/**
 * iolayers_flow_find() - Find the read() in flight of a task (for KUnit;
 *	the probes inline iolayers_flow_here()).
 * @tid: the thread id
 *
 * Context: as iolayers_flow_here().
 * Return: the entry, or NULL when the task has no followed read() in
 * flight.
 */
struct iolayers_task_flow *iolayers_flow_find(pid_t tid)
{
	return iolayers_flow_here(tid);
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_flow_find);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * iolayers_flow_maybe() - iolayers_flow_maybe_here(), for KUnit (the
 *	probes inline it).
 *
 * Context: as iolayers_flow_maybe_here().
 * Return: its answer.
 */
bool iolayers_flow_maybe(void)
{
	return iolayers_flow_maybe_here();
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_flow_maybe);
#endif

/**
 * iolayers_flow_get() - Find a flow named from an async context.
 * @ref: its task and id
 *
 * The answer is a hint: the read() may end, and the entry start another,
 * at any time. Check @ref->seq again and that the flow has not ended under
 * the entry's lock.
 *
 * Context: any, in an RCU read-side critical section.
 * Return: the flow if that read() seems still in flight, else NULL.
 */
struct iolayers_task_flow *iolayers_flow_get(const struct iolayers_flow_ref *ref)
{
	struct iolayers_task_flow *f = iolayers_table_find(iolayers_flow_ref_table(ref->key),
							    ref->key);

	return f && READ_ONCE(f->seq) == ref->seq ? f : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_flow_get);

/*
 * A new flow @seq in @f, idle or stale: no BLOCK part yet. @rd is the
 * caller's to zero.
 */
static __always_inline void iolayers_flow_renew(struct iolayers_task_flow *f, u64 seq)
{
	WRITE_ONCE(f->seq, seq);
	f->blk_lost = false;
	f->bound = false;
	/* A slot left by a read whose exit was not seen goes with it. */
	f->slot.bio = NULL;
	/* Left zero by a read that had no bio and no request (every cached one). */
	if (f->blk.nr_bios || f->blk.nr_rqs)
		memset(&f->blk, 0, sizeof(f->blk));
}

/*
 * Is @f the read() @seq, still in flight? Under @f's lock. @state first,
 * then @seq: a claim (iolayers_flow_start()) writes them in the other
 * order, so a flow in flight is never seen with its previous read's id.
 */
static bool iolayers_flow_is(const struct iolayers_task_flow *f, u64 seq)
{
	/* Pairs with the claim's cmpxchg: @seq is read after @state. */
	return !smp_load_acquire(&f->state) && READ_ONCE(f->seq) == seq;
}

/* No CPU's hand-off may outlive an entry (see iolayers_flow_cur). */
static void iolayers_flow_unhand(struct iolayers_task_flow *f)
{
	int cpu;

	for_each_possible_cpu(cpu)
		cmpxchg(per_cpu_ptr(&iolayers_flow_cur, cpu), f, NULL);
}

/*
 * @t, a task's idle entry, no longer names an io_uring request's attempt
 * (its end, or the request's when that end was not seen). Only the task
 * sets the mark, and the request's end may clear it from elsewhere: one
 * cmpxchg wins.
 */
static void iolayers_flow_att_drop(struct iolayers_task_flow *t)
{
	WRITE_ONCE(t->att, NULL);
	cmpxchg_release(&t->state, IOLAYERS_FLOW_ENDED | IOLAYERS_FLOW_ATT, IOLAYERS_FLOW_ENDED);
}

static void iolayers_flow_att_close(struct iolayers_task_flow *f);

/*
 * @t, current's idle entry, still marks an attempt of an io_uring request
 * whose end was not seen (its kretprobe detached during it): the attempt
 * is closed (no hand-off names the request any more, so none of this
 * task's probes finds it) and the mark goes.
 */
static noinline void iolayers_flow_att_stale(struct iolayers_task_flow *t)
{
	struct iolayers_task_flow *f = READ_ONCE(t->att);
	unsigned long flags;

	if (f) {
		raw_spin_lock_irqsave(&f->lock, flags);
		if (f->rd.ur.open && f->task == current)
			iolayers_flow_att_close(f);
		raw_spin_unlock_irqrestore(&f->lock, flags);
	}
	iolayers_flow_att_drop(t);
}

/**
 * iolayers_flow_start() - Start a flow for a syscall of the current task.
 * @tid: the current task's thread id
 *
 * The task's entry is reused (it is kept between reads); the first read()
 * adds it. A flow still in flight there (its exit was not seen) is
 * replaced and counted as stale. A full table or a failed allocation is
 * counted and returns NULL.
 *
 * Context: the task itself, in an RCU read-side critical section
 * (rcu_read_lock(), or preemption disabled).
 * Return: the entry with a new flow id, its clock and start stamp set and
 * the per-read fields struct iolayers_read_state says are zeroed (the
 * caller writes the syscall's arguments), or NULL.
 */
struct iolayers_task_flow *iolayers_flow_start(pid_t tid)
{
	struct iolayers_task_flow *f = iolayers_flow_current(tid);
	unsigned long flags;
	u64 seq;
	int cpu;

	/* A hand-off left naming an io_uring request's flow (uring.c). */
	if (f && unlikely(f->e.table != IOLAYERS_T_TASK))
		f = iolayers_table_find(IOLAYERS_T_TASK, tid);
	cpu = get_cpu();
	seq = (this_cpu_inc_return(iolayers_seq) << IOLAYERS_SEQ_CPU_BITS) | cpu;
	if (f)
		iolayers_flow_hand(f);
	put_cpu();
	if (f && unlikely(!READ_ONCE(f->state))) {
		/*
		 * Still in flight: its exit was not seen. Counted stale, and
		 * renewed under the lock: late completions of its bios may be
		 * folding into it.
		 */
		iolayers_table_drop(IOLAYERS_T_TASK, IOLAYERS_DROP_STALE);
		raw_spin_lock_irqsave(&f->lock, flags);
		iolayers_flow_renew(f, seq);
		raw_spin_unlock_irqrestore(&f->lock, flags);
	} else if (f) {
		/*
		 * Idle: nothing folds into it (a completion checks @state
		 * first, and the end of a read with a bio bound waited for
		 * the folds under the lock). Renewed, then claimed, unless
		 * iolayers_flows_forget_idle() marked it gone first: the
		 * hand-offs of this task on any CPU may then have missed that
		 * sweep's clearing (the one set above, and one of a CPU it
		 * left), so this task clears them all and starts over in a
		 * new entry. The claim orders the new @seq before @state,
		 * which a completion reads first.
		 */
		iolayers_flow_renew(f, seq);
		if (unlikely(READ_ONCE(f->state) & IOLAYERS_FLOW_ATT))
			iolayers_flow_att_stale(f);	/* its end was not seen */
		if (unlikely(cmpxchg(&f->state, IOLAYERS_FLOW_ENDED, 0) != IOLAYERS_FLOW_ENDED)) {
			iolayers_flow_unhand(f);
			f = NULL;
		}
	}
	if (!f) {
		/* In flight at once (@state 0): it is never forgotten. */
		f = iolayers_table_alloc(IOLAYERS_T_TASK);
		if (!f)
			return NULL;
		raw_spin_lock_init(&f->lock);
		f->tid = tid;
		f->task = current;
		f->seq = seq;
		iolayers_table_insert(IOLAYERS_T_TASK, f, tid);
		/* After the entry: a miss remembered before it is forgotten. */
		smp_mb__before_atomic();
		atomic64_inc(&iolayers_task_inserts);
		iolayers_flow_hand(f);
	}
	/* What is zeroed per read: struct iolayers_read_state. */
	f->rd.vfs.start = 0;
	f->rd.fs.reached = false;
	f->rd.file = (struct iolayers_read_file){ 0 };
	f->rd.cache = (struct iolayers_read_cache){ 0 };
	f->rd.missed = 0;
	f->rd.foreign = false;
	f->rd.sock.start = 0;
	f->rd.sys.via = IOLAYERS_VIA_SYSCALL;
	f->rd.sys.tsc = READ_ONCE(iolayers_clock_tsc);
	f->rd.sys.start = iolayers_stamp(f->rd.sys.tsc);
	return f;
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_flow_start);

/*
 * iolayers_flow_end() - The read() of a flow has returned.
 * @f: the flow, at its sys_exit
 *
 * From here on its BLOCK and DEVICE part (@f->blk) is final: requests
 * completing later are late (iolayers_flow_fold_rq()). A read that had no
 * bio bound to it (every cached read, socket reads, reads whose only bios
 * were foreign) ends without the lock: no other context can name it
 * (iolayers_flow_ref comes from a binding), and one naming an earlier
 * read of the task never matches its id. @f->bound is the task's own,
 * set and read in its context only (a bio is bound where it is
 * submitted, which may sleep: never in an interrupt).
 *
 * Context: the task itself, in an RCU read-side critical section
 * (rcu_read_lock(), or preemption disabled).
 */
static void iolayers_flow_end(struct iolayers_task_flow *f)
{
	unsigned long flags;

	if (!f->bound) {
		/* Orders this task's hand-off before the end a sweep reads. */
		smp_store_release(&f->state, IOLAYERS_FLOW_ENDED);
		return;
	}
	raw_spin_lock_irqsave(&f->lock, flags);
	/* As above (iolayers_flow_forget() does not take the lock). */
	smp_store_release(&f->state, IOLAYERS_FLOW_ENDED);
	raw_spin_unlock_irqrestore(&f->lock, flags);
}

/*
 * The task's flow @f ends: a bio still in its slot gets an entry first,
 * for a request made of it later (late).
 */
static __always_inline void iolayers_flow_close(struct iolayers_task_flow *f)
{
	if (unlikely(f->slot.bio))
		iolayers_bio_slot_flush(f);
	iolayers_flow_end(f);
}

/**
 * iolayers_flow_abandon() - End a flow in flight without a record.
 * @f: the flow, the current task's
 *
 * A page fault the kernel gave up on (a signal came while it waited for
 * its page: the access faults again, a fault of its own): its bio still
 * in the slot gets an entry (a request made of it is late), and the flow
 * ends; no record, no histogram sample.
 *
 * Context: the task itself, in an RCU read-side critical section.
 */
void iolayers_flow_abandon(struct iolayers_task_flow *f)
{
	iolayers_flow_close(f);
}

/**
 * iolayers_flow_add_bio() - Count a bio of a flow.
 * @f: the flow's entry (the reader's own, or found by iolayers_flow_get())
 * @seq: the flow's id
 * @bytes: the bio's size
 * @queue_ns: when the read's bio was queued
 *
 * Nothing is counted once that read has returned (a late remap).
 *
 * Context: any, in an RCU read-side critical section.
 */
void iolayers_flow_add_bio(struct iolayers_task_flow *f, u64 seq, u32 bytes, u64 queue_ns)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&f->lock, flags);
	if (iolayers_flow_is(f, seq)) {
		f->blk.nr_bios++;
		f->blk.bio_bytes += bytes;
		if (!f->blk.queue_at || queue_ns < f->blk.queue_at)
			f->blk.queue_at = queue_ns;
	}
	raw_spin_unlock_irqrestore(&f->lock, flags);
}

/**
 * iolayers_blk_fold() - Fold a completed request into one of its flows.
 * @a: the flow's BLOCK/DEVICE part
 * @r: the request's entry
 * @i: the flow's slot in @r
 * @now: completion time
 * @error: the request failed
 *
 * Bytes add up (only the flow's own bios' bytes); latencies keep the
 * longest request's; times keep the first issue and the last completions.
 *
 * Context: any, under the flow's lock.
 */
VISIBLE_IF_KUNIT void iolayers_blk_fold(struct iolayers_blk_acc *a,
					const struct iolayers_rq *r, unsigned int i,
					u64 now, bool error)
{
	a->nr_rqs++;
	a->rq_bytes += r->bytes[i];
	a->requeues += r->requeues;
	a->errors += error;
	a->queue_ns = max(a->queue_ns, r->queue_lat);
	a->service_ns = max(a->service_ns, now - r->issue_ns);
	if (r->setup_ns && r->devdone_ns) {
		a->device_ns = max(a->device_ns, r->devdone_ns - r->setup_ns);
		a->device_at = max(a->device_at, r->devdone_ns);
	}
	if (!a->issue_at || r->first_issue_ns < a->issue_at)
		a->issue_at = r->first_issue_ns;
	a->done_at = max(a->done_at, now);
	if (a->nr_rqs == 1)
		a->disk = r->disk;
	if (r->disk)
		a->disk_mask |= BIT(r->disk - 1);
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_blk_fold);

/**
 * iolayers_flow_fold_rq() - Fold a completed request into one flow it
 *	carried, if that read() is still in flight.
 * @r: the request's entry
 * @i: the flow's slot in @r
 * @now: the completion time
 * @error: the request failed
 *
 * Context: any (the completion interrupt, usually), in an RCU read-side
 * critical section.
 * Return: false when the read has returned already, or its task's entry
 * is gone or on its next read(): the request is late.
 */
bool iolayers_flow_fold_rq(const struct iolayers_rq *r, unsigned int i, u64 now, bool error)
{
	struct iolayers_task_flow *f = iolayers_flow_get(&r->flows[i]);
	unsigned long flags;
	bool folded = false;

	if (!f)
		return false;
	raw_spin_lock_irqsave(&f->lock, flags);
	if (iolayers_flow_is(f, r->flows[i].seq)) {
		iolayers_blk_fold(&f->blk, r, i, now, error);
		folded = true;
	}
	raw_spin_unlock_irqrestore(&f->lock, flags);
	return folded;
}

/**
 * iolayers_flow_exit() - Remove an exiting thread's entry.
 * @tid: the thread id (its entry is the caller's own)
 *
 * A flow still in flight (its exit was not seen) is counted as stale.
 *
 * Context: the exiting task itself (sched_process_exit), or a task that
 * exec'd, for the id it had before (sched_process_exec).
 */
void iolayers_flow_exit(pid_t tid)
{
	struct iolayers_task_flow *f;

	rcu_read_lock();
	f = iolayers_table_find(IOLAYERS_T_TASK, tid);
	if (f) {
		/*
		 * Out of the table first, then out of every hand-off: until
		 * the removal a look-up by this task (an interrupt's over it
		 * included) may set a hand-off to it again. Retired only
		 * then: a probe that finds it in a hand-off after its grace
		 * period began would not be waited for.
		 */
		bool removed = iolayers_table_unlink(IOLAYERS_T_TASK, f);

		if (removed && !READ_ONCE(f->state))
			iolayers_table_drop(IOLAYERS_T_TASK, IOLAYERS_DROP_STALE);
		iolayers_flow_unhand(f);
		if (removed)
			iolayers_table_retire(f);
	}
	rcu_read_unlock();
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_flow_exit);

/*
 * An idle entry is marked gone by a cmpxchg that its task's claim at
 * sys_enter loses or wins: its task, starting a read in it now, either
 * sees the mark (and clears its hand-offs) or claimed it first (not
 * idle). A hand-off its task set at an earlier sys_enter is visible to
 * the sweep below: the end that followed it is a release, which the
 * mark reads, and the mark is a full barrier.
 */
static bool iolayers_flow_forget(void *entry, void *arg)
{
	struct iolayers_task_flow *f = entry;
	bool idle;

	idle = cmpxchg(&f->state, IOLAYERS_FLOW_ENDED,
		       IOLAYERS_FLOW_ENDED | IOLAYERS_FLOW_GONE) == IOLAYERS_FLOW_ENDED;
	if (idle)
		iolayers_flow_unhand(f);
	return idle;
}

/**
 * iolayers_flows_forget_idle() - Remove every entry with no read() in flight.
 *
 * After a filter change, the entries of threads no longer followed would
 * stay until those threads exit, and fill the table. Idle entries of
 * threads still followed are added again at their next read().
 *
 * Context: process context (a filter being set).
 * Return: the number of entries removed.
 */
int iolayers_flows_forget_idle(void)
{
	return iolayers_table_prune(IOLAYERS_T_TASK, iolayers_flow_forget, NULL);
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_flows_forget_idle);

static bool iolayers_flow_in_flight(const void *entry)
{
	const struct iolayers_task_flow *f = entry;

	return !READ_ONCE(f->state);
}

/**
 * iolayers_flows_in_flight() - Followed read() calls in flight now.
 *
 * Context: process context (a `stats` read); walks the task table.
 * Return: the number of task entries with a flow not yet ended.
 */
int iolayers_flows_in_flight(void)
{
	return iolayers_table_count(IOLAYERS_T_TASK, iolayers_flow_in_flight);
}

/* Reads that lost an event of some layer (`stats`: reads_missed). */
static DEFINE_PER_CPU(u64, iolayers_missed_reads);

/**
 * iolayers_flow_missed() - The current task's read lost an event of some
 *	layers.
 * @layers: IOLAYERS_MISSED_* bits
 *
 * Called when the recursion guard refuses a function entry of those
 * layers, or a group's call finds no probe: the read in flight, if any,
 * records it, and its cache state is not decided on what the FS layer may
 * not have seen.
 *
 * Context: the task's own (the refused callback's, in task context).
 */
void iolayers_flow_missed(u8 layers)
{
	struct iolayers_task_flow *f;

	if (iolayers_table_empty(IOLAYERS_T_TASK))
		return;
	rcu_read_lock();
	f = iolayers_flow_here(current->pid);
	if (f)
		f->rd.missed |= layers;
	rcu_read_unlock();
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_flow_missed);

/**
 * iolayers_flow_lost_blk() - A read's bio or request could not be tracked.
 * @ref: the read's flow
 *
 * Its entry could not be made (the table full, or no memory): the read's
 * BLOCK and DEVICE parts would lack that I/O without a word, so the read
 * says it missed the BLOCK layer (set in its @missed when it ends: that
 * field is the reading task's own). A later attempt for the same request
 * may still bind it; the read then says so anyway (too much rather than
 * too little).
 *
 * Context: any, in an RCU read-side critical section.
 */
void iolayers_flow_lost_blk(const struct iolayers_flow_ref *ref)
{
	struct iolayers_task_flow *f = iolayers_flow_get(ref);
	unsigned long flags;

	if (!f)
		return;
	raw_spin_lock_irqsave(&f->lock, flags);
	if (iolayers_flow_is(f, ref->seq))
		f->blk_lost = true;
	raw_spin_unlock_irqrestore(&f->lock, flags);
}

/**
 * iolayers_reads_missed() - Reads that lost an event of some layer.
 *
 * Return: the count summed over CPUs.
 */
u64 iolayers_reads_missed(void)
{
	return IOLAYERS_PERCPU_SUM(iolayers_missed_reads);
}

/* A socket read's SOCK and TCP offsets and its wait, at sys_exit (@end). */
static void iolayers_flow_sock_times(struct iolayers_read_state *rd, u64 end)
{
	struct iolayers_read_sock *s = &rd->sock;
	bool tsc = rd->sys.tsc;

	s->off = min(iolayers_stamp_ns(tsc, rd->sys.start, s->start), rd->sys.ns);
	if (s->tcp_start)
		s->tcp_off = min(iolayers_stamp_ns(tsc, rd->sys.start, s->tcp_start), rd->sys.ns);
	if (s->wait_start)	/* still waiting: woken by a signal, a timeout */
		s->wait += end - s->wait_start;
	s->wait_ns = min(iolayers_stamp_ns(tsc, 0, s->wait), rd->sys.ns - s->off);
}

/*
 * The layer times of a read at its sys_exit, from its stamps: SYSCALL,
 * and VFS and FS, which end there too (vfs.c, fs.c), with their entries'
 * offsets from sys_enter. Returns ktime_get_ns() now, the record's time:
 * with TSC stamps it is the end's TSC stamp converted from this CPU's
 * clock anchor (iolayers_clock_now()), so the record's start (its time
 * less the syscall's) is sys_enter's to within half the anchor's bracket
 * and the slew of the kernel's clock over the anchor's span (clock.h).
 * Preemption disabled.
 */
static u64 iolayers_flow_times(struct iolayers_read_state *rd)
{
	bool tsc = rd->sys.tsc;
	u64 end, now;

	if (likely(tsc && READ_ONCE(iolayers_clock_tsc))) {
		now = iolayers_clock_now(&end);
	} else if (tsc) {
		/* The TSC turned unstable during the read: no anchor from it. */
		end = iolayers_stamp(true);
		now = ktime_get_ns();
	} else {
		end = ktime_get_ns();
		now = end;
	}
	/* Three conversions: VFS and FS end where the syscall does. */
	rd->sys.ns = iolayers_stamp_ns(tsc, rd->sys.start, end);
	if (rd->vfs.start) {
		rd->vfs.off = min(iolayers_stamp_ns(tsc, rd->sys.start, rd->vfs.start), rd->sys.ns);
		rd->vfs.ns = rd->sys.ns - rd->vfs.off;
	}
	if (rd->fs.reached) {
		rd->fs.off = min(iolayers_stamp_ns(tsc, rd->sys.start, rd->fs.start), rd->sys.ns);
		rd->fs.ns = rd->sys.ns - rd->fs.off;
	}
	if (unlikely(rd->sock.start))
		iolayers_flow_sock_times(rd, end);
	return now;
}

/* @now within what @blk's ktime stamps say of a read @sys_ns long. */
static noinline void iolayers_flow_end_bound(const struct iolayers_blk_acc *blk, u64 sys_ns,
					     u64 *now)
{
	*now = min(*now, blk->queue_at + sys_ns);
	if (blk->nr_rqs)
		*now = max3(*now, blk->done_at, blk->device_at);
}

/* A socket read's SOCK, TCP and wait samples (preemption disabled). */
static noinline void iolayers_flow_sock_hist(const struct iolayers_read_state *rd,
					     enum iolayers_cache cache, u64 bytes)
{
	const struct iolayers_read_sock *sk = &rd->sock;

	iolayers_hist_note(IOLAYERS_L_SOCK, cache, rd->sys.ns - sk->off, bytes);
	if (sk->tcp_start)
		iolayers_hist_note(IOLAYERS_L_TCP, cache, rd->sys.ns - sk->tcp_off, bytes);
	if (sk->waited)
		iolayers_hist_note(IOLAYERS_L_WAIT, cache, sk->wait_ns, bytes);
}

/* A read's BLOCK and DEVICE samples, its requests' (preemption disabled). */
static noinline void iolayers_flow_blk_hist(const struct iolayers_blk_acc *blk,
					    enum iolayers_cache cache)
{
	iolayers_hist_note(IOLAYERS_L_QUEUE, cache, blk->queue_ns, blk->rq_bytes);
	iolayers_hist_note(IOLAYERS_L_SERVICE, cache, blk->service_ns, blk->rq_bytes);
	if (blk->device_at)
		iolayers_hist_note(IOLAYERS_L_DEVICE, cache, blk->device_ns, blk->rq_bytes);
}

/**
 * iolayers_flow_finish() - A flow's read() has returned: record it.
 * @f: the flow
 * @ret: what the syscall returned
 *
 * Ends the flow, takes its layer times, asks the cache layer for its cache
 * state, adds every layer it went through to this CPU's histograms and
 * keeps its record, both with preemption disabled once. The task's entry
 * stays for its next read().
 *
 * Context: the task itself (sys_exit), in an RCU read-side critical
 * section (rcu_read_lock(), or preemption disabled).
 */
void iolayers_flow_finish(struct iolayers_task_flow *f, long ret)
{
	const struct iolayers_read_state *rd = &f->rd;
	enum iolayers_cache cache;
	/* Every layer's value is the syscall's: VFS and FS end at sys_exit. */
	u64 bytes = ret > 0 ? ret : 0;
	u64 now;

	/*
	 * Completions fold into f->blk only before this: it is final now.
	 * Ended before the end is stamped, so a request folded in completed
	 * before the read's end: a completion between the stamp and here
	 * (an interrupt, another CPU's) made a HIT read's async readahead
	 * request end after the read it was folded into.
	 */
	iolayers_flow_close(f);
	if (unlikely(f->blk_lost))
		f->rd.missed |= IOLAYERS_MISSED_BLOCK;
	/* Already so in sys_exit; the clock's anchor is per CPU. */
	preempt_disable();
	now = iolayers_flow_times(&f->rd);
	/*
	 * Its bios and requests were stamped by ktime_get_ns(), perhaps on
	 * other CPUs, its end from this CPU's anchor, which may lie a little
	 * off: its first bio was queued after its start, and its requests
	 * completed before its end (the later bound wins: the end is what
	 * the stream orders by).
	 */
	if (unlikely(f->blk.queue_at))
		iolayers_flow_end_bound(&f->blk, rd->sys.ns, &now);
	if (unlikely(rd->sock.start))
		cache = iolayers_sock_state(f, ret);
	else
		cache = iolayers_cache_state(f, ret);
	if (unlikely(rd->sock.start))
		iolayers_flow_sock_hist(rd, cache, bytes);
	/* A page fault's whole is its own layer's, its FS range no layer. */
	if (likely(!rd->sys.via)) {
		iolayers_hist_note(IOLAYERS_L_SYSCALL, cache, rd->sys.ns, bytes);
		if (rd->vfs.start)
			iolayers_hist_note(IOLAYERS_L_VFS, cache, rd->vfs.ns, bytes);
		if (rd->fs.reached)
			iolayers_hist_note(IOLAYERS_L_FS, cache, rd->fs.ns, bytes);
	} else {
		iolayers_hist_note(iolayers_via_layer(rd->sys.via), cache, rd->sys.ns, bytes);
	}
	if (f->blk.nr_rqs)
		iolayers_flow_blk_hist(&f->blk, cache);
	iolayers_stream_store(f, ret, now, cache);
	preempt_enable();
	if (unlikely(rd->missed))
		this_cpu_inc(iolayers_missed_reads);
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_flow_finish);

/**
 * iolayers_reads_missed_reset() - Zero the count of reads that missed a
 *	layer.
 *
 * Context: process context (`reset`).
 */
void iolayers_reads_missed_reset(void)
{
	IOLAYERS_PERCPU_ZERO(iolayers_missed_reads);
}

/*
 * io_uring requests (uring.c). A request's flow lives in the request
 * table from its submission to its completion's CQE. Each attempt to
 * issue it runs in some task (the submitter inline, its task work, an
 * io-wq worker, the SQPOLL thread): for the attempt's span that task's
 * probes find the request's flow instead of a read of their own, through
 * the hand-off, or through the task's own entry (its @att) when the
 * hand-off was taken meanwhile, so the FS, cache and BLOCK layers bind to
 * the request as they do to a read().
 */

/* A new flow id (iolayers_flow_start()'s kind). */
static u64 iolayers_flow_seq(void)
{
	u64 seq;
	int cpu;

	cpu = get_cpu();
	seq = (this_cpu_inc_return(iolayers_seq) << IOLAYERS_SEQ_CPU_BITS) | cpu;
	put_cpu();
	return seq;
}

/*
 * The request's attempt @f no longer runs: no hand-off names it (the CPU
 * the attempt set one on, and this one), and the task's entry no longer
 * sends its probes to it. From the attempt's own end, or from the
 * request's when that was not seen (@f's lock held, @f->rd.ur.open was
 * set).
 */
static void iolayers_flow_att_close(struct iolayers_task_flow *f)
{
	struct iolayers_task_flow *t;
	int cpu = f->rd.ur.hand_cpu;

	f->rd.ur.open = false;
	WRITE_ONCE(f->task, NULL);
	WRITE_ONCE(f->tid, 0);
	cmpxchg(per_cpu_ptr(&iolayers_flow_cur, cpu), f, NULL);
	if (cpu != raw_smp_processor_id())
		this_cpu_cmpxchg(iolayers_flow_cur, f, NULL);
	/* Only if the task's mark is still @f's (its next may be another's). */
	t = iolayers_table_find(IOLAYERS_T_TASK, f->rd.ur.att_tid);
	if (t && cmpxchg(&t->att, f, NULL) == f)
		cmpxchg_release(&t->state, IOLAYERS_FLOW_ENDED | IOLAYERS_FLOW_ATT,
				IOLAYERS_FLOW_ENDED);
}

/**
 * iolayers_flow_req_start() - Start the flow of a submitted request: an
 *	io_uring read or a Linux AIO one.
 * @req: the request's address (its key; never dereferenced here)
 * @via: IOLAYERS_VIA_URING or IOLAYERS_VIA_AIO
 * @opcode: its IORING_OP_* or IOCB_CMD_*
 * @fd: the file descriptor it names (a fixed file's index with
 *	IOSQE_FIXED_FILE)
 * @user_data: its user_data (its CQE's; an iocb's aio_data)
 *
 * A flow still there for the same address is a request whose completion
 * was not seen (one that posts no CQE on success, IOSQE_CQE_SKIP_SUCCESS):
 * counted stale and replaced. The flow starts with the submitting task as
 * its process and thread, its clock and start stamp set.
 *
 * Context: the submitting task (or its SQPOLL thread), in an RCU
 * read-side critical section.
 * Return: the flow, or NULL (a full table, no memory: counted).
 */
struct iolayers_task_flow *iolayers_flow_req_start(unsigned long req, u8 via, u8 opcode,
						   int fd, u64 user_data)
{
	struct iolayers_task_flow *f = iolayers_table_find(IOLAYERS_T_UREQ, req);

	if (unlikely(f))
		iolayers_flow_req_drop(f);
	f = iolayers_table_alloc(IOLAYERS_T_UREQ);	/* zeroed: in flight */
	if (!f)
		return NULL;
	raw_spin_lock_init(&f->lock);
	f->seq = iolayers_flow_seq();
	f->rd.sys.nr = opcode;
	f->rd.sys.fd = fd;
	f->rd.sys.pos = -1;
	f->rd.sys.via = via;
	f->rd.ur.opcode = opcode;
	f->rd.ur.user_data = user_data;
	f->rd.ur.tid = current->pid;
	f->rd.ur.tgid = current->tgid;
	memcpy(f->rd.ur.comm, current->comm, sizeof(f->rd.ur.comm));
	f->rd.sys.tsc = READ_ONCE(iolayers_clock_tsc);
	f->rd.sys.start = iolayers_stamp(f->rd.sys.tsc);
	iolayers_table_insert(IOLAYERS_T_UREQ, f, req);
	return f;
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_flow_req_start);

/*
 * Current's own entry, idle, marked as running an attempt of @f; a new
 * one (*@spare, taken) if it has none, or if a sweep just took it (GONE).
 * NULL when it cannot be made (no spare: counted when its allocation
 * failed) or the task has a read in flight (never: an attempt runs in
 * io_uring's code, inside no read()). Under @f's raw lock, where nothing
 * may be allocated (the slab allocator's locks are not raw).
 */
static struct iolayers_task_flow *iolayers_flow_att_mark(struct iolayers_task_flow *f,
							 struct iolayers_task_flow **spare)
{
	pid_t tid = current->pid;
	struct iolayers_task_flow *t = iolayers_table_find(IOLAYERS_T_TASK, tid);
	u32 state;

	if (t) {
		WRITE_ONCE(t->att, f);
		state = cmpxchg(&t->state, IOLAYERS_FLOW_ENDED,
				IOLAYERS_FLOW_ENDED | IOLAYERS_FLOW_ATT);
		if (state == IOLAYERS_FLOW_ENDED)
			return t;
		if (state == (IOLAYERS_FLOW_ENDED | IOLAYERS_FLOW_ATT))
			return t;	/* an end not seen: now @f's */
		WRITE_ONCE(t->att, NULL);
		if (!(state & IOLAYERS_FLOW_GONE))
			return NULL;
		iolayers_flow_unhand(t);
	}
	t = *spare;
	if (!t)
		return NULL;
	*spare = NULL;
	raw_spin_lock_init(&t->lock);
	t->tid = tid;
	t->task = current;
	t->att = f;
	t->state = IOLAYERS_FLOW_ENDED | IOLAYERS_FLOW_ATT;
	iolayers_table_insert(IOLAYERS_T_TASK, t, tid);
	/* After the entry: a miss remembered before it is forgotten. */
	smp_mb__before_atomic();
	atomic64_inc(&iolayers_task_inserts);
	return t;
}

/**
 * iolayers_flow_att_begin() - An attempt to issue a request begins.
 * @f: the request's flow
 * @where: IOLAYERS_UR_* of the context it runs in
 *
 * Until its end the current task's probes find @f as their read in
 * flight. An attempt nested in one of the same request (io_read_fixed()
 * calling io_read()) is no new attempt; one still open in another task
 * (its end not seen) is closed first.
 *
 * Context: the task that issues it, preemption disabled (a kprobe).
 * Return: true when the attempt began (its end is to be seen).
 */
bool iolayers_flow_att_begin(struct iolayers_task_flow *f, u8 where)
{
	struct iolayers_task_flow *t, *spare = NULL;
	unsigned long flags;
	bool made = false;
	u64 now;

	/*
	 * A new entry for current, if it may need one, made before @f's
	 * lock: the slab allocator takes a spinlock_t, which may not nest
	 * in a raw one (lockdep says so; on PREEMPT_RT it sleeps).
	 */
	t = iolayers_table_find(IOLAYERS_T_TASK, current->pid);
	if (!t || (READ_ONCE(t->state) & IOLAYERS_FLOW_GONE)) {
		spare = iolayers_table_alloc(IOLAYERS_T_TASK);
		made = true;
	}
again:
	raw_spin_lock_irqsave(&f->lock, flags);
	if (READ_ONCE(f->state) || (f->rd.ur.open && f->task == current)) {
		raw_spin_unlock_irqrestore(&f->lock, flags);
		iolayers_table_unalloc(IOLAYERS_T_TASK, spare);
		return false;
	}
	if (unlikely(f->rd.ur.open))
		iolayers_flow_att_close(f);
	t = iolayers_flow_att_mark(f, &spare);
	if (!t && !made) {
		/*
		 * current's entry went (a sweep marked it gone) after the look
		 * above: once more, with one made (a failure to make it is
		 * counted by the table). Not when it is busy (a read of its own).
		 */
		t = iolayers_table_find(IOLAYERS_T_TASK, current->pid);
		if (!t || (READ_ONCE(t->state) & IOLAYERS_FLOW_GONE)) {
			raw_spin_unlock_irqrestore(&f->lock, flags);
			spare = iolayers_table_alloc(IOLAYERS_T_TASK);
			made = true;
			goto again;
		}
		t = NULL;
	}
	if (!t) {
		f->rd.missed |= IOLAYERS_MISSED_FS;
		raw_spin_unlock_irqrestore(&f->lock, flags);
		iolayers_table_unalloc(IOLAYERS_T_TASK, spare);
		return false;
	}
	now = iolayers_stamp(f->rd.sys.tsc);
	f->rd.ur.open = true;
	f->rd.ur.att_tid = current->pid;
	f->rd.ur.hand_cpu = smp_processor_id();
	f->rd.ur.where |= where;
	if (f->rd.ur.attempts < U8_MAX)
		f->rd.ur.attempts++;
	f->rd.ur.fs_entries = f->rd.fs.entries;
	f->rd.ur.att_start = now;
	if (!f->rd.ur.first)
		f->rd.ur.first = now;
	WRITE_ONCE(f->tid, current->pid);
	WRITE_ONCE(f->task, current);
	iolayers_flow_hand(f);
	raw_spin_unlock_irqrestore(&f->lock, flags);
	iolayers_table_unalloc(IOLAYERS_T_TASK, spare);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_flow_att_begin);

/* The open attempt of @f ends now: its time is added to the issuing. */
static void iolayers_flow_att_time(struct iolayers_task_flow *f)
{
	u64 now = iolayers_stamp(f->rd.sys.tsc);

	f->rd.ur.issue += now - f->rd.ur.att_start;
	f->rd.ur.last_end = now;
}

/**
 * iolayers_flow_att_end() - An attempt to issue a request has returned.
 * @f: the request's flow
 * @again: the attempt did not get the data: it returned -EAGAIN (a retry
 *	follows) or -EIOCBQUEUED (a buffered read armed to be woken when its
 *	page is ready; a direct one that completes later)
 *
 * Its bio still in the slot goes into the bio table (the request made of
 * it may be made in another context now), its time is added to the
 * request's time issuing, and an attempt that entered the FS layer and
 * did not get the data marks the request as having waited for it.
 *
 * Context: the task that ran the attempt, preemption disabled.
 */
void iolayers_flow_att_end(struct iolayers_task_flow *f, bool again)
{
	struct iolayers_read_uring *ur = &f->rd.ur;
	unsigned long flags;

	/*
	 * The slot is the attempt's task's own (a bio it queued and made no
	 * request of yet), flushed before the lock: a failed entry takes it
	 * (iolayers_flow_lost_blk()).
	 */
	if (f->slot.bio && f->task == current)
		iolayers_bio_slot_flush(f);
	raw_spin_lock_irqsave(&f->lock, flags);
	if (READ_ONCE(f->state) || !ur->open || f->task != current) {
		raw_spin_unlock_irqrestore(&f->lock, flags);
		return;
	}
	iolayers_flow_att_time(f);
	if (again && f->rd.fs.entries != ur->fs_entries && !f->rd.fs.direct)
		ur->waited = true;
	iolayers_flow_att_close(f);
	raw_spin_unlock_irqrestore(&f->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_flow_att_end);

/* A request's layer times at its completion, @end its stamp then. */
static void iolayers_flow_req_times(struct iolayers_read_state *rd, u64 end)
{
	struct iolayers_read_uring *ur = &rd->ur;
	bool tsc = rd->sys.tsc;
	u64 last = ur->last_end ?: end;

	rd->sys.ns = iolayers_stamp_ns(tsc, rd->sys.start, end);
	if (rd->fs.reached) {
		rd->fs.off = min(iolayers_stamp_ns(tsc, rd->sys.start, rd->fs.start), rd->sys.ns);
		rd->fs.ns = min(iolayers_stamp_ns(tsc, rd->fs.start, last),
				rd->sys.ns - rd->fs.off);
	}
	if (ur->first) {
		ur->issue_off = min(iolayers_stamp_ns(tsc, rd->sys.start, ur->first), rd->sys.ns);
		ur->issue_ns = min(iolayers_stamp_ns(tsc, 0, ur->issue),
				   rd->sys.ns - ur->issue_off);
	}
}

/*
 * Record a request that completed with @res, at clock stamp @end and
 * CLOCK_MONOTONIC @now: its layer times, cache state, histograms and
 * record, as iolayers_flow_finish() does a read's.
 *
 * Context: task context (the stream's rings are written from tasks
 * only), preemption disabled.
 */
static void iolayers_flow_req_record(struct iolayers_task_flow *f, long res, u64 end, u64 now)
{
	struct iolayers_read_state *rd = &f->rd;
	enum iolayers_cache cache;
	u64 bytes = res > 0 ? res : 0;

	if (unlikely(f->blk_lost))
		rd->missed |= IOLAYERS_MISSED_BLOCK;
	/* An attempt that got no data waited for it (uring.c). */
	rd->cache.iowait |= rd->ur.waited;
	iolayers_flow_req_times(rd, end);
	if (unlikely(f->blk.queue_at))
		iolayers_flow_end_bound(&f->blk, rd->sys.ns, &now);
	/* A read of a socket (its SOCK layer ends at the CQE too). */
	if (unlikely(rd->sock.start)) {
		iolayers_flow_sock_times(rd, end);
		cache = iolayers_sock_state(f, res);
		iolayers_flow_sock_hist(rd, cache, bytes);
	} else {
		cache = iolayers_cache_state(f, res);
	}
	iolayers_hist_note(iolayers_via_layer(rd->sys.via), cache, rd->sys.ns, bytes);
	if (rd->fs.reached)
		iolayers_hist_note(IOLAYERS_L_FS, cache, rd->fs.ns, bytes);
	if (f->blk.nr_rqs)
		iolayers_flow_blk_hist(&f->blk, cache);
	iolayers_stream_store(f, res, now, cache);
	if (unlikely(rd->missed))
		this_cpu_inc(iolayers_missed_reads);
}

/* A request's completion stamps: its clock's (@end) and CLOCK_MONOTONIC. */
static u64 iolayers_flow_req_now(const struct iolayers_read_state *rd, u64 *end)
{
	if (likely(rd->sys.tsc && READ_ONCE(iolayers_clock_tsc)))
		return iolayers_clock_now(end);
	*end = iolayers_stamp(rd->sys.tsc);
	return ktime_get_ns();
}

/*
 * Requests that completed in interrupt context (a direct AIO read's bio
 * completion): stamped there, recorded by a worker in task context, in
 * the order they completed on each CPU.
 */
static LLIST_HEAD(iolayers_reqs_done);
static atomic64_t iolayers_reqs_irq_count;
static void iolayers_reqs_done_fn(struct work_struct *work);
static DECLARE_WORK(iolayers_reqs_done_work, iolayers_reqs_done_fn);

static void iolayers_reqs_done_fn(struct work_struct *work)
{
	struct llist_node *done = llist_reverse_order(llist_del_all(&iolayers_reqs_done));
	struct iolayers_task_flow *f, *next;

	llist_for_each_entry_safe(f, next, done, rd.ur.done) {
		preempt_disable();
		iolayers_flow_req_record(f, f->rd.ur.done_res, f->rd.ur.done_end,
					 f->rd.ur.done_now);
		preempt_enable();
		iolayers_table_retire(f);
	}
}

/**
 * iolayers_reqs_irq_done() - Requests that completed in interrupt context.
 *
 * Return: how many, since the module was loaded (their records written
 * by the worker, in task context).
 */
u64 iolayers_reqs_irq_done(void)
{
	return atomic64_read(&iolayers_reqs_irq_count);
}

/**
 * iolayers_reqs_irq_reset() - Zero that count (`reset`).
 */
void iolayers_reqs_irq_reset(void)
{
	atomic64_set(&iolayers_reqs_irq_count, 0);
}

/**
 * iolayers_reqs_flush() - Record the requests that completed in interrupt
 *	context and wait for none to be left.
 *
 * At unload, after the probes are detached and before the tables go: no
 * request is left unrecorded, none unretired.
 *
 * Context: process context.
 */
void iolayers_reqs_flush(void)
{
	flush_work(&iolayers_reqs_done_work);
	/* A completion queued while the work ran: its records too. */
	iolayers_reqs_done_fn(NULL);
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_reqs_flush);

/*
 * End @f's flow (in flight until now): no completion folds into it from
 * here on, and no attempt runs in it. False if it had ended already.
 */
static bool iolayers_flow_req_end(struct iolayers_task_flow *f)
{
	unsigned long flags;
	bool ended, own;

	raw_spin_lock_irqsave(&f->lock, flags);
	/* The slot is the open attempt's task's, or nobody's. */
	own = !f->rd.ur.open || f->task == current;
	ended = !READ_ONCE(f->state);
	if (ended) {
		/* As iolayers_flow_end(): a completion reads @state first. */
		smp_store_release(&f->state, IOLAYERS_FLOW_ENDED);
		if (unlikely(f->rd.ur.open)) {
			/*
			 * Completed inside its own attempt (a buffered AIO
			 * read, done in aio_read()): that time was issuing.
			 */
			if (own)
				iolayers_flow_att_time(f);
			iolayers_flow_att_close(f);
		}
	}
	raw_spin_unlock_irqrestore(&f->lock, flags);
	/*
	 * A bio left in the slot by an attempt whose end was not seen: its
	 * request, made later, is late (the flow ended). After the lock, as
	 * a failed entry takes it. Only from the attempt's own task (or with
	 * none open): the slot may be in use by it otherwise, interrupted
	 * or on another CPU (its request then is not bound).
	 */
	if (ended && unlikely(f->slot.bio) && own && in_task())
		iolayers_bio_slot_flush(f);
	return ended;
}

/**
 * iolayers_flow_req_finish() - A request's completion was posted: record
 *	it and remove its flow.
 * @f: the request's flow
 * @res: the CQE's (or the AIO event's) result
 *
 * In interrupt context (a direct AIO read completes in its bio's) the
 * completion is stamped and its record written later, by a worker: the
 * stream's rings are written from tasks only.
 *
 * Context: any: the task that posts the CQE (the submitter's task work,
 * an io-wq worker, the SQPOLL thread), or an AIO request's completion;
 * in an RCU read-side critical section.
 */
void iolayers_flow_req_finish(struct iolayers_task_flow *f, long res)
{
	u64 end, now;

	if (!iolayers_flow_req_end(f))
		return;
	if (!iolayers_table_unlink(IOLAYERS_T_UREQ, f))
		return;
	if (unlikely(!in_task())) {
		f->rd.ur.done_res = res;
		f->rd.ur.done_now = iolayers_flow_req_now(&f->rd, &f->rd.ur.done_end);
		atomic64_inc(&iolayers_reqs_irq_count);
		if (llist_add(&f->rd.ur.done, &iolayers_reqs_done))
			queue_work(system_highpri_wq, &iolayers_reqs_done_work);
		return;
	}
	preempt_disable();
	now = iolayers_flow_req_now(&f->rd, &end);
	iolayers_flow_req_record(f, res, end, now);
	preempt_enable();
	iolayers_table_retire(f);
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_flow_req_finish);

/**
 * iolayers_flow_req_drop() - Remove a request's flow without a record.
 * @f: the flow, found in the request table
 *
 * A request whose completion was not seen (its address used again by a
 * new request), counted stale.
 *
 * Context: any, in an RCU read-side critical section.
 */
void iolayers_flow_req_drop(struct iolayers_task_flow *f)
{
	iolayers_flow_req_end(f);
	if (iolayers_table_unlink(IOLAYERS_T_UREQ, f)) {
		iolayers_table_drop(IOLAYERS_T_UREQ, IOLAYERS_DROP_STALE);
		iolayers_table_retire(f);
	}
}

/* iolayers_reqs_expire()'s test: a request older than @arg's age. */
static bool iolayers_req_expired(void *entry, void *arg)
{
	struct iolayers_task_flow *f = entry;
	const u64 *max_age_ns = arg;
	u64 now = ktime_get_ns();

	/* One added on another CPU after @now was read is not old. */
	if (f->e.born_ns >= now || now - f->e.born_ns <= *max_age_ns)
		return false;
	/* Closes an attempt still open: no hand-off outlives the entry. */
	iolayers_flow_req_end(f);
	return true;
}

/**
 * iolayers_reqs_expire() - Remove the requests in flight longer than an
 *	age.
 * @max_age_ns: the age
 *
 * A request whose completion was not seen (its CQE overflowed the ring,
 * the ring went away) stays in the table otherwise until a new request
 * takes its address; one really in flight that long loses its record
 * (its CQE finds nothing). Counted ``expired``.
 *
 * Context: process context (the expiry work).
 */
void iolayers_reqs_expire(u64 max_age_ns)
{
	int n = iolayers_table_prune(IOLAYERS_T_UREQ, iolayers_req_expired, &max_age_ns);

	while (n-- > 0)
		iolayers_table_drop(IOLAYERS_T_UREQ, IOLAYERS_DROP_EXPIRED);
}

static bool iolayers_req_in_flight(const void *entry)
{
	const struct iolayers_task_flow *f = entry;

	return !READ_ONCE(f->state);
}

/**
 * iolayers_reqs_in_flight() - io_uring requests of followed tasks in
 *	flight now.
 *
 * Context: process context (a `stats` read); walks the request table.
 * Return: the number of requests between their submission and their CQE.
 */
int iolayers_reqs_in_flight(void)
{
	return iolayers_table_count(IOLAYERS_T_UREQ, iolayers_req_in_flight);
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_reqs_in_flight);
