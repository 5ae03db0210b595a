/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flow of one read(): its state while in flight (task table), the bios
 * and requests bound to it (bio and request tables), and the record of it
 * once it completes (stream.c).
 */
#ifndef _IOLAYERS_FLOW_H
#define _IOLAYERS_FLOW_H

#include <linux/atomic.h>
#include <linux/llist.h>
#include <linux/types.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <iolayers/table.h>

struct bio;
struct iolayers_rq;

/* Thread ids fit in this many bits (PID_MAX_LIMIT, flow.c). */
#define IOLAYERS_TID_BITS	22

/**
 * struct iolayers_blk_acc - What the BLOCK and DEVICE layers saw of a flow.
 * @nr_bios: bios the flow's task queued during the read
 * @bio_bytes: their bytes (requested range, readahead and metadata)
 * @nr_rqs: requests that carried at least one of them and completed
 *	before the read returned
 * @rq_bytes: bytes of those requests
 * @requeues: requeues of those requests
 * @queue_ns: longest queue latency of those requests (insert, or first bio
 *	queued, to issue)
 * @service_ns: longest service latency (issue to completion)
 * @device_ns: longest device latency (nvme_setup_cmd to nvme_complete_rq,
 *	scsi_dispatch_cmd_start to scsi_dispatch_cmd_done)
 * @queue_at: first bio queued (ktime ns)
 * @issue_at: first request issued
 * @device_at: last device completion
 * @done_at: last request completion
 * @errors: requests that completed with an error
 * @disk: the disk of the first of those requests (its id in the table of
 *	disks, disk.c), 0 if none or not in the table
 * @disk_mask: every disk of those requests, bit id - 1 (md, dm over
 *	several disks set more than one)
 */
struct iolayers_blk_acc {
	u32 nr_bios;
	u64 bio_bytes;
	u32 nr_rqs;
	u64 rq_bytes;
	u32 requeues;
	u64 queue_ns;
	u64 service_ns;
	u64 device_ns;
	u64 queue_at;
	u64 issue_at;
	u64 device_at;
	u64 done_at;
	u32 errors;
	u8 disk;
	u16 disk_mask;
};

/**
 * struct iolayers_read_sys - The SYSCALL layer's part of a read().
 * @via: how it was issued, enum iolayers_via: a read-family syscall, an
 *	io_uring or AIO request (a request flow, struct iolayers_read_uring
 *	its own part), a page fault
 * @nr: syscall number (a request's IORING_OP_* or IOCB_CMD_*)
 * @retried: a page fault's handle_mm_fault() returned VM_FAULT_RETRY:
 *	the next is its retry, in the same flow (fault.c)
 * @fd: file descriptor argument
 * @req: bytes requested (the iovecs' sum for the readv family)
 * @pos: file position argument of the p* calls, -1 for the current one
 * @tsc: the read's stamps are the TSC's (include/iolayers/clock.h)
 * @start: the clock's stamp at sys_enter
 * @ns: sys_enter to sys_exit (set at sys_exit)
 */
struct iolayers_read_sys {
	u8 via;
	bool retried;
	int nr;
	int fd;
	u64 req;
	s64 pos;
	bool tsc;
	u64 start;
	u64 ns;
};

/**
 * struct iolayers_read_vfs - The VFS layer's part of a read().
 * @start: the clock's stamp at vfs_read's (or vfs_readv's) entry, 0 when
 *	not reached
 * @ns: its latency, from that entry to the syscall's exit
 * @off: that entry's time after sys_enter, in ns (set at sys_exit)
 * @pos: the file position it was given (-1: none, a stream)
 */
struct iolayers_read_vfs {
	u64 start;
	u64 ns;
	u64 off;
	s64 pos;
};

/**
 * struct iolayers_read_file - Which file a read() read.
 * @ino: its inode number, 0 until the VFS or FS entry
 * @dev: its file system's device (the super block's s_dev)
 * @block_fs: a regular file of a file system on a block device (one that
 *	requires a device: ext4, xfs, btrfs...), seen at the VFS entry
 */
