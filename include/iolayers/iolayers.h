/* SPDX-License-Identifier: GPL-2.0 */
/* Internal API shared by the iolayers module's files. */
#ifndef _IOLAYERS_IOLAYERS_H
#define _IOLAYERS_IOLAYERS_H

#include <linux/atomic.h>
#include <linux/types.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/trace_recursion.h>
#include <iolayers/compat.h>

struct tracepoint;
struct ftrace_ops;
struct ftrace_regs;

/**
 * enum iolayers_probe_id - Every probe point iolayers can attach.
 * @IOLAYERS_P_SYS_ENTER: tracepoint raw_syscalls:sys_enter (SYSCALL layer)
 * @IOLAYERS_P_SYS_EXIT: tracepoint raw_syscalls:sys_exit (SYSCALL layer)
 * @IOLAYERS_P_VFS_READ: function entry of vfs_read (VFS layer)
 * @IOLAYERS_P_VFS_READV: function entry of vfs_readv (VFS layer of the
 *	readv family)
 * @IOLAYERS_P_EXT4_READ: function entry of ext4_file_read_iter (FS layer)
 * @IOLAYERS_P_FILEMAP_READ: function entry of filemap_read (FS layer, any
 *	page-cache file system)
 * @IOLAYERS_P_ADD_TO_PAGE_CACHE: tracepoint mm_filemap_add_to_page_cache
 *	(cache state)
 * @IOLAYERS_P_SCHED_SWITCH: tracepoint sched_switch (I/O waits)
 * @IOLAYERS_P_BLOCK_BIO_QUEUE: tracepoint block_bio_queue (BLOCK: binds a
 *	bio to the read that queued it)
 * @IOLAYERS_P_BLOCK_SPLIT: tracepoint block_split (the split part inherits
 *	the binding)
 * @IOLAYERS_P_BLOCK_RQ_INSERT: tracepoint block_rq_insert (scheduler insert;
 *	often skipped for NVMe with "none")
 * @IOLAYERS_P_BLOCK_RQ_ISSUE: tracepoint block_rq_issue (BLOCK layer)
 * @IOLAYERS_P_BLOCK_RQ_REQUEUE: tracepoint block_rq_requeue
 * @IOLAYERS_P_BLOCK_RQ_COMPLETE: tracepoint block_rq_complete
 * @IOLAYERS_P_NVME_SETUP_CMD: tracepoint nvme_setup_cmd of nvme-core
 *	(DEVICE layer)
 * @IOLAYERS_P_NVME_COMPLETE_RQ: tracepoint nvme_complete_rq of nvme-core
 * @IOLAYERS_P_PROCESS_FORK: tracepoint sched_process_fork (children=1)
 * @IOLAYERS_P_PROCESS_EXIT: tracepoint sched_process_exit (children=1)
 * @IOLAYERS_NR_PROBES: number of probe points
 */
enum iolayers_probe_id {
	IOLAYERS_P_SYS_ENTER,
	IOLAYERS_P_SYS_EXIT,
	IOLAYERS_P_VFS_READ,
	IOLAYERS_P_VFS_READV,
	IOLAYERS_P_EXT4_READ,
	IOLAYERS_P_FILEMAP_READ,
	IOLAYERS_P_ADD_TO_PAGE_CACHE,
	IOLAYERS_P_SCHED_SWITCH,
	IOLAYERS_P_BLOCK_BIO_QUEUE,
	IOLAYERS_P_BLOCK_SPLIT,
	IOLAYERS_P_BLOCK_RQ_INSERT,
	IOLAYERS_P_BLOCK_RQ_ISSUE,
	IOLAYERS_P_BLOCK_RQ_REQUEUE,
	IOLAYERS_P_BLOCK_RQ_COMPLETE,
	IOLAYERS_P_NVME_SETUP_CMD,
	IOLAYERS_P_NVME_COMPLETE_RQ,
	IOLAYERS_P_PROCESS_FORK,
	IOLAYERS_P_PROCESS_EXIT,
	IOLAYERS_NR_PROBES,
};

/**
 * enum iolayers_probe_state - What happened when a probe was attached.
 * @IOLAYERS_PROBE_DETACHED: not (yet) attached
 * @IOLAYERS_PROBE_ATTACHED: attached and firing
 * @IOLAYERS_PROBE_MISSING: the probe point does not exist on this kernel
 * @IOLAYERS_PROBE_FAILED: registration failed; see &iolayers_probe.err
 */
enum iolayers_probe_state {
	IOLAYERS_PROBE_DETACHED,
	IOLAYERS_PROBE_ATTACHED,
	IOLAYERS_PROBE_MISSING,
	IOLAYERS_PROBE_FAILED,
};

