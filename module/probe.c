// SPDX-License-Identifier: GPL-2.0
/*
 * The probe registry: attaches and detaches every layer's probe points
 * (tracepoints found by name, also in modules loaded later; function
 * entries through ftrace), counts their hits and handler cost, and shows
 * them in `layers` and `stats`.
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/ftrace.h>
#include <linux/hardirq.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/printk.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <iolayers/flow.h>
#include <iolayers/probe.h>

/* empty=1 (settings.c): the floor, every handler returns at once. */
bool iolayers_empty __read_mostly;
EXPORT_SYMBOL_IF_KUNIT(iolayers_empty);
/* cost=1 (settings.c): the handlers' self-accounting, set at attach. */
bool iolayers_cost __read_mostly;
DEFINE_STATIC_KEY_FALSE(iolayers_cost_key);

/* The layers handed over at load, in the order `layers` shows them. */
static struct iolayers_layer_probes *const *iolayers_layers;
static unsigned int iolayers_nr_layers;
/* Serialises attaching and detaching against the module notifier. */
static DEFINE_MUTEX(iolayers_probe_lock);
static bool iolayers_notifier_on;

/* The cost of one local_clock() read, in ns; see iolayers_clock_calibrate(). */
static u64 iolayers_clock_ns;

/*
 * The probe point after @p (the first one when @p is NULL) over all the
 * layers, @li holding @p's layer; NULL after the last.
 */
static struct iolayers_probe *iolayers_probe_next(unsigned int *li, struct iolayers_probe *p)
{
	const struct iolayers_layer_probes *l;

	if (p) {
		l = iolayers_layers[*li];
		if (++p < l->probes + l->nr_probes)
			return p;
		(*li)++;
	} else {
		*li = 0;
	}
	for (; *li < iolayers_nr_layers; (*li)++)
		if (iolayers_layers[*li]->nr_probes)
			return iolayers_layers[*li]->probes;
	return NULL;
}

static const char *iolayers_kind_name(enum iolayers_probe_kind kind)
{
	switch (kind) {
	case IOLAYERS_FENTRY:
		return "fentry";
	case IOLAYERS_KRETPROBE:
		return "kretprobe";
	default:
		return "tracepoint";
	}
}

static const char *iolayers_state_name(enum iolayers_probe_state state)
{
	switch (state) {
	case IOLAYERS_PROBE_ATTACHED:
		return "attached";
	case IOLAYERS_PROBE_MISSING:
		return "missing";
	case IOLAYERS_PROBE_FAILED:
		return "failed";
	case IOLAYERS_PROBE_UNVERIFIED:
		return "unverified";
	default:
		return "detached";
	}
}

/* A probe point that is not there disables what it measures, not the load. */
static void iolayers_probe_missing(struct iolayers_probe *p, int err)
{
	p->state = IOLAYERS_PROBE_MISSING;
	p->err = err;
	if (p->optional)
		pr_info("%s %s unavailable, optional: the %s layer goes on without it\n",
			iolayers_kind_name(p->kind), p->name, p->layer);
	else if (p->kind == IOLAYERS_TRACEPOINT)
		pr_warn("tracepoint %s not found, %s layer disabled until a module that has it is loaded\n",
			p->name, p->layer);
	else
		pr_warn("function entry %s unavailable (%d), %s layer disabled\n",
			p->name, err, p->layer);
}

static void iolayers_probe_failed(struct iolayers_probe *p, int err)
{
	p->state = IOLAYERS_PROBE_FAILED;
	p->err = err;
	pr_warn("%s %s: registration failed (%d)\n", iolayers_kind_name(p->kind), p->name, err);
}

/* Function entries: an ftrace_ops per probe point, filtered to its function. */

/*
 * The address of the kernel's own function @name (0 and the error when
 * there is none). A filter set by name makes ftrace print the name of
 * every function it can trace and compare it, and a function in a module
 * is named by a walk over all of that module's symbols: with xfs loaded,
 * Debian's 6.12 took 28 s under TCG to load the module instead of 5, and
 * each function entry paid it again. A kprobe registered disabled finds
 * the name once (the kernel's own symbols first) and patches nothing.
 */
