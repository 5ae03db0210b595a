// SPDX-License-Identifier: GPL-2.0
/*
 * Bounded RCU hash tables: readers (probes in any context, hard interrupt
 * included) walk a bucket under RCU; writers take the raw spinlock of the
 * bucket's group with interrupts off (a spinlock_t sleeps on PREEMPT_RT).
 * Nothing here sleeps; entries are allocated with GFP_NOWAIT (no
 * reserves), or on PREEMPT_RT taken from lists filled in process context
 * (iolayers_free_fill()).
 *
 * A removed entry is reused, not freed: after a grace period it is zeroed
 * and joins its CPU's short list for its table, and the next
 * entry that table allocates on that CPU is taken from there (under KASAN
 * it is freed, so that a late access is still reported). An uncached read makes
 * and removes a bio's and a request's entry; through kzalloc() and
 * kfree_rcu() that cost about 1,100 instructions per read counted on
 * Debian's 6.1 (the allocation and the batched free, and new slab pages
 * cleared under init_on_alloc, the slab growing by every entry that waits
 * for its grace period), and on 7.2 once 2,000 more (Documentation/
 * benchmarks.rst). Entries beyond a list's bound are freed; every list is
 * emptied at unload, after rcu_barrier(). A list must hold what its CPU
 * removes during a grace period, or every entry past it is freed and one
 * allocated anew in its place: fio's io_uring engine at 8 requests in
 * flight on 6.1 under TCG cost 3,763 instructions a request with lists
 * of 64 and 2,830 with lists of 1,024 (make profile; kzalloc()'s zeroing,
 * new slab pages cleared under init_on_alloc, the slab's paths). So a
 * list holds its table's bound spread over the CPUs online at load (a
 * VM may declare many more possible), at least
 * IOLAYERS_FREE_MIN and at most IOLAYERS_FREE_MAX entries: all of them
 * together about one full table more than the live entries (more only
 * where IOLAYERS_FREE_MIN per CPU is more), shown in memory_tables and,
 * apart, with their bound, in memory_reuse and memory_reuse_max. They
 * are outside a table's bound and its count (each was counted while in
 * the table). On CPUs whose RCU callbacks are offloaded and lazy
 * (rcu_nocbs= with CONFIG_RCU_LAZY) the lists refill seconds late, and
 * entries are then mostly allocated anew, as before.
 *
 * Removed entries wait for their grace period in batches: each CPU chains
 * the entries removed on it, and one call_rcu() for the last of
 * IOLAYERS_RETIRE_BATCH covers them all (each was out of its bucket
 * before it). A call_rcu() per entry, and the RCU softirq's work for
 * each, were about 420 of the 4,300 instructions an uncached read cost
 * on 6.1 (two entries a read; make ab, benchmarks.rst). A CPU that stops
 * removing keeps up to
 * IOLAYERS_RETIRE_BATCH - 1 entries waiting (outside the tables' counts,
 * as the lists' are) until it removes more, or until unload.
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/export.h>
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/hash.h>
#include <linux/rculist.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <iolayers/compat.h>
#include <iolayers/percpu.h>
#include <iolayers/request.h>
#include <iolayers/file.h>
#include <iolayers/flow.h>
#include <iolayers/sock.h>
#include <iolayers/table.h>

#define IOLAYERS_TABLE_LOCKS	64

/* Most threads followed at once (max_flows=, settings.c). */
unsigned int iolayers_max_flows = 4096;

struct iolayers_table {
	const char *name;
	struct hlist_head *buckets;
	unsigned int bits;
	size_t entry_size;
	unsigned int bound_mult;	/* the bound is bound_mult * max_flows */
	unsigned int free_max;		/* entries kept to reuse, per CPU */
	atomic_t *nr;			/* &iolayers_table_nr[this table].nr */
	atomic_t high;
	raw_spinlock_t locks[IOLAYERS_TABLE_LOCKS];	/* writers, per bucket group */
};

/*
 * Buckets are sized at load from each table's bound (max_flows times its
 * multiple): at most 4 entries per bucket when a table is full, so a
 * lookup in hard interrupt context stays short at any max_flows.
 */
