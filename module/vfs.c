// SPDX-License-Identifier: GPL-2.0
/* VFS layer: the vfs_read entry point. */

#include <linux/kprobes.h>
#include <linux/printk.h>
#include <iolayers/iolayers.h>

static int iolayers_vfs_read_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (iolayers_traced())
		iolayers_hit(IOLAYERS_P_VFS_READ);
	return 0;
}

static struct kprobe iolayers_vfs_read_kp = {
	.symbol_name = "vfs_read",
	.pre_handler = iolayers_vfs_read_pre,
};

/**
 * iolayers_vfs_register() - Attach the VFS layer's probes.
 *
 * A missing symbol disables the layer (state MISSING) without failing.
 *
 * Context: process context, may sleep.
 * Return: 0, or a negative errno when a present probe point failed.
 */
int iolayers_vfs_register(void)
{
	struct iolayers_probe *p = &iolayers_probes[IOLAYERS_P_VFS_READ];
	int ret;

	ret = register_kprobe(&iolayers_vfs_read_kp);
	if (ret == -ENOENT || ret == -EINVAL) {
		/* No such symbol, or not probeable here (e.g. inlined). */
		p->state = IOLAYERS_PROBE_MISSING;
		p->err = ret;
		pr_warn("iolayers: kprobe %s unavailable (%d), VFS layer disabled\n",
			p->name, ret);
		return 0;
	}
	if (ret) {
		p->state = IOLAYERS_PROBE_FAILED;
		p->err = ret;
		pr_warn("iolayers: kprobe %s failed (%d)\n", p->name, ret);
		return ret;
	}
	p->nmissed = &iolayers_vfs_read_kp.nmissed;
	p->state = IOLAYERS_PROBE_ATTACHED;
	return 0;
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
	unregister_kprobe(&iolayers_vfs_read_kp);
	p->state = IOLAYERS_PROBE_DETACHED;
	p->nmissed = NULL;
}