struct iolayers_read_file {
	u64 ino;
	dev_t dev;
	bool block_fs;
};

/**
 * struct iolayers_read_fs - The FS layer's part of a read().
 * @reached: the read entered the FS layer (set at the outermost call: a
 *	direct read finished through filemap_read nests it, nested calls are
 *	not tracked)
 * @direct: the outer FS call had IOCB_DIRECT and no page cache read
 *	followed (filemap_read)
 * @mapping: the file's page cache, to match page additions
 * @pos: file position at the outermost FS call's entry
 * @first_index: first page of the FS call's range
 * @last_index: last page of the FS call's requested range
 * @start: the clock's stamp at the outermost FS call's entry
 * @ns: its latency, from that entry to the syscall's exit; 0 when not
 *	reached
 * @off: that entry's time after sys_enter, in ns (set at sys_exit)
 * @entries: FS calls entered since the flow began, nested ones too (an
 *	io_uring request tells by it which attempt reached the layer)
 */
struct iolayers_read_fs {
	bool reached;
	bool direct;
	const void *mapping;
	s64 pos;
	u64 first_index;
	u64 last_index;
	u64 start;
	u64 ns;
	u64 off;
	u32 entries;
};

/**
 * struct iolayers_read_cache - What the cache-state probes saw of a read().
 * @iowait: the task slept in I/O wait after the FS call's entry
 * @added_pages: pages of the range added to the page cache during the call
 * @ra_pages: pages outside the range added during the call (readahead)
 */
struct iolayers_read_cache {
	bool iowait;
	u64 added_pages;
	u64 ra_pages;
};

/**
 * struct iolayers_read_sock - The SOCK and TCP layers' part of a read().
 * @kind: enum iolayers_sock_kind, from the socket at sock_recvmsg's entry
 *	(0: no socket read)
 * @waitable: the wait for data of @kind is probed (sock.c): the read's
 *	state can be told
 * @waited: it entered its socket's wait for data
 * @sk: the socket (never dereferenced after the entry)
 * @start: the clock's stamp at sock_recvmsg's entry
 * @tcp_start: at tcp_recvmsg's entry, 0 when not reached
 * @wait_start: at the wait's entry, 0 when not waiting now
 * @wait: clock units waited so far
 * @off: @start's time after sys_enter, in ns (set at sys_exit)
 * @tcp_off: @tcp_start's
 * @wait_ns: @wait in ns (set at sys_exit)
 */
struct iolayers_read_sock {
	u8 kind;
	bool waitable;
	bool waited;
	const void *sk;
	u64 start;
	u64 tcp_start;
	u64 wait_start;
	u64 wait;
	u64 off;
	u64 tcp_off;
	u64 wait_ns;
};

/*
 * Layers a read lost an event of: the recursion guard refused one of
 * their function entries in the reader's context during the read
 * (iolayers_flow_missed()). In the flow record's @missed.
 */
#define IOLAYERS_MISSED_VFS	BIT(0)
#define IOLAYERS_MISSED_FS	BIT(1)
#define IOLAYERS_MISSED_BLOCK	BIT(2)
#define IOLAYERS_MISSED_SOCK	BIT(3)