/**
 * struct iolayers_probe - One probe point and its attachment state.
 * @name: kernel symbol or tracepoint name
 * @layer: layer it belongs to (SYSCALL, VFS, FS, BLOCK, DEVICE)
 * @kind: "fentry" (an ftrace callback at a function's entry) or "tracepoint"
 * @state: attachment state
 * @err: errno of a failed registration, 0 otherwise
 * @ops: for function entries (kind "fentry"), the ftrace_ops
 * @missed: for function entries, callbacks skipped by ftrace's recursion
 *	guard (shown as nmissed)
 * @tp: for tracepoints, the tracepoint found by name
 */
struct iolayers_probe {
	const char *name;
	const char *layer;
	const char *kind;
	enum iolayers_probe_state state;
	int err;
	struct ftrace_ops *ops;
	atomic_long_t missed;
	struct tracepoint *tp;
};

extern struct iolayers_probe iolayers_probes[IOLAYERS_NR_PROBES];
extern unsigned int iolayers_expire_ms;
extern bool iolayers_empty;
DECLARE_PER_CPU(u64 [IOLAYERS_NR_PROBES], iolayers_hits);

/**
 * struct iolayers_cost - Self-accounting of one probe's handlers on a CPU.
 * @calls: handler runs, whether or not the event was followed
 * @timed: the runs that were timed, one in %IOLAYERS_COST_EVERY
 * @ns: their total time (local_clock(), so it includes one clock read)
 *
 * What a user pays per event inside our code; the probe mechanism's own
 * cost (trap or trampoline) is outside it (see ``empty=1``).
 */
struct iolayers_cost {
	u64 calls;
	u64 timed;
	u64 ns;
};

/* One handler run in this many is timed, per CPU and probe. */
#define IOLAYERS_COST_EVERY	64

DECLARE_PER_CPU(struct iolayers_cost [IOLAYERS_NR_PROBES], iolayers_costs);

/**
 * struct iolayers_cost_scope - A handler run being accounted.
 * @id: its probe
 * @t0: local_clock() at its start if this run is timed, else 0
 */
struct iolayers_cost_scope {
	enum iolayers_probe_id id;
	u64 t0;
};

/**
 * iolayers_cost_begin() - Count a handler run; start timing one in
 * %IOLAYERS_COST_EVERY.
 * @id: the probe
 *
 * Nothing is counted with empty=1 (the floor).
 *
 * Context: any; preemptible callers may migrate, the sums stay right.
 * Return: the scope to hand to iolayers_cost_end().
 */
static inline struct iolayers_cost_scope iolayers_cost_begin(enum iolayers_probe_id id)
{
	struct iolayers_cost_scope s = { .id = id };

	if (!READ_ONCE(iolayers_empty) &&
	    !(this_cpu_inc_return(iolayers_costs[id].calls) % IOLAYERS_COST_EVERY))
		s.t0 = local_clock();
	return s;
}

/**
 * iolayers_cost_end() - Add a timed handler run's time.
 * @s: the scope from iolayers_cost_begin()
 */
static inline void iolayers_cost_end(struct iolayers_cost_scope *s)
{
	if (s->t0) {
		this_cpu_add(iolayers_costs[s->id].ns, local_clock() - s->t0);
		this_cpu_inc(iolayers_costs[s->id].timed);
	}
}

/**
 * IOLAYERS_COST_SCOPE() - Account the rest of this handler to a probe.
 * @id: the probe
 *
 * The first declaration of a handler: the run is counted here and, when
 * timed, its time is added at whichever return the handler takes.
 */
#define IOLAYERS_COST_SCOPE(id)						\
	struct iolayers_cost_scope __iolayers_cost __cleanup(iolayers_cost_end) = \
		iolayers_cost_begin(id)

u64 iolayers_cost_sum(enum iolayers_probe_id id, u64 *timed, u64 *ns);
extern u64 iolayers_clock_ns;

bool iolayers_follows(struct task_struct *task);
int iolayers_filter_set_pid(const char *val);
int iolayers_filter_set_comm(const char *val);
int iolayers_filter_set_children(const char *val);
int iolayers_filter_show(char *buf, size_t size, int which);
bool iolayers_filter_any(void);

/**
 * iolayers_hit() - Count one hit of a probe on this CPU.
 * @id: the probe
 */
static inline void iolayers_hit(enum iolayers_probe_id id)
{
	this_cpu_inc(iolayers_hits[id]);
}

