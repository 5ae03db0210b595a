/* SPDX-License-Identifier: GPL-2.0 */
/* Internal API shared by the iolayers module's files. */
#ifndef _IOLAYERS_IOLAYERS_H
#define _IOLAYERS_IOLAYERS_H

#include <linux/types.h>
#include <linux/percpu.h>
#include <linux/sched.h>

struct tracepoint;
struct kretprobe;

/**
 * enum iolayers_probe_id - Every probe point iolayers can attach.
 * @IOLAYERS_P_SYS_ENTER: tracepoint raw_syscalls:sys_enter (SYSCALL layer)
 * @IOLAYERS_P_SYS_EXIT: tracepoint raw_syscalls:sys_exit (SYSCALL layer)
 * @IOLAYERS_P_VFS_READ: kretprobe on vfs_read (VFS layer)
 * @IOLAYERS_P_EXT4_READ: kretprobe on ext4_file_read_iter (FS layer)
 * @IOLAYERS_P_FILEMAP_READ: kretprobe on filemap_read (FS layer, any
 *	page-cache file system)
 * @IOLAYERS_P_ADD_TO_PAGE_CACHE: tracepoint mm_filemap_add_to_page_cache
 *	(cache state)
 * @IOLAYERS_P_SCHED_SWITCH: tracepoint sched_switch (I/O waits)
 * @IOLAYERS_P_BLOCK_RQ_ISSUE: tracepoint block_rq_issue (BLOCK layer)
 * @IOLAYERS_NR_PROBES: number of probe points
 */
enum iolayers_probe_id {
	IOLAYERS_P_SYS_ENTER,
	IOLAYERS_P_SYS_EXIT,
	IOLAYERS_P_VFS_READ,
	IOLAYERS_P_EXT4_READ,
	IOLAYERS_P_FILEMAP_READ,
	IOLAYERS_P_ADD_TO_PAGE_CACHE,
	IOLAYERS_P_SCHED_SWITCH,
	IOLAYERS_P_BLOCK_RQ_ISSUE,
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
 * @kind: "kretprobe" or "tracepoint"
 * @state: attachment state
 * @err: errno of a failed registration, 0 otherwise
 * @krp: for kretprobes, the kretprobe (its nmissed counters are shown)
 * @tp: for tracepoints, the tracepoint found by name
 */
struct iolayers_probe {
	const char *name;
	const char *layer;
	const char *kind;
	enum iolayers_probe_state state;
	int err;
	struct kretprobe *krp;
	struct tracepoint *tp;
};

extern struct iolayers_probe iolayers_probes[IOLAYERS_NR_PROBES];
DECLARE_PER_CPU(u64 [IOLAYERS_NR_PROBES], iolayers_hits);

extern pid_t iolayers_target_tgid;

/**
 * iolayers_traced() - Does the current task belong to the followed process?
 *
 * Context: any, including hard interrupt (where it answers for the
 * interrupted task; callers in async contexts must not rely on it).
 * Return: true when current's tgid is the followed one.
 */
static inline bool iolayers_traced(void)
{
	return current->tgid == READ_ONCE(iolayers_target_tgid);
}

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
unsigned int iolayers_log2_bucket(u64 value);

int iolayers_tracepoint_attach(struct iolayers_probe *p, void *probe, void *data);
void iolayers_tracepoint_detach(struct iolayers_probe *p, void *probe, void *data);

void iolayers_kretprobe_attach(struct iolayers_probe *p, struct kretprobe *krp);
void iolayers_kretprobe_detach(struct iolayers_probe *p);

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
void iolayers_debugfs_init(void);
void iolayers_debugfs_exit(void);

#endif /* _IOLAYERS_IOLAYERS_H */