static unsigned long iolayers_fentry_addr(const char *name, int *err)
{
	struct kprobe kp = {
		.symbol_name = name,
		.flags = KPROBE_FLAG_DISABLED,
	};
	unsigned long addr;

	*err = register_kprobe(&kp);
	if (*err)
		return 0;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return addr;
}

static void iolayers_fentry_attach(struct iolayers_probe *p)
{
	unsigned char name[KSYM_NAME_LEN];
	unsigned long addr;
	int ret;

	p->ops.func = p->func;
	p->ops.flags = IOLAYERS_FTRACE_OPS_FLAGS;
	/*
	 * ftrace maps the function's start (or the kprobe's spot past an
	 * endbr) to its patch site, or refuses it: notrace. Only the first
	 * function of that name is filtered, the kernel's own, which is the
	 * one the layer means. By name where the address did not do (a
	 * kprobe refused, or that first one is not ftrace's but another of
	 * the name is): slower, and as right. No symbol, no function:
	 * ftrace's names are kallsyms'.
	 */
	addr = iolayers_fentry_addr(p->name, &ret);
	if (addr)
		ret = ftrace_set_filter_ip(&p->ops, addr, 0, 1);
	if (ret && ret != -ENOENT) {
		strscpy(name, p->name, sizeof(name));
		/* Not there, inlined or notrace: the filter refuses it. */
		ret = ftrace_set_filter(&p->ops, name, strlen(name), 1);
	}
	if (ret) {
		iolayers_probe_missing(p, ret);
		return;
	}
	ret = register_ftrace_function(&p->ops);
	if (ret) {
		iolayers_ftrace_free_filter(&p->ops);
		iolayers_probe_failed(p, ret);
		return;
	}
	p->err = 0;
	p->state = IOLAYERS_PROBE_ATTACHED;
}

/* unregister_ftrace_function() returns once no CPU runs the callback. */
static void iolayers_fentry_detach(struct iolayers_probe *p)
{
	unregister_ftrace_function(&p->ops);
	iolayers_ftrace_free_filter(&p->ops);
}

/*
 * A layer's grouped function entries: one ftrace_ops filtered to all of
 * their functions, one registration and one unregistration (and so one
 * RCU-tasks grace period) for all; its callback finds the probe by the
 * address ftrace hands it.
 */

/*
 * How far past the address a kprobe gives for a function its ftrace site
 * may lie: none on x86 (a kprobe is put past an endbr, on the site), a
 * few instructions on arm64 (the BL after a BTI landing pad and a NOP).
 * Two probed functions are never this close.
 */
#define IOLAYERS_FENTRY_SITE_SPAN	16

/**
 * struct iolayers_fentry_group - A layer's grouped function entries.
 * @ops: their one ftrace_ops (@ops.private points back here)
 * @missed_layer: the IOLAYERS_MISSED_* bit of its probes (one layer's)
 * @nr: slots in use
 * @slot: the entries, in the layer's table order; no two closer than
 *	%IOLAYERS_FENTRY_SITE_SPAN (iolayers_fentry_slot_clear())
 */
struct iolayers_fentry_group {
	struct ftrace_ops ops;
	u8 missed_layer;
	unsigned int nr;
	struct iolayers_fentry_slot slot[];
};

/* Group callbacks whose address was none of the group's: never expected. */
static atomic_long_t iolayers_fentry_unmatched = ATOMIC_LONG_INIT(0);
/* Function entries attached through a group (the rest have their own ops). */
static unsigned int iolayers_fentry_nr_grouped;

/**
 * iolayers_fentry_slot_of() - The grouped entry a callback's address is in.
 * @slot: the group's slots
 * @nr: how many
 * @ip: the address ftrace handed the callback
 *
 * Context: any (a probe callback); notrace, it runs before the recursion
 * guard.
 * Return: the slot whose window [slot ip, slot ip + %IOLAYERS_FENTRY_SITE_SPAN)
 * holds @ip (at most one: iolayers_fentry_slot_clear()), or NULL.
 */
VISIBLE_IF_KUNIT notrace const struct iolayers_fentry_slot *
iolayers_fentry_slot_of(const struct iolayers_fentry_slot *slot, unsigned int nr,
			unsigned long ip)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (ip - slot[i].ip < IOLAYERS_FENTRY_SITE_SPAN)
			return &slot[i];
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_fentry_slot_of);

