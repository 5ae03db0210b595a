// SPDX-License-Identifier: GPL-2.0
/* VFS layer: vfs_read, timed with a kretprobe, inside a syscall's flow. */

#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <iolayers/iolayers.h>
#include <iolayers/flow.h>

/*
 * Reads sleep inside vfs_read, so many instances can be in flight at once;
 * instances beyond maxactive are missed and counted (nmissed in `stats`).
 */
#define IOLAYERS_VFS_MAXACTIVE	512

/*
 * Per-instance data (ri->data). The flow entry stays valid until the
 * task exits (only the task itself removes it, at sched_process_exit),
 * which is after this call returns.
 */
struct iolayers_vfs_call {
	struct iolayers_task_flow *flow;
};

static int iolayers_vfs_entry(struct kretprobe_instance *ri, enum iolayers_probe_id id)
{
	IOLAYERS_COST_SCOPE(id);
	struct iolayers_vfs_call *c = (struct iolayers_vfs_call *)ri->data;

	if (iolayers_empty)
		return iolayers_floor_follows() ? 0 : 1;	/* the floor */
	if (iolayers_table_empty(IOLAYERS_T_TASK))
		return 1;	/* no return probe for this call */
	rcu_read_lock();
	c->flow = iolayers_flow_find(current->pid);
	rcu_read_unlock();
	if (!c->flow || c->flow->vfs_start_ns)
		return 1;	/* not in a followed read(), or nested */
	iolayers_hit(id);
	c->flow->vfs_start_ns = ktime_get_ns();
	return 0;
}

static int iolayers_vfs_read_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return iolayers_vfs_entry(ri, IOLAYERS_P_VFS_READ);
}

/* The readv family's VFS entry (static in fs/read_write.c; may be inlined). */
static int iolayers_vfs_readv_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return iolayers_vfs_entry(ri, IOLAYERS_P_VFS_READV);
}

static int iolayers_vfs_ret(struct kretprobe_instance *ri, struct pt_regs *regs,
			    enum iolayers_probe_id id)
{
	IOLAYERS_COST_SCOPE(id);
	struct iolayers_vfs_call *c = (struct iolayers_vfs_call *)ri->data;

	if (iolayers_empty)
		return 0;	/* empty=1: the floor of the mechanism */
	c->flow->vfs_ns = ktime_get_ns() - c->flow->vfs_start_ns;
	c->flow->vfs_ret = (long)regs_return_value(regs);
	return 0;
}

static int iolayers_vfs_read_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return iolayers_vfs_ret(ri, regs, IOLAYERS_P_VFS_READ);
}

static int iolayers_vfs_readv_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return iolayers_vfs_ret(ri, regs, IOLAYERS_P_VFS_READV);
}

static struct kretprobe iolayers_vfs_read_krp = {
	.kp.symbol_name = "vfs_read",
	.entry_handler = iolayers_vfs_read_entry,
	.handler = iolayers_vfs_read_ret,
	.data_size = sizeof(struct iolayers_vfs_call),
	.maxactive = IOLAYERS_VFS_MAXACTIVE,
};

static struct kretprobe iolayers_vfs_readv_krp = {
	.kp.symbol_name = "vfs_readv",
	.entry_handler = iolayers_vfs_readv_entry,
	.handler = iolayers_vfs_readv_ret,
	.data_size = sizeof(struct iolayers_vfs_call),
	.maxactive = IOLAYERS_VFS_MAXACTIVE,
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
	iolayers_kretprobe_attach(&iolayers_probes[IOLAYERS_P_VFS_READ], &iolayers_vfs_read_krp);
	iolayers_kretprobe_attach(&iolayers_probes[IOLAYERS_P_VFS_READV], &iolayers_vfs_readv_krp);
}

/**
 * iolayers_vfs_unregister() - Detach the VFS layer's probes.
 *
 * Context: process context, may sleep.
 */
void iolayers_vfs_unregister(void)
{
	iolayers_kretprobe_detach(&iolayers_probes[IOLAYERS_P_VFS_READV]);
	iolayers_kretprobe_detach(&iolayers_probes[IOLAYERS_P_VFS_READ]);
}