/**
 * struct iolayers_read_uring - A request's own part: an io_uring request
 *	(uring.c) or a Linux AIO one (aio.c).
 * @opcode: its IORING_OP_* or IOCB_CMD_*
 * @attempts: attempts begun (io_read() calls; up to 255 counted)
 * @open: an attempt runs now: @att_tid's task entry names this flow
 *	(struct iolayers_task_flow's @att) and @hand_cpu's hand-off may
 * @where: IOLAYERS_UR_* of the contexts its attempts ran in
 * @waited: an attempt that entered the FS layer ended without the data
 *	(-EAGAIN, or -EIOCBQUEUED for a buffered read armed to be woken)
 * @fs_entries: @fs.entries when the open attempt began
 * @hand_cpu: the CPU whose hand-off the open attempt set
 * @att_tid: the task running the open attempt
 * @user_data: its user_data, to tell its CQE from another request's at
 *	the same address
 * @krp_missed: the attempts' kretprobes' misses at its submission
 *	(uring.c)
 * @tid: the submitting task's id
 * @tgid: its process
 * @comm: its name
 * @first: stamp of the first attempt's start (0: none began)
 * @att_start: stamp of the open attempt's start
 * @last_end: stamp of the last attempt's end
 * @issue: clock units spent in attempts, summed
 * @issue_off: @first's time after the submission, in ns (set at the end)
 * @issue_ns: @issue in ns (set at the end)
 * @done: its place in the list of requests completed in interrupt
 *	context, recorded later (iolayers_flow_req_finish())
 * @done_res: the result it completed with there
 * @done_end: the clock's stamp then
 * @done_now: CLOCK_MONOTONIC then
 */
struct iolayers_read_uring {
	u8 opcode;
	u8 attempts;
	bool open;
	u8 where;
	bool waited;
	u32 fs_entries;
	int hand_cpu;
	u64 user_data;
	unsigned int krp_missed;
	pid_t att_tid;
	pid_t tid;
	pid_t tgid;
	char comm[TASK_COMM_LEN];
	u64 first;
	u64 att_start;
	u64 last_end;
	u64 issue;
	u64 issue_off;
	u64 issue_ns;
	struct llist_node done;
	long done_res;
	u64 done_end;
	u64 done_now;
};

/* struct iolayers_read_uring's @where: an attempt ran... */
#define IOLAYERS_UR_INLINE	BIT(0)	/* in the submitting syscall */
#define IOLAYERS_UR_TASKWORK	BIT(1)	/* later, from a task's task work */
#define IOLAYERS_UR_IOWQ	BIT(2)	/* in an io-wq worker, blocking */
#define IOLAYERS_UR_SQPOLL	BIT(3)	/* in the ring's SQPOLL thread */

/**
 * struct iolayers_read_state - One read()'s state, one part per layer that
 *	writes it (from the reader's own context).
 * @sys: SYSCALL (syscall.c)
 * @vfs: VFS (vfs.c)
 * @fs: FS (fs.c)
 * @file: the file, from the VFS or FS entry
 * @cache: cache state (cache.c)
 * @sock: SOCK and TCP (sock.c)
 * @ur: an io_uring request's own part (uring.c), written whole at its
 *	submission; a read() flow leaves it alone (@ur.opcode stays 0)
 * @missed: IOLAYERS_MISSED_* of the layers whose entry was refused
 * @foreign: the reader queued I/O that was not its file's during the read
 *	(BLOCK: iolayers_bio_foreign()), which it may have waited for
 *
 * What sys_enter zeroes is what says whether a layer was reached
 * (@vfs.start, @fs.reached, @sock.start) and what adds up (@file, @cache,
 * @missed, @foreign); @sys is written whole there. The rest of a layer's
 * part is written where the read reaches it, and read only when it did:
 * zeroing all of it cost some 40 instructions a read. A file read never
 * writes @sock; the SOCK entry writes the whole of it.
 */
struct iolayers_read_state {
	struct iolayers_read_sys sys;
	struct iolayers_read_vfs vfs;
	struct iolayers_read_fs fs;
	struct iolayers_read_file file;
	struct iolayers_read_cache cache;
	u8 missed;
	bool foreign;
	struct iolayers_read_sock sock;
	struct iolayers_read_uring ur;
};

