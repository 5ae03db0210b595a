// SPDX-License-Identifier: GPL-2.0
/* SYSCALL layer: the read family through raw_syscalls sys_enter/sys_exit. */

#include <linux/compat.h>
#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <asm/syscall.h>
#include <asm/unistd.h>
#include <iolayers/iolayers.h>
#include <iolayers/flow.h>
#include <iolayers/hist.h>

/* The 64-bit read family; compat (32-bit) tasks are not followed. */
static bool iolayers_read_syscall(long nr)
{
	switch (nr) {
	case __NR_read:
	case __NR_pread64:
	case __NR_readv:
	case __NR_preadv:
	case __NR_preadv2:
		return true;
	default:
		return false;
	}
}

/*
 * Prototype of TRACE_EVENT_FN(sys_enter), include/trace/events/syscalls.h.
 * From 6.13 on these probes run preemptible: only RCU and this_cpu_* here.
 */
static void iolayers_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct iolayers_task_flow *f;
	unsigned long args[6];

	if (!iolayers_read_syscall(id) || !iolayers_traced() || in_compat_syscall())
		return;
	iolayers_hit(IOLAYERS_P_SYS_ENTER);
	syscall_get_arguments(current, regs, args);
	rcu_read_lock();
	f = iolayers_flow_start(current->pid);
	if (f) {
		f->nr = id;
		f->fd = (int)args[0];
		f->req = (id == __NR_read || id == __NR_pread64) ? args[2] : 0;
		f->pos = (id == __NR_read || id == __NR_readv) ? -1 : (s64)args[3];
		if (id == __NR_preadv2 && (s64)args[3] == -1)
			f->pos = -1;
		f->start_ns = ktime_get_ns();
	}
	rcu_read_unlock();
}

/* The flow is complete: decide its cache state, record every layer. */
static void iolayers_flow_finish(struct iolayers_task_flow *f, long ret, u64 now)
{
	enum iolayers_cache cache;
	u64 range = 0;

	if (f->fs_reached && f->fs_ret > 0)
		range = ((f->fs_pos + f->fs_ret - 1) >> PAGE_SHIFT) - f->first_index + 1;
	cache = iolayers_cache_decide(f->fs_reached, iolayers_fs_available(), f->direct,
				      range, f->added_pages, f->iowait);
	iolayers_hist_record(IOLAYERS_L_SYSCALL, cache, now - f->start_ns, ret > 0 ? ret : 0);
	if (f->vfs_ns)
		iolayers_hist_record(IOLAYERS_L_VFS, cache, f->vfs_ns,
				     f->vfs_ret > 0 ? f->vfs_ret : 0);
	if (f->fs_reached)
		iolayers_hist_record(IOLAYERS_L_FS, cache, f->fs_ns,
				     f->fs_ret > 0 ? f->fs_ret : 0);
}

/* Prototype of TRACE_EVENT_FN(sys_exit). */
static void iolayers_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct iolayers_task_flow *f;

	if (!iolayers_traced() || !iolayers_read_syscall(syscall_get_nr(current, regs)))
		return;
	rcu_read_lock();
	f = iolayers_flow_find(current->pid);
	if (f) {
		iolayers_hit(IOLAYERS_P_SYS_EXIT);
		iolayers_flow_finish(f, ret, ktime_get_ns());
		iolayers_flow_end(f);
	}
	rcu_read_unlock();
}

/**
 * iolayers_syscall_register() - Attach the SYSCALL layer's tracepoints.
 *
 * Context: process context, may sleep.
 */
void iolayers_syscall_register(void)
{
	iolayers_tracepoint_attach(&iolayers_probes[IOLAYERS_P_SYS_EXIT],
				   iolayers_sys_exit, NULL);
	iolayers_tracepoint_attach(&iolayers_probes[IOLAYERS_P_SYS_ENTER],
				   iolayers_sys_enter, NULL);
}

/**
 * iolayers_syscall_unregister() - Detach the SYSCALL layer's tracepoints.
 *
 * Context: process context, may sleep.
 */
void iolayers_syscall_unregister(void)
{
	iolayers_tracepoint_detach(&iolayers_probes[IOLAYERS_P_SYS_ENTER],
				   iolayers_sys_enter, NULL);
	iolayers_tracepoint_detach(&iolayers_probes[IOLAYERS_P_SYS_EXIT],
				   iolayers_sys_exit, NULL);
}