/**
 * IOLAYERS_PERCPU_SUM() - Sum a u64 of a DEFINE_PER_CPU variable over CPUs.
 * @var: the per-CPU variable
 * @idx: what follows per_cpu(@var, cpu) to reach the u64, e.g. ``[i]``, or
 *	nothing for a plain u64
 *
 * Not atomic with respect to probes that are counting.
 */
#define IOLAYERS_PERCPU_SUM(var, idx...) ({			\
	u64 __sum = 0;						\
	int __cpu;						\
								\
	for_each_possible_cpu(__cpu)				\
		__sum += READ_ONCE(per_cpu(var, __cpu)idx);	\
	__sum;							\
})

u64 iolayers_hits_sum(enum iolayers_probe_id id);
const char *iolayers_probe_state_name(enum iolayers_probe_state state);

int iolayers_parse_pid(const char *val, pid_t *out);
int iolayers_parse_comm(const char *val, char *out);
bool iolayers_expired(u64 born_ns, u64 now_ns, u64 max_age_ns);

struct tracepoint *iolayers_tracepoint_find(const char *name);
void iolayers_tracepoint_attach(struct iolayers_probe *p, void *probe, void *data);
void iolayers_tracepoint_attach_tp(struct iolayers_probe *p, struct tracepoint *tp,
				   void *probe, void *data);
void iolayers_tracepoint_detach(struct iolayers_probe *p, void *probe, void *data);

void iolayers_fentry_attach(struct iolayers_probe *p, struct ftrace_ops *ops);
void iolayers_fentry_detach(struct iolayers_probe *p);

/**
 * iolayers_fentry_run() - The body of every function entry callback.
 * @ip: the traced function, as passed to the callback
 * @parent_ip: its caller
 * @fregs: the callback's registers (the function's arguments)
 * @id: the probe point, whose @missed counts a refused entry
 * @handler: what to run (inlined: a constant at every call site)
 *
 * Nothing runs under empty=1 (the floor of the mechanism). ftrace calls
 * our callbacks directly (no FTRACE_OPS_FL_RECURSION): its recursion
 * guard is taken here, and it disables preemption until
 * ftrace_test_recursion_unlock(), so @handler is an RCU read-side critical
 * section without rcu_read_lock() (one RCU flavour since 5.0, and the
 * table's RCU list walks accept a preempt-disabled reader).
 */
static __always_inline void
iolayers_fentry_run(unsigned long ip, unsigned long parent_ip, struct ftrace_regs *fregs,
		    enum iolayers_probe_id id,
		    void (*handler)(struct ftrace_regs *fregs, enum iolayers_probe_id id))
{
	int bit;

	if (iolayers_empty)
		return;
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0) {
		atomic_long_inc(&iolayers_probes[id].missed);
		return;
	}
	handler(fregs, id);
	ftrace_test_recursion_unlock(bit);
}

/**
 * IOLAYERS_DEFINE_FENTRY() - Define a function entry probe's callback and
 *	its ftrace_ops, @name_ops, for iolayers_fentry_attach().
 * @name: prefix of the two definitions
 * @id: the probe point (one callback per function: no lookup by address)
 * @handler: void handler(struct ftrace_regs *, enum iolayers_probe_id)
 */
#define IOLAYERS_DEFINE_FENTRY(name, id, handler)				\
static void notrace name##_fentry(unsigned long ip, unsigned long parent_ip,	\
				  struct ftrace_ops *op, struct ftrace_regs *fregs) \
{										\
	iolayers_fentry_run(ip, parent_ip, fregs, id, handler);			\
}										\
static struct ftrace_ops name##_ops = { .func = name##_fentry }

int iolayers_syscall_index(int nr);
void iolayers_syscall_register(void);
void iolayers_syscall_unregister(void);
void iolayers_vfs_register(void);
void iolayers_vfs_unregister(void);
void iolayers_fs_register(void);
void iolayers_fs_unregister(void);
bool iolayers_fs_available(void);
void iolayers_cache_register(void);
void iolayers_cache_unregister(void);
u64 iolayers_ra_pages_sum(void);
void iolayers_block_register(void);
void iolayers_block_unregister(void);
void iolayers_block_expire(void);
u64 iolayers_block_counter(int which);
const char *iolayers_block_counter_name(int which);
void iolayers_block_reset(void);
void iolayers_device_register(void);
void iolayers_device_unregister(void);
void iolayers_filter_register(void);
void iolayers_filter_unregister(void);
void iolayers_stats_reset(void);
void iolayers_debugfs_init(void);
void iolayers_debugfs_exit(void);

#endif /* _IOLAYERS_IOLAYERS_H */