/**
 * iolayers_fentry_slot_clear() - Whether a function's address may join a
 *	group: no slot's window and its own overlap.
 * @slot: the group's slots
 * @nr: how many
 * @ip: the function's address
 *
 * Two names of one function (one ftrace site), or two functions closer
 * than the window, would make a call's slot ambiguous: such an entry
 * goes alone.
 *
 * Return: true when @ip is %IOLAYERS_FENTRY_SITE_SPAN or more away from
 * every slot's address.
 */
VISIBLE_IF_KUNIT bool iolayers_fentry_slot_clear(const struct iolayers_fentry_slot *slot,
						 unsigned int nr, unsigned long ip)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (ip - slot[i].ip < IOLAYERS_FENTRY_SITE_SPAN ||
		    slot[i].ip - ip < IOLAYERS_FENTRY_SITE_SPAN)
			return false;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_fentry_slot_clear);

/* The probe a callback ran for: its own ftrace_ops, or its group's slot. */
static struct iolayers_probe *iolayers_fentry_probe(struct ftrace_ops *op, unsigned long ip)
{
	const struct iolayers_fentry_group *g = op->private;
	const struct iolayers_fentry_slot *s;

	if (!g)
		return container_of(op, struct iolayers_probe, ops);
	s = iolayers_fentry_slot_of(g->slot, g->nr, ip);
	return s ? s->probe : NULL;
}

/*
 * A function entry lost (refused, or a group's call that found no probe):
 * the read in flight lost @layer, if the entry was the task's own (in task
 * context: bottom halves disabled or not); an interrupt's is not its.
 */
static void iolayers_fentry_lost(u8 layer)
{
	if (layer && in_task())
		iolayers_flow_missed(layer);
}

/*
 * The group's ftrace callback: the probe's own callback, by the address.
 * Its probes are in table order; the functions it is used for are the
 * ones a typical read does not meet (&iolayers_probe.grouped).
 */
static void notrace iolayers_fentry_dispatch(unsigned long ip, unsigned long parent_ip,
					     struct ftrace_ops *op,
					     struct iolayers_fregs *fregs)
{
	const struct iolayers_fentry_group *g = op->private;
	const struct iolayers_fentry_slot *s = iolayers_fentry_slot_of(g->slot, g->nr, ip);
	ftrace_func_t fn;

	if (unlikely(!s)) {
		/* An event lost: counted, and said in the read in flight. */
		atomic_long_inc(&iolayers_fentry_unmatched);
		iolayers_fentry_lost(g->missed_layer);
		return;
	}
	/* The probe's own callback (IOLAYERS_DEFINE_FENTRY()). */
	fn = s->probe->func;
	fn(ip, parent_ip, op, fregs);
}

/* A grouped entry that could not join its group: attached alone. */
static void iolayers_fentry_alone(struct iolayers_probe *p, const char *why)
{
	pr_info("function entry %s %s: it gets an ftrace_ops of its own\n", p->name, why);
	iolayers_fentry_attach(p);
}

/*
 * Attach a layer's grouped function entries: each found by its address
 * into the group's filter; one that is not (ftrace knows it only by name,
 * its address is too close to another's, or the group cannot be made)
 * goes the ungrouped way, alone, and one that is nowhere is missing. The
 * group registers once.
 */