#define IOLAYERS_BUCKET_LOAD_BITS	2
#define IOLAYERS_MIN_BITS		6
#define IOLAYERS_MAX_BITS		20

/* Entries per table, apart so that probes test emptiness inline. */
struct iolayers_table_count iolayers_table_nr[IOLAYERS_NR_TABLES];
EXPORT_SYMBOL_IF_KUNIT(iolayers_table_nr);

#define IOLAYERS_TABLE(_id, _name, _type, _mult) {			\
	.name = _name,							\
	.entry_size = sizeof(_type),					\
	.bound_mult = _mult,						\
	.nr = &iolayers_table_nr[_id].nr,				\
	.high = ATOMIC_INIT(0),						\
	.locks = { [0 ... IOLAYERS_TABLE_LOCKS - 1] =			\
		   __RAW_SPIN_LOCK_UNLOCKED(iolayers_table.locks) },		\
}

static struct iolayers_table iolayers_tables[IOLAYERS_NR_TABLES] = {
	[IOLAYERS_T_TASK] = IOLAYERS_TABLE(IOLAYERS_T_TASK, "task", struct iolayers_task_flow, 1),
	[IOLAYERS_T_BIO] = IOLAYERS_TABLE(IOLAYERS_T_BIO, "bio", struct iolayers_bio, 16),
	[IOLAYERS_T_RQ] = IOLAYERS_TABLE(IOLAYERS_T_RQ, "rq", struct iolayers_rq, 16),
	[IOLAYERS_T_TGID] = IOLAYERS_TABLE(IOLAYERS_T_TGID, "tgid", struct iolayers_tgid, 1),
	[IOLAYERS_T_FILE] = IOLAYERS_TABLE(IOLAYERS_T_FILE, "file", struct iolayers_file, 1),
	[IOLAYERS_T_SOCK] = IOLAYERS_TABLE(IOLAYERS_T_SOCK, "sock", struct iolayers_sockent, 1),
	[IOLAYERS_T_UREQ] = IOLAYERS_TABLE(IOLAYERS_T_UREQ, "uring", struct iolayers_task_flow, 4),
};

static DEFINE_PER_CPU(u64 [IOLAYERS_NR_TABLES][IOLAYERS_NR_DROPS], iolayers_drops);

/*
 * Removed entries waiting for their grace period together, per CPU; one
 * under KASAN, which reports a late access only once the entry is freed.
 */
#define IOLAYERS_RETIRE_BATCH	(IS_ENABLED(CONFIG_KASAN) ? 1 : 16)

struct iolayers_retiring {
	struct iolayers_entry *last;
	unsigned int n;
};

static DEFINE_PER_CPU(struct iolayers_retiring, iolayers_retiring);

/* Entries to reuse, per CPU and table: at most the table's @free_max. */
#define IOLAYERS_FREE_MIN	64
#define IOLAYERS_FREE_MAX	1024

struct iolayers_free_list {
	struct iolayers_entry *head;
	unsigned int n;
};

static DEFINE_PER_CPU(struct iolayers_free_list [IOLAYERS_NR_TABLES], iolayers_free);

/* @e on @fl, by its CPU with interrupts off (or before any probe runs). */
static void iolayers_free_push(struct iolayers_free_list *fl, struct iolayers_entry *e)
{
	e->free_next = fl->head;
	fl->head = e;
	fl->n++;
}

/*
 * An entry past its grace period joins this CPU's list, zeroed here (off
 * the probes' path; nothing of its last life survives to be mistaken for
 * it, such as a task entry's task and tid), or is freed: always under
 * KASAN, whose debug kernels should see a late access as one.
 */
static void iolayers_entry_recycle(struct rcu_head *rcu)
{
	struct iolayers_entry *e = container_of(rcu, struct iolayers_entry, rcu);
	unsigned int t = e->table;
	unsigned int max = iolayers_tables[t].free_max;	/* set at load */
	struct iolayers_free_list *fl;
	unsigned long flags;

	if (IS_ENABLED(CONFIG_KASAN) || this_cpu_read(iolayers_free[t].n) >= max) {
		kfree(e);
		return;
	}
	memset(e, 0, iolayers_tables[t].entry_size);
	local_irq_save(flags);
	fl = this_cpu_ptr(&iolayers_free[t]);
	if (fl->n < max) {
		iolayers_free_push(fl, e);
		e = NULL;
	}
	local_irq_restore(flags);
	kfree(e);
}