/**
 * struct iolayers_bio_slot - A bio of a read in flight, bound to it
 *	without an entry in the bio table.
 * @bio: the bio (never dereferenced through the slot), NULL: none
 * @sector: its first sector when queued, to tell a reused bio apart
 * @bytes: its size
 * @queue_ns: when it was queued
 *
 * A read's bio is usually made into a request by the reader itself,
 * right after it is queued (the plug's flush, a direct issue, the
 * scheduler's insert): the request's binding takes it from here, at the
 * cost of no table entry. An event after which another context may need
 * to find it (a merge, a split, a requeue, the read's end) moves it into
 * the bio table first (request.c).
 */
struct iolayers_bio_slot {
	const struct bio *bio;
	sector_t sector;
	u32 bytes;
	u64 queue_ns;
};

/*
 * struct iolayers_task_flow's @state: no read() in flight; removed; (a
 * task's idle entry) the task runs an attempt of the io_uring request
 * @att names.
 */
#define IOLAYERS_FLOW_ENDED	BIT(0)
#define IOLAYERS_FLOW_GONE	BIT(1)
#define IOLAYERS_FLOW_ATT	BIT(2)

/**
 * struct iolayers_task_flow - A followed thread's read-family syscall.
 * @e: table entry, keyed by the thread id
 * @lock: serialises the completions that fold into @blk (and set
 *	@blk_lost) with the end of a read that had a bio bound to it, and
 *	with the renewal of a flow whose exit was not seen (taken in flow.c
 *	only)
 * @seq: unique id of the flow (also of its record in `flows`)
 * @state: 0 while a read() is in flight; IOLAYERS_FLOW_ENDED once sys_exit
 *	has taken the flow's final state (later completions are late); with
 *	IOLAYERS_FLOW_GONE too once removed while idle
 *	(iolayers_flows_forget_idle()): its task must not start a read in
 *	it. An idle entry leaves ENDED only by its task's cmpxchg at
 *	sys_enter, and becomes GONE only by the sweep's: one of them wins
 * @blk_lost: a bio or request entry of the read could not be made: it
 *	ends saying it missed the BLOCK layer (iolayers_flow_lost_blk())
 * @bound: the read in flight had a bio bound to it (iolayers_bio_bind(),
 *	in the reading task only): only then can another context find this
 *	flow by its id and fold into @blk, so only then does its end take
 *	@lock (the task's own field)
 * @blk: the BLOCK and DEVICE layers' part, folded in from any context
 * @slot: the read's first bio not yet in a request, kept here instead of
 *	the bio table (request.c), in the reader's context only
 * @tid: the task (thread id) making the syscall
 * @task: that task, to tell it from others in a CPU's flow hand-off
 *	(never dereferenced)
 * @last_inode: the inode of the thread's last read at VFS, whose path is
 *	known (file.c; never dereferenced)
 * @last_ino: and its number
 * @last_sk: the TCP socket the thread last read, known to have its entry
 *	in the socket table (sock.c; never dereferenced)
 * @last_sk_gen: the socket table's removals then (iolayers_sock_forget())
 * @att: while the task runs an attempt of an io_uring request (@state
 *	IOLAYERS_FLOW_ENDED | IOLAYERS_FLOW_ATT), that request's flow, which
 *	its probes then find instead (iolayers_flow_here()); set and cleared
 *	by the task itself, or cleared by the request's end when the
 *	attempt's return was not seen
 * @rd: the read()'s own state, written by the reader's context only
 *
 * An io_uring request's flow is this structure too, in the request table
 * (IOLAYERS_T_UREQ), keyed by the request's address: from its submission
 * to its completion's CQE, its attempts run in whatever task issues them
 * (@task and @tid are that task's while one runs, NULL and 0 between
 * them), and its bios bind to it as a read's do (uring.c).
 *
 * The entry is added at the thread's first followed read() and kept
 * between reads (idle while @state is not 0): each sys_enter starts a new flow in
 * it, and it is removed when the thread exits (or execs from a thread that
 * is not the leader: it then has another id), or while idle when a filter
 * changes.
 */