static void iolayers_fentry_group_attach(struct iolayers_layer_probes *l)
{
	struct iolayers_fentry_group *g;
	struct iolayers_probe *p;
	unsigned long addr;
	unsigned int n = 0, i;
	int ret;

	for (p = l->probes; p < l->probes + l->nr_probes; p++)
		n += p->kind == IOLAYERS_FENTRY && p->grouped;
	if (!n)
		return;
	g = kzalloc(struct_size(g, slot, n), GFP_KERNEL);
	if (!g) {
		for (p = l->probes; p < l->probes + l->nr_probes; p++)
			if (p->kind == IOLAYERS_FENTRY && p->grouped)
				iolayers_fentry_alone(p, "has no group (no memory)");
		return;
	}
	g->ops.func = iolayers_fentry_dispatch;
	g->ops.flags = IOLAYERS_FTRACE_OPS_FLAGS;
	g->ops.private = g;
	for (p = l->probes; p < l->probes + l->nr_probes; p++) {
		if (p->kind != IOLAYERS_FENTRY || !p->grouped)
			continue;
		addr = iolayers_fentry_addr(p->name, &ret);
		if (ret == -ENOENT) {
			iolayers_probe_missing(p, ret);
			continue;
		}
		if (!addr || !iolayers_fentry_slot_clear(g->slot, g->nr, addr)) {
			iolayers_fentry_alone(p, addr ? "lies too close to another of its group" :
					      "has no address for its group");
			continue;
		}
		ret = ftrace_set_filter_ip(&g->ops, addr, 0, 0);
		if (ret) {
			iolayers_fentry_alone(p, "is no ftrace site at its address");
			continue;
		}
		g->slot[g->nr].ip = addr;
		g->slot[g->nr++].probe = p;
		if (!g->missed_layer)
			g->missed_layer = p->missed_layer;
	}
	if (!g->nr) {
		kfree(g);
		return;
	}
	ret = register_ftrace_function(&g->ops);
	if (ret) {
		iolayers_ftrace_free_filter(&g->ops);
		for (i = 0; i < g->nr; i++)
			iolayers_fentry_alone(g->slot[i].probe,
					      "lost its group (registration failed)");
		kfree(g);
		return;
	}
	for (i = 0; i < g->nr; i++) {
		g->slot[i].probe->err = 0;
		g->slot[i].probe->state = IOLAYERS_PROBE_ATTACHED;
	}
	iolayers_fentry_nr_grouped += g->nr;
	l->group = g;
}

/* Once unregister_ftrace_function() returns, no CPU runs the callback. */
static void iolayers_fentry_group_detach(struct iolayers_layer_probes *l)
{
	struct iolayers_fentry_group *g = l->group;
	unsigned int i;
	int ret;

	if (!g)
		return;
	ret = unregister_ftrace_function(&g->ops);
	for (i = 0; i < g->nr; i++)
		g->slot[i].probe->state = IOLAYERS_PROBE_DETACHED;
	iolayers_fentry_nr_grouped -= g->nr;
	l->group = NULL;
	if (ret) {
		/* ftrace may still call it: kept, not freed. */
		pr_err("%s layer's function entries: unregistration failed (%d)\n", l->name, ret);
		return;
	}
	iolayers_ftrace_free_filter(&g->ops);
	kfree(g);
}

/**
 * iolayers_fentry_unmatched_count() - Grouped function entry callbacks
 *	whose address was none of their group's (each an event lost).
 *
 * Return: the count since load.
 */
u64 iolayers_fentry_unmatched_count(void)
{
	return atomic_long_read(&iolayers_fentry_unmatched);
}

/**
 * iolayers_fentry_grouped() - Function entries attached through their
 *	layer's group (one ftrace_ops for them all).
 *
 * Return: how many are attached so.
 */
unsigned int iolayers_fentry_grouped(void)
{
	return READ_ONCE(iolayers_fentry_nr_grouped);
}

/* Set while a function entry's handler runs on the CPU (iolayers_fentry_run()). */
DEFINE_PER_CPU(bool, iolayers_fentry_busy);
#if IS_ENABLED(CONFIG_KUNIT)
/* For the KUnit tests' own function entries (kunit/probe_kunit.c). */
EXPORT_PER_CPU_SYMBOL_GPL(iolayers_fentry_busy);
#endif

/**
 * iolayers_fentry_refused() - Count a function entry the recursion guard
 *	refused, and tell the read in flight what it lost.
 * @op: the callback's ftrace_ops, a probe's or a group's
 * @ip: the traced function, as passed to the callback
 *
 * An entry refused in an interrupt is not the interrupted task's read's:
 * counted only (iolayers_fentry_lost()).
 *
 * Context: any (a probe callback), in the traced function's caller's.
 */
void iolayers_fentry_refused(struct ftrace_ops *op, unsigned long ip)
{
	struct iolayers_probe *p = iolayers_fentry_probe(op, ip);

	if (!p)
		return;
	atomic_long_inc(&p->missed);
	iolayers_fentry_lost(p->missed_layer);
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_fentry_refused);