/* A batch's grace period is over: every entry of it is recycled. */
static void iolayers_retired_recycle(struct rcu_head *rcu)
{
	struct iolayers_entry *e = container_of(rcu, struct iolayers_entry, rcu), *next;

	for (; e; e = next) {
		next = e->retired;	/* before the recycling clears it */
		iolayers_entry_recycle(&e->rcu);
	}
}

/**
 * iolayers_table_retire() - Recycle an unlinked entry after a grace period.
 * @entry: out of its bucket by iolayers_table_unlink(), which returned true
 *
 * It joins this CPU's batch; the batch, when full, waits for one grace
 * period, then every entry of it is recycled.
 *
 * Context: any.
 */
void iolayers_table_retire(void *entry)
{
	struct iolayers_entry *e = entry;
	struct iolayers_retiring *r;
	unsigned long flags;

	local_irq_save(flags);
	r = this_cpu_ptr(&iolayers_retiring);
	e->retired = r->last;
	if (++r->n < IOLAYERS_RETIRE_BATCH) {
		r->last = e;
		e = NULL;
	} else {
		r->last = NULL;
		r->n = 0;
	}
	local_irq_restore(flags);
	if (e)
		call_rcu(&e->rcu, iolayers_retired_recycle);
}

/*
 * Every CPU's batch, an offline one's too, sent to its grace period
 * (unload, before rcu_barrier()).
 */
static void iolayers_retiring_flush(void)
{
	struct iolayers_retiring *r;
	int cpu;

	for_each_possible_cpu(cpu) {
		r = per_cpu_ptr(&iolayers_retiring, cpu);
		if (r->last)
			call_rcu(&r->last->rcu, iolayers_retired_recycle);
		r->last = NULL;
		r->n = 0;
	}
}

/* An entry of this CPU's list for @t (zeroed but for its link), or NULL. */
static struct iolayers_entry *iolayers_entry_reuse(enum iolayers_table_id t)
{
	struct iolayers_free_list *fl;
	struct iolayers_entry *e;
	unsigned long flags;

	local_irq_save(flags);
	fl = this_cpu_ptr(&iolayers_free[t]);
	e = fl->head;
	if (e) {
		fl->head = e->free_next;
		fl->n--;
		e->free_next = NULL;
	}
	local_irq_restore(flags);
	return e;
}

/*
 * PREEMPT_RT: the slab allocator's locks sleep there, so a probe, which
 * runs with preemption off, allocates nothing; it takes entries from its
 * CPU's lists only. Each online CPU's lists are filled to their bound at
 * load, and a CPU's list that falls below half of it is filled again by a
 * work item on that CPU; a CPU brought online later is filled as it comes
 * up (a CPU hotplug state's callback, on that CPU); a probe that finds
 * its list empty drops, counted as nomem.
 */
struct iolayers_refill {
	struct work_struct work;
	int cpu;
};

static DEFINE_PER_CPU(struct iolayers_refill, iolayers_refill);
/* The CPU hotplug state that fills a CPU's lists as it comes online. */
static int iolayers_free_hp;

/*
 * Fill @cpu's list of every table up to its bound, where nobody else
 * touches it: on @cpu with interrupts off (a probe there), or before the
 * probes are attached (@direct). Context: process context, may sleep.
 */
static void iolayers_free_fill(int cpu, bool direct)
{
	struct iolayers_entry *e;
	unsigned long flags;
	unsigned int t;
	bool kept;

	for (t = 0; t < IOLAYERS_NR_TABLES; t++) {
		while (READ_ONCE(per_cpu_ptr(&iolayers_free[t], cpu)->n) <
		       iolayers_tables[t].free_max) {
			e = kzalloc(iolayers_tables[t].entry_size, GFP_KERNEL | __GFP_NOWARN);
			if (!e)
				return;
			local_irq_save(flags);
			kept = direct || smp_processor_id() == cpu;
			if (kept)
				iolayers_free_push(per_cpu_ptr(&iolayers_free[t], cpu), e);
			local_irq_restore(flags);
			if (!kept) {
				/* The CPU went offline: its worker runs elsewhere. */
				kfree(e);
				return;
			}
		}
	}
}