struct iolayers_task_flow {
	struct iolayers_entry e;
	raw_spinlock_t lock;	/* @blk and @blk_lost, against other CPUs */
	u64 seq;
	u32 state;
	bool blk_lost;
	bool bound;
	struct iolayers_blk_acc blk;
	struct iolayers_bio_slot slot;
	pid_t tid;
	const struct task_struct *task;
	const void *last_inode;
	u64 last_ino;
	const void *last_sk;
	u64 last_sk_gen;
	struct iolayers_task_flow *att;
	struct iolayers_read_state rd;
};

/**
 * struct iolayers_flow_ref - How an async context names a flow.
 * @key: the flow's key in its table: a thread id in the task table, an
 *	io_uring request's address in the request table (above any thread
 *	id: iolayers_flow_ref_table())
 * @seq: the flow's id, to check it is still the same read()
 */
struct iolayers_flow_ref {
	unsigned long key;
	u64 seq;
};

/* The table of the flow @key names. */
static __always_inline enum iolayers_table_id iolayers_flow_ref_table(unsigned long key)
{
	return key >> IOLAYERS_TID_BITS ? IOLAYERS_T_UREQ : IOLAYERS_T_TASK;
}

/* How async contexts name @f's flow now. */
static __always_inline struct iolayers_flow_ref
iolayers_flow_ref_of(const struct iolayers_task_flow *f)
{
	return (struct iolayers_flow_ref){ .key = f->e.key, .seq = f->seq };
}

/**
 * struct iolayers_tgid - A process followed because its parent is.
 * @e: table entry, keyed by the tgid
 */
struct iolayers_tgid {
	struct iolayers_entry e;
};

/**
 * struct iolayers_flow_rec - A completed read(), one record of the stream
 *	(stream.c), a line of `flows`, `slow` and stream/events.
 * @kind: IOLAYERS_EV_READ (stream.h)
 * @len: bytes it takes in its CPU's ring (short: no @blk; stream.c)
 * @wseq: the stream's records written on this CPU before it (stream.h)
 * @end_ns: CLOCK_MONOTONIC at sys_exit (clock.h), no earlier than @blk's
 *	last completion
 * @seq: the flow's id
 * @tid: thread id
 * @tgid: process id
 * @comm: task name
 * @nr: syscall number
 * @fd: file descriptor
 * @pos: file offset the read started at: the p* calls' argument, else the
 *	position vfs_read (or the FS call) was given; -1: none (a stream)
 * @ino: the file's inode number (0: no VFS or FS entry seen)
 * @fs_dev: its file system's device
 * @req: bytes requested
 * @ret: what the syscall returned
 * @cache: enum iolayers_cache
 * @sys_ns: syscall latency
 * @vfs_off: vfs_read entry, ns after sys_enter (-1: not reached); an
 *	io_uring request's first attempt's start instead (@ur_issue_off)
 * @vfs_ns: vfs_read latency (@ur_issue_ns: its attempts' time, summed)
 * @ur_issue_off: see @vfs_off
 * @ur_issue_ns: see @vfs_ns
 * @fs_off: FS call entry, ns after sys_enter (-1: not reached)
 * @fs_ns: FS latency
 * @ra_bytes: readahead bytes added to the page cache during the read
 * @sock_off: sock_recvmsg's entry, ns after sys_enter (-1: not reached);
 *	a socket read has no FS part: @sock_off, @tcp_off and @wait_ns share
 *	its place (@sock tells which)
 * @tcp_off: tcp_recvmsg's entry (-1: not reached)
 * @wait_ns: the time it waited for data
 * @missed: IOLAYERS_MISSED_* of the layers the read lost an event of
 * @sock: enum iolayers_sock_kind (0: not a socket read)
 * @via: enum iolayers_via
 * @attempts: an io_uring request's attempts (struct iolayers_read_uring)
 * @where: their contexts, IOLAYERS_UR_*
 * @blk: the BLOCK and DEVICE part
 */
