// SPDX-License-Identifier: GPL-2.0
/*
 * VFS layer: vfs_read and vfs_readv, from their entry (an ftrace callback)
 * to the syscall's exit, inside a syscall's flow.
 */

#include <linux/ftrace.h>
#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include <iolayers/iolayers.h>
#include <iolayers/flow.h>

/*
 * VFS ends where the syscall's exit begins: after vfs_read() returns, the
 * read family only drops the file reference (fdput_pos) before sys_exit,
 * so no return probe is armed (it was a kretprobe, twice the mechanism's
 * cost). sys_exit sets the flow's vfs_ns and vfs_ret.
 */
static void iolayers_vfs_entry(enum iolayers_probe_id id)
{
	IOLAYERS_COST_SCOPE(id);
	struct iolayers_task_flow *f;

	if (iolayers_table_empty(IOLAYERS_T_TASK))
		return;
	rcu_read_lock();
	f = iolayers_flow_find(current->pid);
	if (f && !f->vfs_start_ns) {	/* in a followed read(), not nested */
		iolayers_hit(id);
		f->vfs_start_ns = ktime_get_ns();
	}
	rcu_read_unlock();
}

/* One callback per function: the probe id without a lookup. */
static void notrace iolayers_vfs_fentry(unsigned long ip, unsigned long parent_ip,
					enum iolayers_probe_id id)
{
	int bit;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0) {
		atomic_long_inc(&iolayers_probes[id].missed);
		return;
	}
	iolayers_vfs_entry(id);
	ftrace_test_recursion_unlock(bit);
}

static void notrace iolayers_vfs_read_fentry(unsigned long ip, unsigned long parent_ip,
					     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	iolayers_vfs_fentry(ip, parent_ip, IOLAYERS_P_VFS_READ);
}

/* The readv family's VFS entry (static in fs/read_write.c; may be inlined). */
static void notrace iolayers_vfs_readv_fentry(unsigned long ip, unsigned long parent_ip,
					      struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	iolayers_vfs_fentry(ip, parent_ip, IOLAYERS_P_VFS_READV);
}

static struct ftrace_ops iolayers_vfs_read_ops = {
	.func = iolayers_vfs_read_fentry,
};

static struct ftrace_ops iolayers_vfs_readv_ops = {
	.func = iolayers_vfs_readv_fentry,
};

/**
 * iolayers_vfs_register() - Attach the VFS layer's probes.
 *
 * A missing symbol disables the layer (state MISSING) without failing.
 *
 * Context: process context, may sleep.
 */
void iolayers_vfs_register(void)
{
	iolayers_fentry_attach(&iolayers_probes[IOLAYERS_P_VFS_READ], &iolayers_vfs_read_ops);
	iolayers_fentry_attach(&iolayers_probes[IOLAYERS_P_VFS_READV], &iolayers_vfs_readv_ops);
}

/**
 * iolayers_vfs_unregister() - Detach the VFS layer's probes.
 *
 * Context: process context, may sleep.
 */
void iolayers_vfs_unregister(void)
{
	iolayers_fentry_detach(&iolayers_probes[IOLAYERS_P_VFS_READV]);
	iolayers_fentry_detach(&iolayers_probes[IOLAYERS_P_VFS_READ]);
}