static void iolayers_refill_fn(struct work_struct *work)
{
	struct iolayers_refill *r = container_of(work, struct iolayers_refill, work);

	iolayers_free_fill(r->cpu, false);
}

/* Context: any but NMI (a probe), on PREEMPT_RT. */
static void iolayers_free_low(struct iolayers_table *tb, enum iolayers_table_id t)
{
	if (this_cpu_read(iolayers_free[t].n) < tb->free_max / 2)
		schedule_work_on(smp_processor_id(), this_cpu_ptr(&iolayers_refill.work));
}

/* A CPU comes online: on it, in its hotplug thread (may sleep). */
static int iolayers_free_online(unsigned int cpu)
{
	iolayers_free_fill(cpu, false);
	return 0;
}

/* Every CPU's lists emptied (unload, after rcu_barrier()). */
static void iolayers_free_lists_empty(void)
{
	struct iolayers_free_list *fl;
	struct iolayers_entry *e;
	unsigned int t;
	int cpu;

	for_each_possible_cpu(cpu)
		for (t = 0; t < IOLAYERS_NR_TABLES; t++) {
			fl = per_cpu_ptr(&iolayers_free[t], cpu);
			while ((e = fl->head)) {
				fl->head = e->free_next;
				kfree(e);
			}
			fl->n = 0;
		}
}

static const char * const iolayers_drop_names[IOLAYERS_NR_DROPS] = {
	[IOLAYERS_DROP_TABLE_FULL] = "table_full",
	[IOLAYERS_DROP_NOMEM] = "nomem",
	[IOLAYERS_DROP_STALE] = "stale",
	[IOLAYERS_DROP_EXPIRED] = "expired",
};

static struct hlist_head *iolayers_bucket(struct iolayers_table *tb, unsigned long key)
{
	return &tb->buckets[hash_long(key, tb->bits)];
}

static raw_spinlock_t *iolayers_table_lock(struct iolayers_table *tb, unsigned long key)
{
	return &tb->locks[hash_long(key, tb->bits) % IOLAYERS_TABLE_LOCKS];
}

static void iolayers_table_free_all(enum iolayers_table_id t);

/**
 * iolayers_tables_init() - Allocate every table's buckets for max_flows.
 *
 * Context: module load, process context (max_flows is a load parameter).
 * Return: 0, -ENOMEM, or the CPU hotplug state's error (everything
 * allocated so far is freed).
 */
int iolayers_tables_init(void)
{
	unsigned int t, i, bits;
	u64 bound;
	int cpu;

	/* Before anything that fails: iolayers_tables_exit() cancels them. */
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		for_each_possible_cpu(cpu) {
			per_cpu_ptr(&iolayers_refill, cpu)->cpu = cpu;
			INIT_WORK(&per_cpu_ptr(&iolayers_refill, cpu)->work, iolayers_refill_fn);
		}
	}
	for (t = 0; t < IOLAYERS_NR_TABLES; t++) {
		struct iolayers_table *tb = &iolayers_tables[t];

		bound = (u64)iolayers_max_flows * tb->bound_mult;
		tb->free_max = clamp_t(u64, div_u64(bound, num_online_cpus()),
				       IOLAYERS_FREE_MIN, IOLAYERS_FREE_MAX);
		bits = order_base_2(bound);
		bits = bits > IOLAYERS_BUCKET_LOAD_BITS ? bits - IOLAYERS_BUCKET_LOAD_BITS : 0;
		tb->bits = clamp_t(unsigned int, bits, IOLAYERS_MIN_BITS, IOLAYERS_MAX_BITS);
		tb->buckets = kvmalloc_array(1U << tb->bits, sizeof(*tb->buckets), GFP_KERNEL);
		if (!tb->buckets) {
			iolayers_tables_exit();
			return -ENOMEM;
		}
		for (i = 0; i < (1U << tb->bits); i++)
			INIT_HLIST_HEAD(&tb->buckets[i]);
	}
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		int ret;

		/*
		 * No probe is attached yet. Under the hotplug lock: a CPU that
		 * comes up after it is the callback's.
		 */
		cpus_read_lock();
		ret = cpuhp_setup_state_nocalls_cpuslocked(CPUHP_AP_ONLINE_DYN,
							   "iolayers/table:online",
							   iolayers_free_online, NULL);
		if (ret > 0) {
			iolayers_free_hp = ret;
			for_each_online_cpu(cpu)
				iolayers_free_fill(cpu, true);
		}
		cpus_read_unlock();
		if (ret < 0) {
			iolayers_tables_exit();
			return ret;
		}
	}
	return 0;
}