struct iolayers_flow_rec {
	u16 kind;
	u16 len;
	u32 wseq;
	u64 end_ns;
	u64 seq;
	pid_t tid;
	pid_t tgid;
	char comm[TASK_COMM_LEN];
	int nr;
	int fd;
	s64 pos;
	u64 ino;
	dev_t fs_dev;
	u64 req;
	long ret;
	int cache;
	u64 sys_ns;
	union {
		struct {
			s64 vfs_off;
			u64 vfs_ns;
		};
		struct {
			s64 ur_issue_off;
			u64 ur_issue_ns;
		};
	};
	union {
		struct {
			s64 fs_off;
			u64 fs_ns;
			u64 ra_bytes;
		};
		struct {
			s64 sock_off;
			s64 tcp_off;
			u64 wait_ns;
		};
	};
	u8 missed;
	u8 sock;
	u8 via;
	u8 attempts;
	u8 where;
	struct iolayers_blk_acc blk;
};

struct iolayers_task_flow *iolayers_flow_start(pid_t tid);
struct iolayers_task_flow *iolayers_flow_find(pid_t tid);

/*
 * The hand-off (flow.c): the entry of the task whose read() last started
 * on this CPU, so that the probes that follow in the same read() (VFS,
 * FS, the cache's, sys_exit) find it without a hash lookup.
 */
DECLARE_PER_CPU(struct iolayers_task_flow *, iolayers_flow_cur);
DECLARE_PER_CPU(const struct task_struct *, iolayers_flow_cur_task);
struct iolayers_task_flow *iolayers_flow_table_find(pid_t tid, u64 miss);

/*
 * The task table's misses (flow.c): per CPU, the last thread id the table
 * did not have, with the table's insertions then.
 */
extern atomic64_t iolayers_task_inserts;
DECLARE_PER_CPU(u64, iolayers_task_miss);

/*
 * The miss word of @tid now. The insertions are read before the lookup
 * that may follow: an insertion it did not see yet changes them, and with
 * them what a miss remembered.
 */
static __always_inline u64 iolayers_task_miss_key(pid_t tid)
{
	return ((u64)atomic64_read_acquire(&iolayers_task_inserts) << IOLAYERS_TID_BITS) | tid;
}

/**
 * iolayers_flow_current() - current's entry, by the hand-off or by the
 *	table.
 * @tid: current's thread id
 *
 * The hand-off is one pointer, read and written whole (the task may
 * migrate between probes on kernels where syscall tracepoints are
 * preemptible): the entry it names is current's only if its task and tid
 * are (an entry left by a thread that exec'd has another tid).
 *
 * Context: in an RCU read-side critical section.
 * Return: the entry, or NULL.
 */
static __always_inline struct iolayers_task_flow *iolayers_flow_current(pid_t tid)
{
	struct iolayers_task_flow *f = this_cpu_read(iolayers_flow_cur);
	u64 miss;

	if (likely(f && f->task == current && f->tid == tid))
		return f;
	/* A thread this CPU saw absent since the last insertion (flow.c). */
	miss = iolayers_task_miss_key(tid);
	if (this_cpu_read(iolayers_task_miss) == miss)
		return NULL;
	return iolayers_flow_table_find(tid, miss);
}

/**
 * iolayers_flow_maybe_here() - May current have a read() in flight?
 *
 * The probes of a read's own context ask this first, before their
 * recursion guard (IOLAYERS_DEFINE_FENTRY_IF()): a task this CPU found
 * absent from the task table, with no insertion since (the miss word of
 * iolayers_flow_current()), has no read in flight, and is sent back at
 * once. The hand-off's task is asked first, so that the followed task
 * that has it pays one comparison. A hint, never wrong the other way:
 * true sends the probe on to iolayers_flow_here().
 *
 * Context: any, preemptible: two per-CPU words read whole and compared,
 * nothing dereferenced but current (a task on another CPU after a
 * migration in between finds a miss word that is as true there).
 * Return: false only if iolayers_flow_here() would find nothing.
 */
