/* SPDX-License-Identifier: GPL-2.0 */
/* Per-task state of a read() in flight, in an RCU hash table. */
#ifndef _IOLAYERS_FLOW_H
#define _IOLAYERS_FLOW_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/rcupdate.h>

/**
 * struct iolayers_task_flow - One read-family syscall in flight.
 * @node: link in the task table, keyed by @tid
 * @rcu: for kfree_rcu()
 * @tid: the task (thread id) making the syscall
 * @nr: syscall number
 * @fd: file descriptor argument
 * @req: bytes requested (0 when unknown, e.g. readv)
 * @pos: file position argument of the p* calls, -1 for the current one
 * @start_ns: ktime_get_ns() at sys_enter
 * @vfs_ns: vfs_read latency, 0 when not reached
 * @vfs_ret: what vfs_read returned
 * @fs_ns: FS layer latency, 0 when not reached
 * @fs_ret: what the outermost FS call returned
 * @fs_start_ns: ktime_get_ns() at the outermost FS call's entry
 * @fs_depth: FS calls in progress (ext4_file_read_iter calls filemap_read)
 * @fs_reached: the read went through the FS layer
 * @direct: the FS call had IOCB_DIRECT
 * @iowait: the task slept in I/O wait during the FS call
 * @mapping: the file's page cache, to match page additions
 * @fs_pos: file position at the outermost FS call's entry
 * @first_index: first page of the FS call's range
 * @last_index: last page of the FS call's requested range
 * @added_pages: pages of the range added to the page cache during the call
 * @ra_pages: pages outside the range added during the call (readahead)
 */
struct iolayers_task_flow {
	struct hlist_node node;
	struct rcu_head rcu;
	pid_t tid;
	int nr;
	int fd;
	u64 req;
	s64 pos;
	u64 start_ns;
	u64 vfs_ns;
	long vfs_ret;
	u64 fs_ns;
	long fs_ret;
	u64 fs_start_ns;
	int fs_depth;
	bool fs_reached;
	bool direct;
	bool iowait;
	const void *mapping;
	s64 fs_pos;
	u64 first_index;
	u64 last_index;
	u64 added_pages;
	u64 ra_pages;
};

/**
 * enum iolayers_drop - Why an event was dropped; each is counted.
 * @IOLAYERS_DROP_TABLE_FULL: the task table reached max_flows
 * @IOLAYERS_DROP_NOMEM: GFP_ATOMIC allocation failed
 * @IOLAYERS_DROP_STALE: an entry left by a syscall whose exit was not seen
 * @IOLAYERS_NR_DROPS: number of causes
 */
enum iolayers_drop {
	IOLAYERS_DROP_TABLE_FULL,
	IOLAYERS_DROP_NOMEM,
	IOLAYERS_DROP_STALE,
	IOLAYERS_NR_DROPS,
};

struct iolayers_task_flow *iolayers_flow_start(pid_t tid);
struct iolayers_task_flow *iolayers_flow_find(pid_t tid);
void iolayers_flow_end(struct iolayers_task_flow *f);
void iolayers_flow_free_all(void);
int iolayers_flow_occupancy(int *high_water);
u64 iolayers_drops_sum(enum iolayers_drop cause);
const char *iolayers_drop_name(enum iolayers_drop cause);

extern unsigned int iolayers_max_flows;

#endif /* _IOLAYERS_FLOW_H */