/*
 * Kretprobes: a function's entry and return, where the time inside it is
 * what is measured. Their misses (no free instance when the function
 * nests deeper than maxactive) are the kretprobe's nmissed.
 */
static void iolayers_kretprobe_attach(struct iolayers_probe *p)
{
	struct kretprobe *krp = p->func;
	int ret;

	if (p->unverified) {
		if (p->state != IOLAYERS_PROBE_UNVERIFIED)
			pr_info("%s not probed: kretprobes are unsafe on this kernel (ftrace's jump bit with functions at odd addresses), the %s layer goes on without it\n",
				p->name, p->layer);
		p->state = IOLAYERS_PROBE_UNVERIFIED;
		return;
	}
	memset(&krp->kp, 0, sizeof(krp->kp));
	krp->kp.symbol_name = p->name;
	krp->nmissed = 0;
	ret = register_kretprobe(krp);
	if (ret == -ENOENT || ret == -EINVAL) {	/* not there, or not probeable */
		iolayers_probe_missing(p, ret);
		return;
	}
	if (ret) {
		iolayers_probe_failed(p, ret);
		return;
	}
	p->err = 0;
	p->state = IOLAYERS_PROBE_ATTACHED;
}

/* Tracepoints: most are not exported, so they are found by name. */

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
 * iolayers_tp_set_unverified() - A tracepoint left unattached: its
 *	prototype may not be the one the probe reads.
 * @p: the probe
 * @owner: the module the tracepoint is in (NULL: the kernel's own)
 *
 * Its module is kept so that the probe is missing again, not unverified,
 * once that module is gone (iolayers_tp_owner_going()).
 *
 * Context: the probe lock held.
 */
VISIBLE_IF_KUNIT void iolayers_tp_set_unverified(struct iolayers_probe *p,
						 const struct module *owner)
{
	p->state = IOLAYERS_PROBE_UNVERIFIED;
	p->owner = owner;
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_tp_set_unverified);

static void iolayers_tp_attach(struct iolayers_probe *p, struct tracepoint *tp,
			       const struct module *owner)
{
	int ret;

	if (p->unverified) {
		/* A probe reading the wrong arguments would give wrong times. */
		if (p->state != IOLAYERS_PROBE_UNVERIFIED)
			pr_info("tracepoint %s not attached: its prototype was not checked for this kernel, the %s layer goes on without it\n",
				p->name, p->layer);
		iolayers_tp_set_unverified(p, owner);
		return;
	}
	ret = tracepoint_probe_register(tp, p->func, NULL);
	if (ret) {
		iolayers_probe_failed(p, ret);
		return;
	}
	p->tp = tp;
	p->owner = owner;
	p->err = 0;
	p->state = IOLAYERS_PROBE_ATTACHED;
}

/*
 * A core-kernel tracepoint now; one in a module (NVMe's are in nvme_core)
 * when the module notifier sees it, also for modules already loaded.
 */
static void iolayers_tp_attach_core(struct iolayers_probe *p)
{
	struct iolayers_tp_lookup l = { .name = p->name };

	for_each_kernel_tracepoint(iolayers_tp_match, &l);
	if (l.found)
		iolayers_tp_attach(p, l.found, NULL);
}

/*
 * The caller calls tracepoint_synchronize_unregister() before freeing
 * anything a probe may still use.
 */
static void iolayers_tp_detach(struct iolayers_probe *p)
{
	tracepoint_probe_unregister(p->tp, p->func, NULL);
	p->tp = NULL;
	p->owner = NULL;
}

static void iolayers_probe_detach(struct iolayers_probe *p)
{
	if (p->state != IOLAYERS_PROBE_ATTACHED)
		return;
	if (p->kind == IOLAYERS_FENTRY)
		iolayers_fentry_detach(p);
	else if (p->kind == IOLAYERS_KRETPROBE)
		unregister_kretprobe(p->func);
	else
		iolayers_tp_detach(p);
	p->state = IOLAYERS_PROBE_DETACHED;
}

/**
 * iolayers_tp_owner_in_tree() - Whether a module's tracepoints are the
 *	ones this kernel's headers declare.
 * @mod: the module
 *
 * An out-of-tree module (TAINT_OOT_MODULE: no ``intree`` in its modinfo),
 * a vendor's nvme_core say, may define a tracepoint of the same name with
 * another prototype, which a probe checked against the kernel's header
 * would read wrongly.
 *
 * Return: true for a module built with the kernel.
 */
VISIBLE_IF_KUNIT bool iolayers_tp_owner_in_tree(const struct module *mod)
{
	return !(mod->taints & (1UL << TAINT_OOT_MODULE));
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_tp_owner_in_tree);

static void iolayers_tp_module_coming(struct module *mod)
{
	struct iolayers_probe *p;
	unsigned int li;
	unsigned int i;

	for (i = 0; i < mod->num_tracepoints; i++) {
		struct tracepoint *tp = tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]);

		for (p = iolayers_probe_next(&li, NULL); p; p = iolayers_probe_next(&li, p))
			if (p->kind == IOLAYERS_TRACEPOINT &&
			    p->state != IOLAYERS_PROBE_ATTACHED && !strcmp(tp->name, p->name)) {
				if (!iolayers_tp_owner_in_tree(mod)) {
					pr_info("tracepoint %s of %s not attached: an out-of-tree module, its prototype may not be this kernel's; the %s layer goes on without it\n",
						p->name, mod->name, p->layer);
					iolayers_tp_set_unverified(p, mod);
					continue;
				}
				iolayers_tp_attach(p, tp, mod);
				if (p->state == IOLAYERS_PROBE_ATTACHED)
					pr_info("tracepoint %s of %s attached, %s layer on\n",
						p->name, mod->name, p->layer);
			}
	}
}

