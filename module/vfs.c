// SPDX-License-Identifier: GPL-2.0
/* VFS layer: vfs_read, timed with a kretprobe. */

#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/printk.h>
#include <iolayers/iolayers.h>
#include <iolayers/hist.h>

/*
 * Reads sleep inside vfs_read, so many instances can be in flight at once;
 * instances beyond maxactive are missed and counted (nmissed in `stats`).
 */
#define IOLAYERS_VFS_MAXACTIVE	512

/* Per-instance data (ri->data): the entry time. */
struct iolayers_vfs_call {
	u64 start_ns;
};

static int iolayers_vfs_read_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct iolayers_vfs_call *c = (struct iolayers_vfs_call *)ri->data;

	if (!iolayers_traced())
		return 1;	/* no return probe for this call */
	iolayers_hit(IOLAYERS_P_VFS_READ);
	c->start_ns = ktime_get_ns();
	return 0;
}

static int iolayers_vfs_read_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct iolayers_vfs_call *c = (struct iolayers_vfs_call *)ri->data;
	long ret = (long)regs_return_value(regs);

	iolayers_hist_record(IOLAYERS_L_VFS, ktime_get_ns() - c->start_ns,
			     ret > 0 ? ret : 0);
	return 0;
}

static struct kretprobe iolayers_vfs_read_krp = {
	.kp.symbol_name = "vfs_read",
	.entry_handler = iolayers_vfs_read_entry,
	.handler = iolayers_vfs_read_ret,
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
	struct iolayers_probe *p = &iolayers_probes[IOLAYERS_P_VFS_READ];
	int ret;

	ret = register_kretprobe(&iolayers_vfs_read_krp);
	if (ret == -ENOENT || ret == -EINVAL) {
		/* No such symbol, or not probeable here (e.g. inlined). */
		p->state = IOLAYERS_PROBE_MISSING;
		p->err = ret;
		pr_warn("iolayers: kretprobe %s unavailable (%d), VFS layer disabled\n",
			p->name, ret);
		return;
	}
	if (ret) {
		p->state = IOLAYERS_PROBE_FAILED;
		p->err = ret;
		pr_warn("iolayers: kretprobe %s failed (%d)\n", p->name, ret);
		return;
	}
	p->krp = &iolayers_vfs_read_krp;
	p->state = IOLAYERS_PROBE_ATTACHED;
}

/**
 * iolayers_vfs_unregister() - Detach the VFS layer's probes.
 *
 * Context: process context, may sleep.
 */
void iolayers_vfs_unregister(void)
{
	struct iolayers_probe *p = &iolayers_probes[IOLAYERS_P_VFS_READ];

	if (p->state != IOLAYERS_PROBE_ATTACHED)
		return;
	unregister_kretprobe(&iolayers_vfs_read_krp);
	p->state = IOLAYERS_PROBE_DETACHED;
}