/**
 * iolayers_tables_exit() - Free every entry and the buckets (unload).
 *
 * Context: process context, after every probe is unregistered and
 * tracepoint_synchronize_unregister() returned.
 */
void iolayers_tables_exit(void)
{
	unsigned int t;

	for (t = 0; t < IOLAYERS_NR_TABLES; t++) {
		if (!iolayers_tables[t].buckets)
			continue;
		iolayers_table_free_all(t);
		kvfree(iolayers_tables[t].buckets);
		iolayers_tables[t].buckets = NULL;
	}
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		int cpu;

		if (iolayers_free_hp > 0)
			cpuhp_remove_state_nocalls(iolayers_free_hp);
		iolayers_free_hp = 0;
		for_each_possible_cpu(cpu)
			cancel_work_sync(&per_cpu_ptr(&iolayers_refill, cpu)->work);
	}
	/*
	 * The batches still filling are sent off, then every recycling
	 * callback (the module's code) is waited for.
	 */
	iolayers_retiring_flush();
	rcu_barrier();
	iolayers_free_lists_empty();
}

/**
 * iolayers_table_find() - Find an entry by key.
 * @t: the table
 * @key: the key
 *
 * Context: any, in an RCU read-side critical section (rcu_read_lock(), or
 * preemption disabled); the entry stays valid until the
 * caller unlocks.
 * Return: the entry (its struct iolayers_entry first), or NULL.
 */
void *iolayers_table_find(enum iolayers_table_id t, unsigned long key)
{
	struct iolayers_table *tb = &iolayers_tables[t];
	struct iolayers_entry *e;

	hlist_for_each_entry_rcu(e, iolayers_bucket(tb, key), node)
		if (e->key == key)
			return e;
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_table_find);

/**
 * iolayers_table_alloc() - Allocate a zeroed entry, counted in its table.
 * @t: the table
 *
 * The entry is not in the table yet: the caller initialises it and then
 * publishes it with iolayers_table_insert(), so that nobody finds it half
 * made. Its @born_ns is set. A full table or a failed allocation (never
 * sleeping, no reserves: probes run in any context) is counted and
 * returns NULL.
 *
 * Context: any.
 * Return: the entry, or NULL.
 */
void *iolayers_table_alloc(enum iolayers_table_id t)
{
	struct iolayers_table *tb = &iolayers_tables[t];
	struct iolayers_entry *e;
	int n, high;

	n = atomic_inc_return(tb->nr);
	if (n > READ_ONCE(iolayers_max_flows) * tb->bound_mult) {
		atomic_dec(tb->nr);
		iolayers_table_drop(t, IOLAYERS_DROP_TABLE_FULL);
		return NULL;
	}
	e = iolayers_entry_reuse(t);
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		iolayers_free_low(tb, t);
	else if (!e)
		e = kzalloc(tb->entry_size, GFP_NOWAIT | __GFP_NOWARN);
	if (!e) {
		atomic_dec(tb->nr);
		iolayers_table_drop(t, IOLAYERS_DROP_NOMEM);
		return NULL;
	}
	high = atomic_read(&tb->high);
	while (n > high && !atomic_try_cmpxchg(&tb->high, &high, n))
		;
	e->born_ns = ktime_get_ns();
	e->table = t;
	return e;
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_table_alloc);

