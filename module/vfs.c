// SPDX-License-Identifier: GPL-2.0
/*
 * VFS layer: vfs_read and vfs_readv, from their entry (an ftrace callback)
 * to the syscall's exit, inside a syscall's flow.
 */

#include <linux/ftrace.h>
#include <linux/ktime.h>
#include <iolayers/iolayers.h>
#include <iolayers/flow.h>

/*
 * VFS ends where the syscall's exit begins: after vfs_read() returns, the
 * read family only drops the file reference (fdput_pos) before sys_exit,
 * so no return probe is armed (it was a kretprobe, twice the mechanism's
 * cost). sys_exit sets the flow's vfs_ns.
 */
static void iolayers_vfs_entry(struct ftrace_regs *fregs, enum iolayers_probe_id id)
{
	IOLAYERS_COST_SCOPE(id);
	struct iolayers_task_flow *f;

	if (iolayers_table_empty(IOLAYERS_T_TASK))
		return;
	/* An RCU reader already (iolayers_fentry_run()). */
	f = iolayers_flow_find(current->pid);
	if (f && !f->vfs_start_ns) {	/* in a followed read(), not nested */
		iolayers_hit(id);
		f->vfs_start_ns = ktime_get_ns();
	}
}

IOLAYERS_DEFINE_FENTRY(iolayers_vfs_read, IOLAYERS_P_VFS_READ, iolayers_vfs_entry);
/* The readv family's VFS entry (static in fs/read_write.c; may be inlined). */
IOLAYERS_DEFINE_FENTRY(iolayers_vfs_readv, IOLAYERS_P_VFS_READV, iolayers_vfs_entry);

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