/**
 * iolayers_tp_owner_going() - A probe's part in a module's removal.
 * @p: the probe
 * @mod: the module going
 *
 * A tracepoint of @mod's is detached and missing again; so is one its
 * module was refused for (out of the tree): the next module that has it
 * is looked at afresh, and `layers` does not blame a module long gone.
 *
 * Context: the probe lock held.
 */
VISIBLE_IF_KUNIT void iolayers_tp_owner_going(struct iolayers_probe *p, const struct module *mod)
{
	if (p->owner != mod || (p->state != IOLAYERS_PROBE_ATTACHED &&
				p->state != IOLAYERS_PROBE_UNVERIFIED))
		return;
	iolayers_probe_detach(p);
	p->state = IOLAYERS_PROBE_MISSING;
	p->owner = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_tp_owner_going);

static void iolayers_tp_module_going(struct module *mod)
{
	struct iolayers_probe *p;
	unsigned int li;

	for (p = iolayers_probe_next(&li, NULL); p; p = iolayers_probe_next(&li, p))
		iolayers_tp_owner_going(p, mod);
}

static int iolayers_tp_module_notify(struct notifier_block *nb, unsigned long val, void *data)
{
	struct tp_module *tp_mod = data;

	mutex_lock(&iolayers_probe_lock);
	if (val == MODULE_STATE_COMING)
		iolayers_tp_module_coming(tp_mod->mod);
	else if (val == MODULE_STATE_GOING)
		iolayers_tp_module_going(tp_mod->mod);
	mutex_unlock(&iolayers_probe_lock);
	return NOTIFY_OK;
}

static struct notifier_block iolayers_tp_module_nb = {
	.notifier_call = iolayers_tp_module_notify,
};

/*
 * Every timed handler run includes about one clock read: measure it once,
 * as the shortest of 64 back-to-back pairs (an interrupt can only lengthen
 * a pair), so users can tell handler time from the cost of measuring it.
 */
static void iolayers_clock_calibrate(void)
{
	u64 best = U64_MAX, worst = 0, t0, t1;
	int i;

	for (i = 0; i < 64; i++) {
		preempt_disable();
		t0 = local_clock();
		t1 = local_clock();
		preempt_enable();
		best = min(best, t1 - t0);
		worst = max(worst, t1 - t0);
	}
	iolayers_clock_ns = best;
	/*
	 * A coarse counter can read the same twice now and then; a clock
	 * that follows the tick reads the same 64 times.
	 */
	if (!worst)
		pr_warn("local_clock() did not advance between back-to-back reads: it follows the tick here (no usable TSC?), so latencies shorter than a tick read 0\n");
}