/**
 * iolayers_table_unalloc() - Give back an entry iolayers_table_alloc()
 *	made and nobody saw.
 * @t: its table
 * @entry: the entry, never inserted (NULL: nothing to give back)
 *
 * It is zeroed and joins this CPU's list, which this CPU took it from (or
 * found empty), so the list passes its bound by no more than what was
 * recycled on the CPU meanwhile; nothing is freed here (on PREEMPT_RT a
 * probe may not).
 *
 * Context: any, preemption disabled since the allocation.
 */
void iolayers_table_unalloc(enum iolayers_table_id t, void *entry)
{
	struct iolayers_entry *e = entry;
	unsigned long flags;

	if (!e)
		return;
	atomic_dec(iolayers_tables[t].nr);
	memset(e, 0, iolayers_tables[t].entry_size);
	local_irq_save(flags);
	iolayers_free_push(this_cpu_ptr(&iolayers_free[t]), e);
	local_irq_restore(flags);
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_table_unalloc);

/**
 * iolayers_table_insert() - Publish an initialised entry under its key.
 * @t: the table
 * @entry: from iolayers_table_alloc(), initialised
 * @key: its key; the caller makes sure no other live entry has it (a
 *	newer entry is found before an older one with the same key)
 *
 * Context: any, in an RCU read-side critical section.
 */
void iolayers_table_insert(enum iolayers_table_id t, void *entry, unsigned long key)
{
	struct iolayers_table *tb = &iolayers_tables[t];
	raw_spinlock_t *lock = iolayers_table_lock(tb, key);	/* the bucket group's */
	struct iolayers_entry *e = entry;
	unsigned long flags;

	e->key = key;
	raw_spin_lock_irqsave(lock, flags);
	hlist_add_head_rcu(&e->node, iolayers_bucket(tb, key));
	raw_spin_unlock_irqrestore(lock, flags);
}

/**
 * iolayers_table_unlink() - Take an entry out of its table, not yet
 *	retired.
 * @t: the table
 * @entry: the entry, found under the caller's rcu_read_lock()
 *
 * Two contexts may race to remove the same entry (e.g. a completion and the
 * expiry work): exactly one of them wins, and must hand it to
 * iolayers_table_retire() once nothing of ours points to it any more.
 *
 * Context: any.
 * Return: true if this call removed it.
 */
bool iolayers_table_unlink(enum iolayers_table_id t, void *entry)
{
	struct iolayers_table *tb = &iolayers_tables[t];
	struct iolayers_entry *e = entry;
	raw_spinlock_t *lock = iolayers_table_lock(tb, e->key);	/* the bucket group's */
	unsigned long flags;
	bool removed = false;

	raw_spin_lock_irqsave(lock, flags);
	if (!hlist_unhashed(&e->node)) {
		hlist_del_init_rcu(&e->node);
		removed = true;
	}
	raw_spin_unlock_irqrestore(lock, flags);
	if (removed)
		atomic_dec(tb->nr);
	return removed;
}

/**
 * iolayers_table_del() - Remove an entry and reuse it after a grace period.
 * @t: the table
 * @entry: the entry, found under the caller's rcu_read_lock()
 *
 * iolayers_table_unlink(), and iolayers_table_retire() if this call won.
 *
 * Context: any.
 * Return: true if this call removed it.
 */
bool iolayers_table_del(enum iolayers_table_id t, void *entry)
{
	if (!iolayers_table_unlink(t, entry))
		return false;
	iolayers_table_retire(entry);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_table_del);

/**
 * iolayers_table_drop() - Count a dropped event of a table.
 * @t: the table
 * @cause: why
 *
 * Context: any.
 */
void iolayers_table_drop(enum iolayers_table_id t, enum iolayers_drop cause)
{
	this_cpu_inc(iolayers_drops[t][cause]);
}

/**
 * iolayers_table_del_stale() - Remove an entry found to be stale, counted.
 * @t: the table
 * @entry: the entry, found under the caller's rcu_read_lock()
 *
 * Counted (``stale``) only by the call that removes it.
 *
 * Context: any.
 */
