// SPDX-License-Identifier: GPL-2.0
/* Attach probes to kernel tracepoints found by name (most are not exported). */

#include <linux/tracepoint.h>
#include <linux/string.h>
#include <linux/printk.h>
#include <iolayers/iolayers.h>

struct iolayers_tp_lookup {
	const char *name;
	struct tracepoint *found;
};

static void iolayers_tp_match(struct tracepoint *tp, void *priv)
{
	struct iolayers_tp_lookup *l = priv;

	if (!l->found && !strcmp(tp->name, l->name))
		l->found = tp;
}

/**
 * iolayers_tracepoint_find() - Find a core-kernel tracepoint by name.
 * @name: the tracepoint's name
 *
 * Tracepoints of modules are not seen (use a tracepoint module notifier).
 *
 * Context: process context.
 * Return: the tracepoint, or NULL.
 */
struct tracepoint *iolayers_tracepoint_find(const char *name)
{
	struct iolayers_tp_lookup l = { .name = name };

	for_each_kernel_tracepoint(iolayers_tp_match, &l);
	return l.found;
}

/**
 * iolayers_tracepoint_attach_tp() - Register a probe on a tracepoint.
 * @p: the probe point; @p->state, @p->err and @p->tp are updated
 * @tp: the tracepoint (core kernel or a module's)
 * @probe: the probe function, with the tracepoint's prototype
 * @data: first argument passed to @probe
 *
 * A failed registration leaves the probe FAILED with a pr_warn.
 *
 * Context: process context, may sleep.
 */
void iolayers_tracepoint_attach_tp(struct iolayers_probe *p, struct tracepoint *tp,
				   void *probe, void *data)
{
	int ret = tracepoint_probe_register(tp, probe, data);

	if (ret) {
		p->state = IOLAYERS_PROBE_FAILED;
		p->err = ret;
		pr_warn("iolayers: tracepoint %s: register failed (%d)\n", p->name, ret);
		return;
	}
	p->tp = tp;
	p->err = 0;
	p->state = IOLAYERS_PROBE_ATTACHED;
}

/**
 * iolayers_tracepoint_attach() - Find a core-kernel tracepoint by name and
 *	register a probe on it.
 * @p: the probe point; @p->name is the tracepoint name, @p->state and
 *	@p->err are updated
 * @probe: the probe function, with the tracepoint's prototype
 * @data: first argument passed to @probe
 *
 * A tracepoint that does not exist leaves the probe MISSING and is not an
 * error: its layer is disabled and the `layers` file says so.
 *
 * Context: process context, may sleep.
 */
void iolayers_tracepoint_attach(struct iolayers_probe *p, void *probe, void *data)
{
	struct tracepoint *tp = iolayers_tracepoint_find(p->name);

	if (!tp) {
		p->state = IOLAYERS_PROBE_MISSING;
		pr_warn("iolayers: tracepoint %s not found, %s layer disabled\n",
			p->name, p->layer);
		return;
	}
	iolayers_tracepoint_attach_tp(p, tp, probe, data);
}

/**
 * iolayers_tracepoint_detach() - Unregister a probe attached by
 *	iolayers_tracepoint_attach().
 * @p: the probe point
 * @probe: the probe function given to iolayers_tracepoint_attach()
 * @data: the data given to iolayers_tracepoint_attach()
 *
 * The caller must call tracepoint_synchronize_unregister() before freeing
 * anything the probe may still be using.
 *
 * Context: process context, may sleep.
 */
void iolayers_tracepoint_detach(struct iolayers_probe *p, void *probe, void *data)
{
	if (p->state != IOLAYERS_PROBE_ATTACHED)
		return;
	tracepoint_probe_unregister(p->tp, probe, data);
	p->state = IOLAYERS_PROBE_DETACHED;
	p->tp = NULL;
}
