// SPDX-License-Identifier: GPL-2.0
/* Attach and detach kretprobes, recording their state for `layers`. */

#include <linux/kprobes.h>
#include <linux/printk.h>
#include <iolayers/iolayers.h>

/**
 * iolayers_kretprobe_attach() - Register a kretprobe for a probe point.
 * @p: the probe point; its state and err are updated
 * @krp: the kretprobe, with kp.symbol_name set to @p->name
 *
 * A symbol that does not exist (or cannot be probed, e.g. because a module
 * is not loaded) leaves the probe MISSING: its layer is disabled, the load
 * goes on.
 *
 * Context: process context, may sleep.
 */
void iolayers_kretprobe_attach(struct iolayers_probe *p, struct kretprobe *krp)
{
	int ret = register_kretprobe(krp);

	if (ret == -ENOENT || ret == -EINVAL) {
		p->state = IOLAYERS_PROBE_MISSING;
		p->err = ret;
		pr_warn("iolayers: kretprobe %s unavailable (%d), %s layer disabled\n",
			p->name, ret, p->layer);
		return;
	}
	if (ret) {
		p->state = IOLAYERS_PROBE_FAILED;
		p->err = ret;
		pr_warn("iolayers: kretprobe %s failed (%d)\n", p->name, ret);
		return;
	}
	p->krp = krp;
	p->state = IOLAYERS_PROBE_ATTACHED;
}

/**
 * iolayers_kretprobe_detach() - Unregister a kretprobe attached by
 *	iolayers_kretprobe_attach().
 * @p: the probe point
 *
 * Context: process context, may sleep.
 */
void iolayers_kretprobe_detach(struct iolayers_probe *p)
{
	if (p->state != IOLAYERS_PROBE_ATTACHED)
		return;
	unregister_kretprobe(p->krp);
	p->state = IOLAYERS_PROBE_DETACHED;
}