void iolayers_table_del_stale(enum iolayers_table_id t, void *entry)
{
	if (iolayers_table_del(t, entry))
		iolayers_table_drop(t, IOLAYERS_DROP_STALE);
}

/**
 * iolayers_expired() - Is an entry older than the expiry age?
 * @born_ns: when it was added (ktime_get_ns())
 * @now_ns: now
 * @max_age_ns: the age beyond which it is expired; 0 expires everything
 *	added before now
 *
 * An entry added after @now_ns was read (another CPU) is never expired.
 *
 * Context: any.
 * Return: true when @born_ns is more than @max_age_ns before @now_ns.
 */
VISIBLE_IF_KUNIT bool iolayers_expired(u64 born_ns, u64 now_ns, u64 max_age_ns)
{
	return born_ns < now_ns && now_ns - born_ns > max_age_ns;
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_expired);

/* What an expiry walk compares each entry's age with. */
struct iolayers_expiry {
	u64 now_ns;
	u64 max_age_ns;
};

static bool iolayers_entry_expired(void *entry, void *arg)
{
	const struct iolayers_entry *e = entry;
	const struct iolayers_expiry *x = arg;

	return iolayers_expired(e->born_ns, x->now_ns, x->max_age_ns);
}

/**
 * iolayers_table_expire() - Remove the entries older than an age.
 * @t: the table
 * @max_age_ns: entries added longer ago than this are removed and counted
 *
 * Context: process context (the expiry work); takes each bucket group's
 * lock in turn.
 */
void iolayers_table_expire(enum iolayers_table_id t, u64 max_age_ns)
{
	struct iolayers_expiry x = { .now_ns = ktime_get_ns(), .max_age_ns = max_age_ns };
	int n = iolayers_table_prune(t, iolayers_entry_expired, &x);

	if (n)
		this_cpu_add(iolayers_drops[t][IOLAYERS_DROP_EXPIRED], n);
}

/**
 * iolayers_table_prune() - Remove the entries a test picks.
 * @t: the table
 * @prune: called for each entry under rcu_read_lock(), with @arg; true
 *	removes it (the callback does what must precede the removal)
 * @arg: passed to @prune
 *
 * Context: process context; takes each bucket group's lock in turn.
 * Return: the number of entries this call removed.
 */
int iolayers_table_prune(enum iolayers_table_id t, bool (*prune)(void *entry, void *arg),
			 void *arg)
{
	struct iolayers_table *tb = &iolayers_tables[t];
	struct iolayers_entry *e;
	unsigned int i;
	int n = 0;

	if (!atomic_read(tb->nr))
		return 0;
	rcu_read_lock();
	for (i = 0; i < (1U << tb->bits); i++)
		hlist_for_each_entry_rcu(e, &tb->buckets[i], node)
			if (prune(e, arg) && iolayers_table_del(t, e))
				n++;
	rcu_read_unlock();
	return n;
}

/**
 * iolayers_tables_reset() - Zero the drop counters and high-water marks
 *	(`reset`).
 *
 * A table's high-water mark restarts at its entries now.
 *
 * Context: process context; drops racing with it may survive.
 */
void iolayers_tables_reset(void)
{
	int t;

	IOLAYERS_PERCPU_ZERO(iolayers_drops);
	for (t = 0; t < IOLAYERS_NR_TABLES; t++)
		atomic_set(&iolayers_tables[t].high, atomic_read(iolayers_tables[t].nr));
}

/**
 * iolayers_table_count() - Entries for which a test holds.
 * @t: the table
 * @test: the test, called under rcu_read_lock()
 *
 * Context: any; walks every bucket (meant for `stats`, not probes).
 * Return: the number of entries passing @test.
 */
int iolayers_table_count(enum iolayers_table_id t, bool (*test)(const void *entry))
{
	struct iolayers_table *tb = &iolayers_tables[t];
	struct iolayers_entry *e;
	unsigned int i;
	int n = 0;

	if (!atomic_read(tb->nr))
		return 0;
	rcu_read_lock();
	for (i = 0; i < (1U << tb->bits); i++)
		hlist_for_each_entry_rcu(e, &tb->buckets[i], node)
			n += test(e);
	rcu_read_unlock();
	return n;
}

