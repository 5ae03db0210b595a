/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bounded RCU hash tables shared by probes in any context: the followed
 * threads (with their read() in flight), the bios they queued and the
 * requests carrying them.
 */
#ifndef _IOLAYERS_TABLE_H
#define _IOLAYERS_TABLE_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/types.h>
#include <linux/list.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>

/**
 * struct iolayers_entry - Head of every table entry.
 * @node: link in its bucket
 * @rcu: for the call_rcu() of the entry that fills its CPU's batch of
 *	removed entries (or of the unload's flush), which recycles that
 *	batch after a grace period (table.c)
 * @retired: once removed, the entry removed before it in its CPU's batch
 *	(NULL for a batch's first)
 * @key: what the entry is found by (thread id, bio, request or inode
 *	address)
 * @free_next: once removed and past its grace period, the next entry of
 *	its CPU's list of entries to reuse
 * @born_ns: ktime_get_ns() when it was added, for expiry
 * @table: its table (enum iolayers_table_id), for the recycling
 */
struct iolayers_entry {
	struct hlist_node node;
	struct rcu_head rcu;
	struct iolayers_entry *retired;
	union {
		unsigned long key;
		struct iolayers_entry *free_next;
	};
	u64 born_ns;
	unsigned int table;
};

/*
 * A handler's RCU read-side critical section over the tables: preemption
 * disabled. One RCU flavour since 5.0: synchronize_rcu() and call_rcu()
 * wait for a preempt-disabled region as for rcu_read_lock(), and the
 * tables' RCU list walks accept it. With PREEMPT_RCU (Debian's 6.1 and
 * 7.2) rcu_read_lock() and its unlock are two calls, about 28
 * instructions a pair, on every event; and on 7.2 a tracepoint's probes
 * run preemptible (under SRCU-fast), so that pair was paid per page added
 * to the cache, per bio, request and completion. For probe handlers only:
 * short, and nothing in them sleeps.
 */
#define iolayers_handler_rcu_lock()	preempt_disable_notrace()
#define iolayers_handler_rcu_unlock()	preempt_enable_notrace()

/**
 * enum iolayers_table_id - The tables.
 * @IOLAYERS_T_TASK: followed threads and their read() in flight, keyed by
 *	thread id
 * @IOLAYERS_T_BIO: bios queued by a followed read, keyed by address
 * @IOLAYERS_T_RQ: requests carrying such bios, keyed by address
 * @IOLAYERS_T_TGID: processes followed because their parent is (children=1)
 * @IOLAYERS_T_FILE: files followed reads read, with their paths, keyed by
 *	inode address (file.c)
 * @IOLAYERS_T_SOCK: TCP sockets followed reads read, keyed by address, to
 *	tell their segments in the receive path (sock.c)
 * @IOLAYERS_T_UREQ: io_uring requests of followed tasks from submission to
 *	completion, keyed by address (uring.c)
 * @IOLAYERS_NR_TABLES: number of tables
 */
enum iolayers_table_id {
	IOLAYERS_T_TASK,
	IOLAYERS_T_BIO,
	IOLAYERS_T_RQ,
	IOLAYERS_T_TGID,
	IOLAYERS_T_FILE,
	IOLAYERS_T_SOCK,
	IOLAYERS_T_UREQ,
	IOLAYERS_NR_TABLES,
};

/**
 * enum iolayers_drop - Why an event was dropped; each is counted per table.
 * @IOLAYERS_DROP_TABLE_FULL: the table reached its bound (max_flows)
 * @IOLAYERS_DROP_NOMEM: an allocation failed (GFP_NOWAIT: probe context)
 * @IOLAYERS_DROP_STALE: an entry whose end was never seen was replaced
 * @IOLAYERS_DROP_EXPIRED: an entry older than expire_ms was removed
 * @IOLAYERS_NR_DROPS: number of causes
 */
enum iolayers_drop {
	IOLAYERS_DROP_TABLE_FULL,
	IOLAYERS_DROP_NOMEM,
	IOLAYERS_DROP_STALE,
	IOLAYERS_DROP_EXPIRED,
	IOLAYERS_NR_DROPS,
};

void *iolayers_table_find(enum iolayers_table_id t, unsigned long key);
void *iolayers_table_alloc(enum iolayers_table_id t);
void iolayers_table_unalloc(enum iolayers_table_id t, void *entry);
void iolayers_table_insert(enum iolayers_table_id t, void *entry, unsigned long key);
bool iolayers_table_del(enum iolayers_table_id t, void *entry);
bool iolayers_table_unlink(enum iolayers_table_id t, void *entry);
void iolayers_table_retire(void *entry);
void iolayers_table_drop(enum iolayers_table_id t, enum iolayers_drop cause);
void iolayers_table_del_stale(enum iolayers_table_id t, void *entry);
void iolayers_table_expire(enum iolayers_table_id t, u64 max_age_ns);
int iolayers_table_prune(enum iolayers_table_id t, bool (*prune)(void *entry, void *arg),
			 void *arg);
void iolayers_tables_reset(void);
int iolayers_tables_init(void);
void iolayers_tables_exit(void);
int iolayers_table_count(enum iolayers_table_id t, bool (*test)(const void *entry));
int iolayers_table_occupancy(enum iolayers_table_id t, int *high_water);
u64 iolayers_table_drops(enum iolayers_table_id t, enum iolayers_drop cause);
const char *iolayers_table_name(enum iolayers_table_id t);
const char *iolayers_drop_name(enum iolayers_drop cause);
unsigned int iolayers_table_bound(enum iolayers_table_id t);
size_t iolayers_tables_bytes(size_t *reuse, size_t *reuse_max);

extern unsigned int iolayers_max_flows;

/**
 * struct iolayers_table_count - A table's number of entries, on a cache
 *	line of its own (bio and request counts change on every I/O, the
 *	task count is read by every syscall).
 * @nr: entries now
 */
struct iolayers_table_count {
	atomic_t nr;
} ____cacheline_aligned_in_smp;

extern struct iolayers_table_count iolayers_table_nr[IOLAYERS_NR_TABLES];

/**
 * iolayers_table_empty() - Is a table empty (a cheap early-out for probes)?
 * @t: the table
 *
 * Inline: every probe of every task asks it first.
 *
 * Return: true when it holds no entry right now.
 */
static inline bool iolayers_table_empty(enum iolayers_table_id t)
{
	return !atomic_read(&iolayers_table_nr[t].nr);
}

#if IS_ENABLED(CONFIG_KUNIT)
/* Static in the module; visible to the KUnit tests (compat.h). */
bool iolayers_expired(u64 born_ns, u64 now_ns, u64 max_age_ns);
#endif

#endif /* _IOLAYERS_TABLE_H */