/**
 * iolayers_probes_attach() - Attach every probe point of some layers.
 * @layers: the layers, in the order a read goes down them; they are
 *	attached from the last to the first, each layer's table likewise,
 *	so that nothing starts a flow before the probes below can follow it
 * @n: entries in @layers
 *
 * A probe point that is missing or fails is shown as such in `layers`,
 * with a pr_warn unless it is optional; it never fails the load.
 * Tracepoints not in the core kernel are attached when a module that has
 * them is loaded, those of modules already loaded before anything else,
 * and let go when the module goes away.
 * Called once, before iolayers_probes_detach().
 *
 * Context: process context, may sleep.
 */
void iolayers_probes_attach(struct iolayers_layer_probes *const *layers, unsigned int n)
{
	struct iolayers_layer_probes *l;
	struct iolayers_probe *p;
	unsigned int li;
	int i, k, ret;

	iolayers_clock_calibrate();
	/* Before any handler runs: no run is half counted. */
	if (iolayers_cost)
		static_branch_enable(&iolayers_cost_key);
	mutex_lock(&iolayers_probe_lock);
	iolayers_layers = layers;
	iolayers_nr_layers = n;
	for (p = iolayers_probe_next(&li, NULL); p; p = iolayers_probe_next(&li, p))
		p->layer = layers[li]->name;
	mutex_unlock(&iolayers_probe_lock);
	/*
	 * First the tracepoints of modules already loaded (the notifier
	 * replays them and takes the lock itself): they are low in the stack
	 * (NVMe's), so they too must be there before the layers above start
	 * flows.
	 */
	ret = register_tracepoint_module_notifier(&iolayers_tp_module_nb);
	if (ret)
		pr_warn("tracepoint module notifier failed (%d): no tracepoints of modules\n",
			ret);
	iolayers_notifier_on = !ret;
	mutex_lock(&iolayers_probe_lock);
	for (i = n - 1; i >= 0; i--) {
		l = layers[i];
		/*
		 * The grouped function entries first: they only mark the
		 * reads the layer's other probes (and the layers above)
		 * start.
		 */
		iolayers_fentry_group_attach(l);
		for (k = l->nr_probes - 1; k >= 0; k--) {
			p = &l->probes[k];
			if (p->state == IOLAYERS_PROBE_ATTACHED ||
			    (p->kind == IOLAYERS_FENTRY && p->grouped))
				continue;	/* a module's, or the group's, attached above */
			if (p->kind == IOLAYERS_FENTRY)
				iolayers_fentry_attach(p);
			else if (p->kind == IOLAYERS_KRETPROBE)
				iolayers_kretprobe_attach(p);
			else
				iolayers_tp_attach_core(p);
		}
		if (l->start)
			l->start();
	}
	for (p = iolayers_probe_next(&li, NULL); p; p = iolayers_probe_next(&li, p))
		if (p->kind == IOLAYERS_TRACEPOINT && p->state == IOLAYERS_PROBE_DETACHED)
			iolayers_probe_missing(p, 0);
	mutex_unlock(&iolayers_probe_lock);
}

/**
 * iolayers_probes_detach() - Detach everything iolayers_probes_attach()
 *	attached, layers in their order, and wait until no probe runs.
 *
 * Context: process context, may sleep.
 */
void iolayers_probes_detach(void)
{
	struct iolayers_layer_probes *l;
	struct iolayers_probe *p;
	unsigned int i;

	if (iolayers_notifier_on)
		unregister_tracepoint_module_notifier(&iolayers_tp_module_nb);
	mutex_lock(&iolayers_probe_lock);
	for (i = 0; i < iolayers_nr_layers; i++) {
		l = iolayers_layers[i];
		if (l->stop)
			l->stop();
		iolayers_fentry_group_detach(l);
		for (p = l->probes; p < l->probes + l->nr_probes; p++)
			iolayers_probe_detach(p);
	}
	mutex_unlock(&iolayers_probe_lock);
	/* No probe may still run when the module text and data go away. */
	tracepoint_synchronize_unregister();
}

/**
 * iolayers_layer_attached() - Is any probe point of a layer attached?
 * @layer: the layer
 *
 * Context: any; the answer may change when a module comes or goes.
 * Return: true when at least one of its probes fires.
 */