/*
 * iolayers_table_free_all() - Free every entry (unload).
 * @t: the table
 *
 * Context: process context, after every probe is unregistered and
 * tracepoint_synchronize_unregister() returned.
 */
static void iolayers_table_free_all(enum iolayers_table_id t)
{
	struct iolayers_table *tb = &iolayers_tables[t];
	struct iolayers_entry *e;
	struct hlist_node *tmp;
	unsigned int i;

	for (i = 0; i < (1U << tb->bits); i++)
		hlist_for_each_entry_safe(e, tmp, &tb->buckets[i], node) {
			hlist_del(&e->node);
			atomic_dec(tb->nr);
			kfree(e);
		}
}

/**
 * iolayers_table_occupancy() - Entries in a table now.
 * @t: the table
 * @high_water: if not NULL, set to the most entries seen at once
 *
 * Return: the number of entries.
 */
int iolayers_table_occupancy(enum iolayers_table_id t, int *high_water)
{
	if (high_water)
		*high_water = atomic_read(&iolayers_tables[t].high);
	return atomic_read(iolayers_tables[t].nr);
}

/**
 * iolayers_tables_bytes() - Memory the tables take now: their buckets,
 *	entries, and the entries kept on the CPUs' lists to reuse (each
 *	counted at its size, not its allocator's).
 * @reuse: set to the part of it the lists keep, or NULL
 * @reuse_max: set to the most the lists may keep (every list full), or NULL
 *
 * The lists fill as far as their CPUs remove entries faster than grace
 * periods end, so they may grow long after the live entries have settled:
 * a test of a leak compares the rest.
 *
 * Return: bytes.
 */
size_t iolayers_tables_bytes(size_t *reuse, size_t *reuse_max)
{
	size_t bytes = 0, kept_bytes = 0, max_bytes = 0;
	unsigned int kept;
	int t, cpu;

	for (t = 0; t < IOLAYERS_NR_TABLES; t++) {
		const struct iolayers_table *tb = &iolayers_tables[t];

		if (tb->buckets)
			bytes += ((size_t)1 << tb->bits) * sizeof(*tb->buckets);
		kept = 0;
		for_each_possible_cpu(cpu) {
			/* A hint: each list changes on its own CPU meanwhile. */
			kept += data_race(per_cpu_ptr(&iolayers_free[t], cpu)->n);
		}
		bytes += ((size_t)atomic_read(tb->nr) + kept) * tb->entry_size;
		kept_bytes += (size_t)kept * tb->entry_size;
		max_bytes += (size_t)tb->free_max * num_possible_cpus() * tb->entry_size;
	}
	if (reuse)
		*reuse = kept_bytes;
	if (reuse_max)
		*reuse_max = max_bytes;
	return bytes;
}

/**
 * iolayers_table_bound() - Most entries a table may hold.
 * @t: the table
 *
 * Return: the bound (a multiple of max_flows).
 */
unsigned int iolayers_table_bound(enum iolayers_table_id t)
{
	return READ_ONCE(iolayers_max_flows) * iolayers_tables[t].bound_mult;
}

/**
 * iolayers_table_drops() - Drops of one cause in a table, summed over CPUs.
 * @t: the table
 * @cause: the cause
 *
 * Return: the count.
 */
u64 iolayers_table_drops(enum iolayers_table_id t, enum iolayers_drop cause)
{
	return IOLAYERS_PERCPU_SUM(iolayers_drops, [t][cause]);
}

/**
 * iolayers_table_name() - Name of a table, as shown in `stats`.
 * @t: the table
 *
 * Return: a static string.
 */
const char *iolayers_table_name(enum iolayers_table_id t)
{
	return iolayers_tables[t].name;
}

/**
 * iolayers_drop_name() - Name of a drop cause, as shown in `stats`.
 * @cause: the cause
 *
 * Return: a static string.
 */
const char *iolayers_drop_name(enum iolayers_drop cause)
{
	return iolayers_drop_names[cause];
}