static __always_inline bool iolayers_flow_maybe_here(void)
{
	if (iolayers_table_empty(IOLAYERS_T_TASK))
		return false;
	if (this_cpu_read(iolayers_flow_cur_task) == current)
		return true;
	return this_cpu_read(iolayers_task_miss) != iolayers_task_miss_key(current->pid);
}

/**
 * iolayers_flow_attempt() - The io_uring request whose attempt a task
 *	runs.
 * @t: the task's own entry (current's), with IOLAYERS_FLOW_ATT
 *
 * Found this way when the hand-off does not name the request's flow (the
 * task moved to another CPU during the attempt, or another task's read
 * took the hand-off while it slept).
 *
 * Context: current's, in an RCU read-side critical section: the flow is
 * retired only after its attempt's end cleared @t->att.
 * Return: the request's flow, or NULL if the attempt just ended.
 */
static __always_inline struct iolayers_task_flow *
iolayers_flow_attempt(struct iolayers_task_flow *t)
{
	struct iolayers_task_flow *f = READ_ONCE(t->att);

	return f && f->task == current && !READ_ONCE(f->state) ? f : NULL;
}

/**
 * iolayers_flow_here() - Find the read() in flight of the current task,
 *	inline in every probe of a read's own context.
 * @tid: current's thread id
 *
 * Context: the task itself (or the scheduler switching it out), in an RCU
 * read-side critical section (rcu_read_lock(), or preemption disabled);
 * the entry stays valid until it ends, and for the task itself until it
 * exits.
 * Return: the entry, or NULL when the task has no followed read() in
 * flight.
 */
static __always_inline struct iolayers_task_flow *iolayers_flow_here(pid_t tid)
{
	struct iolayers_task_flow *f = iolayers_flow_current(tid);
	u32 state;

	if (!f)
		return NULL;
	state = READ_ONCE(f->state);
	if (likely(!state))
		return f;
	return unlikely(state & IOLAYERS_FLOW_ATT) ? iolayers_flow_attempt(f) : NULL;
}

struct iolayers_task_flow *iolayers_flow_get(const struct iolayers_flow_ref *ref);
void iolayers_flow_finish(struct iolayers_task_flow *f, long ret);
void iolayers_flow_abandon(struct iolayers_task_flow *f);
struct iolayers_task_flow *iolayers_flow_req_start(unsigned long req, u8 via, u8 opcode,
						   int fd, u64 user_data);
void iolayers_reqs_expire(u64 max_age_ns);
void iolayers_flow_req_drop(struct iolayers_task_flow *f);
bool iolayers_flow_att_begin(struct iolayers_task_flow *f, u8 where);
void iolayers_flow_att_end(struct iolayers_task_flow *f, bool again);
void iolayers_flow_req_finish(struct iolayers_task_flow *f, long res);
int iolayers_reqs_in_flight(void);
void iolayers_reqs_flush(void);
u64 iolayers_reqs_irq_done(void);
void iolayers_reqs_irq_reset(void);
void iolayers_flow_add_bio(struct iolayers_task_flow *f, u64 seq, u32 bytes, u64 queue_ns);
void iolayers_flow_lost_blk(const struct iolayers_flow_ref *ref);
bool iolayers_flow_fold_rq(const struct iolayers_rq *r, unsigned int i, u64 now, bool error);
void iolayers_flow_exit(pid_t tid);
void iolayers_flow_missed(u8 layers);
u64 iolayers_reads_missed(void);
void iolayers_reads_missed_reset(void);
int iolayers_flows_forget_idle(void);
int iolayers_flows_in_flight(void);

#if IS_ENABLED(CONFIG_KUNIT)
bool iolayers_flow_maybe(void);
/* Static in the module; visible to the KUnit tests (compat.h). */
void iolayers_blk_fold(struct iolayers_blk_acc *a, const struct iolayers_rq *r,
		       unsigned int i, u64 now, bool error);
#endif

#endif /* _IOLAYERS_FLOW_H */