bool iolayers_layer_attached(const struct iolayers_layer_probes *layer)
{
	unsigned int i;

	for (i = 0; i < layer->nr_probes; i++)
		if (READ_ONCE(layer->probes[i].state) == IOLAYERS_PROBE_ATTACHED)
			return true;
	return false;
}

/**
 * iolayers_probes_reset() - Zero every probe's counters (`reset`).
 *
 * Context: process context; counts racing with it may survive.
 */
void iolayers_probes_reset(void)
{
	struct iolayers_probe *p;
	unsigned int li;
	int cpu;

	atomic_long_set(&iolayers_fentry_unmatched, 0);
	for (p = iolayers_probe_next(&li, NULL); p; p = iolayers_probe_next(&li, p)) {
		atomic_long_set(&p->missed, 0);
		if (p->kind == IOLAYERS_KRETPROBE)
			((struct kretprobe *)p->func)->nmissed = 0;
		for_each_possible_cpu(cpu)
			memset(per_cpu_ptr(p->pcpu, cpu), 0, sizeof(struct iolayers_probe_pcpu));
	}
}

/**
 * iolayers_probes_show_layers() - The `layers` file: every probe point,
 *	its layer, kind and state.
 * @m: the seq_file
 *
 * Context: process context.
 */
void iolayers_probes_show_layers(struct seq_file *m)
{
	struct iolayers_probe *p;
	unsigned int li;

	seq_printf(m, "%-28s %-8s %-11s %s\n", "probe", "layer", "kind", "state");
	mutex_lock(&iolayers_probe_lock);
	for (p = iolayers_probe_next(&li, NULL); p; p = iolayers_probe_next(&li, p)) {
		seq_printf(m, "%-28s %-8s %-11s %s", p->name, p->layer, iolayers_kind_name(p->kind),
			   iolayers_state_name(p->state));
		if (p->state == IOLAYERS_PROBE_FAILED || p->err)
			seq_printf(m, ": %d", p->err);
		seq_putc(m, '\n');
	}
	mutex_unlock(&iolayers_probe_lock);
}

/**
 * iolayers_probes_show_stats() - The probe part of `stats`: hits, refused
 *	entries and handler self-accounting per probe point, then the clock's
 *	cost.
 * @m: the seq_file
 *
 * Context: process context; the per-CPU sums are not atomic with respect
 * to running probes.
 */
void iolayers_probes_show_stats(struct seq_file *m)
{
	struct iolayers_probe *p;
	unsigned int li;

	seq_printf(m, "%-28s %12s %10s %12s %10s %14s %8s\n", "probe", "hits", "nmissed",
		   "calls", "timed", "timed_ns", "avg_ns");
	for (p = iolayers_probe_next(&li, NULL); p; p = iolayers_probe_next(&li, p)) {
		u64 hits = 0, calls = 0, timed = 0, ns = 0;
		int cpu;

		for_each_possible_cpu(cpu) {
			const struct iolayers_probe_pcpu *c = per_cpu_ptr(p->pcpu, cpu);

			hits += READ_ONCE(c->hits);
			calls += READ_ONCE(c->calls);
			timed += READ_ONCE(c->timed);
			ns += READ_ONCE(c->ns);
		}
		seq_printf(m, "%-28s %12llu ", p->name, hits);
		/* Function entries refused by the recursion guard. */
		if (p->kind == IOLAYERS_FENTRY)
			seq_printf(m, "%10lu", atomic_long_read(&p->missed));
		else if (p->kind == IOLAYERS_KRETPROBE)
			seq_printf(m, "%10d", ((struct kretprobe *)p->func)->nmissed);
		else
			seq_printf(m, "%10s", "-");
		/* Self-accounting: handler runs, and the sampled mean time. */
		seq_printf(m, " %12llu %10llu %14llu ", calls, timed, ns);
		if (timed)
			seq_printf(m, "%8llu\n", div64_u64(ns, timed));
		else
			seq_printf(m, "%8s\n", "-");
	}
}

/**
 * iolayers_clock_cost_ns() - What one local_clock() read costs here.
 *
 * Measured at load: each timed handler run includes about one.
 *
 * Return: nanoseconds.
 */
u64 iolayers_clock_cost_ns(void)
{
	return iolayers_clock_ns;
}
