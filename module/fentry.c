// SPDX-License-Identifier: GPL-2.0
/*
 * Function entry callbacks through ftrace (an ftrace_ops per probe point),
 * for probe points that need no return: cheaper than a kprobe, which on
 * an ftrace site runs the same trampoline and then the kprobe dispatcher.
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/ftrace.h>
#include <linux/printk.h>
#include <linux/string.h>
#include <iolayers/iolayers.h>

/**
 * iolayers_fentry_attach() - Attach an ftrace_ops to a function's entry.
 * @p: the probe point (@p->name is the function); state and err updated
 * @ops: the ftrace_ops, with its callback set
 *
 * A function that does not exist or cannot be traced (inlined, notrace)
 * leaves the probe MISSING: its layer is disabled, the load goes on.
 *
 * Context: process context, may sleep.
 */
void iolayers_fentry_attach(struct iolayers_probe *p, struct ftrace_ops *ops)
{
	unsigned char name[KSYM_NAME_LEN];
	int ret;

	strscpy(name, p->name, sizeof(name));
	ret = ftrace_set_filter(ops, name, strlen(name), 1);
	if (ret) {
		p->state = IOLAYERS_PROBE_MISSING;
		p->err = ret;
		pr_warn("function entry %s unavailable (%d), %s layer disabled\n",
			p->name, ret, p->layer);
		return;
	}
	ret = register_ftrace_function(ops);
	if (ret) {
		ftrace_free_filter(ops);
		p->state = IOLAYERS_PROBE_FAILED;
		p->err = ret;
		pr_warn("function entry %s failed (%d)\n", p->name, ret);
		return;
	}
	p->ops = ops;
	p->state = IOLAYERS_PROBE_ATTACHED;
}

/**
 * iolayers_fentry_detach() - Detach an ftrace_ops attached by
 *	iolayers_fentry_attach().
 * @p: the probe point
 *
 * unregister_ftrace_function() returns once no CPU runs the callback.
 *
 * Context: process context, may sleep.
 */
void iolayers_fentry_detach(struct iolayers_probe *p)
{
	if (p->state != IOLAYERS_PROBE_ATTACHED)
		return;
	unregister_ftrace_function(p->ops);
	ftrace_free_filter(p->ops);
	p->state = IOLAYERS_PROBE_DETACHED;
}
