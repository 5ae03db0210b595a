/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe registry's interface: a layer declares its probe points as a
 * table, the registry attaches, detaches, counts and shows them.
 */
#ifndef _IOLAYERS_PROBE_H
#define _IOLAYERS_PROBE_H

#include <linux/atomic.h>
#include <linux/ftrace.h>
#include <linux/jump_label.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/types.h>
#include <iolayers/compat.h>

struct iolayers_fentry_group;
struct module;
struct seq_file;
struct tracepoint;

/**
 * enum iolayers_probe_kind - How a probe point is attached.
 * @IOLAYERS_TRACEPOINT: a tracepoint, found by name in the core kernel or
 *	in a module (also one loaded later)
 * @IOLAYERS_FENTRY: a function's entry, through an ftrace callback
 * @IOLAYERS_KRETPROBE: a function's entry and return, through a kretprobe
 *	(where a time inside the function is the measure: the receive path)
 */
enum iolayers_probe_kind {
	IOLAYERS_TRACEPOINT,
	IOLAYERS_FENTRY,
	IOLAYERS_KRETPROBE,
};

/**
 * enum iolayers_probe_state - What happened when a probe was attached.
 * @IOLAYERS_PROBE_DETACHED: not (yet) attached
 * @IOLAYERS_PROBE_ATTACHED: attached and firing
 * @IOLAYERS_PROBE_MISSING: the probe point does not exist on this kernel
 *	(or, for a tracepoint, in any module loaded so far)
 * @IOLAYERS_PROBE_FAILED: registration failed; see &iolayers_probe.err
 * @IOLAYERS_PROBE_UNVERIFIED: not attached: its prototype is private to
 *	a driver and was not checked for this kernel (compat.h)
 */
enum iolayers_probe_state {
	IOLAYERS_PROBE_DETACHED,
	IOLAYERS_PROBE_ATTACHED,
	IOLAYERS_PROBE_MISSING,
	IOLAYERS_PROBE_FAILED,
	IOLAYERS_PROBE_UNVERIFIED,
};

/**
 * struct iolayers_probe_pcpu - One probe's counters on one CPU.
 * @hits: events that belonged to a followed read (the `hits` column)
 * @calls: handler runs, followed or not
 * @timed: the runs that were timed, one in %IOLAYERS_COST_EVERY
 * @ns: their total time (local_clock(), so it includes one clock read)
 *
 * Each probe point has its own per-CPU instance, defined beside its
 * handler with IOLAYERS_PROBE_COUNTERS(), so that counting is one
 * instruction on a constant address. @calls..@ns are the self-accounting:
 * what a user pays per event inside our code; the mechanism's own cost
 * (trampoline or tracepoint call) is outside it (see ``empty=1``).
 */
struct iolayers_probe_pcpu {
	u64 hits;
	u64 calls;
	u64 timed;
	u64 ns;
};

/**
 * IOLAYERS_PROBE_COUNTERS() - Define a probe point's per-CPU counters.
 * @name: the counters' name, given to the table line and the handler
 */
#define IOLAYERS_PROBE_COUNTERS(name) \
	static DEFINE_PER_CPU(struct iolayers_probe_pcpu, name)

/**
 * struct iolayers_probe - One probe point: its declaration and its state.
 * @name: tracepoint name, or the traced function's symbol
 * @kind: how it is attached
 * @func: a tracepoint's probe function (with the tracepoint's prototype),
 *	a function entry's ftrace callback (IOLAYERS_DEFINE_FENTRY()), or a
 *	kretprobe's struct kretprobe (its handlers set, its symbol not)
 * @pcpu: its counters (IOLAYERS_PROBE_COUNTERS())
 * @optional: the layer works without it (another probe point covers the
 *	same calls, or it is absent on some kernels): missing is no warning
 * @unverified: a tracepoint whose prototype is not known for this kernel
 *	(declared in a driver's private header), or a kretprobe on a kernel
 *	where ours are not verified (IOLAYERS_KRETPROBE_UNSAFE): never
 *	attached
 * @missed_layer: for function entries, the IOLAYERS_MISSED_* bit (flow.h)
 *	a refused entry sets in the read in flight: what the read lost
 * @grouped: a function entry that shares one ftrace_ops with its layer's
 *	other grouped ones (&iolayers_layer_probes.group): a module with
 *	ftrace_ops of its own waits for an RCU-tasks grace period (a tenth
 *	of a second or more) at each one's unregistration, so rmmod took
 *	2.7 s under TCG with 20 of them; a group's callback finds the
 *	probe by the traced function's address, a few instructions more per
 *	call: for the functions a typical read does not meet
 * @layer: name of the layer it belongs to, set by the registry
 * @state: attachment state
 * @err: errno of a failed registration, 0 otherwise
 * @tp: for tracepoints, the tracepoint attached to
 * @owner: for tracepoints that live in a module, that module, attached to
 *	or refused as out of the tree (never dereferenced; compared at the
 *	module's removal)
 * @ops: for function entries not @grouped, the ftrace_ops
 * @missed: for function entries, callbacks refused by their recursion
 *	guard (iolayers_fentry_run(); shown as nmissed; a kretprobe's are its
 *	own nmissed)
 *
 * A layer writes the first eight members, through IOLAYERS_TRACEPOINT()
 * or IOLAYERS_FENTRY(); the rest belongs to the registry.
 */
struct iolayers_probe {
	const char *name;
	enum iolayers_probe_kind kind;
	void *func;
	struct iolayers_probe_pcpu __percpu *pcpu;
	bool optional;
	bool unverified;
	u8 missed_layer;
	bool grouped;
	const char *layer;
	enum iolayers_probe_state state;
	int err;
	struct tracepoint *tp;
	const struct module *owner;
	struct ftrace_ops ops;
	atomic_long_t missed;
};

/**
 * IOLAYERS_TRACEPOINT() - A table line: a tracepoint probe point.
 * @tp_name: the tracepoint's name
 * @probe: its probe function (void *data, then the tracepoint's arguments)
 * @counters: its counters (IOLAYERS_PROBE_COUNTERS())
 * @...: more initialisers, e.g. ``.optional = true``
 */
#define IOLAYERS_TRACEPOINT(tp_name, probe, counters, ...)			\
	{ .name = tp_name, .kind = IOLAYERS_TRACEPOINT, .func = probe,		\
	  .pcpu = &(counters), ##__VA_ARGS__ }

/**
 * IOLAYERS_FENTRY() - A table line: a function entry probe point.
 * @fn_name: the traced function's symbol
 * @callback: its callback, defined with IOLAYERS_DEFINE_FENTRY()
 * @counters: its counters (IOLAYERS_PROBE_COUNTERS())
 * @...: more initialisers, e.g. ``.optional = true``
 */
#define IOLAYERS_FENTRY(fn_name, callback, counters, ...)			\
	{ .name = fn_name, .kind = IOLAYERS_FENTRY, .func = callback,		\
	  .pcpu = &(counters), ##__VA_ARGS__ }

/**
 * IOLAYERS_KRETPROBE() - A table line: a function entry and return probe.
 * @fn_name: the traced function's symbol
 * @krp: its struct kretprobe, with entry_handler, handler and data_size
 * @counters: its counters (IOLAYERS_PROBE_COUNTERS())
 * @...: more initialisers, e.g. ``.optional = true``
 */
#define IOLAYERS_KRETPROBE(fn_name, krp, counters, ...)				\
	{ .name = fn_name, .kind = IOLAYERS_KRETPROBE, .func = krp,		\
	  .pcpu = &(counters), ##__VA_ARGS__ }

/**
 * struct iolayers_layer_probes - A layer's probe points, handed to the registry.
 * @name: as shown in `layers` (SYSCALL, VFS, FS, CACHE, BLOCK, DEVICE,
 *	FILTER)
 * @probes: its table, in the order a read meets them; attached from the
 *	last to the first (a probe that starts something attaches after the
 *	ones that see it through), detached in table order
 * @nr_probes: entries in @probes
 * @start: optional, run once its probes are attached (e.g. a timer)
 * @stop: optional, run before its probes are detached
 * @group: the registry's: the one ftrace_ops of its grouped function
 *	entries, while attached (NULL otherwise)
 */
struct iolayers_layer_probes {
	const char *name;
	struct iolayers_probe *probes;
	unsigned int nr_probes;
	void (*start)(void);
	void (*stop)(void);
	struct iolayers_fentry_group *group;
};

extern bool iolayers_empty;
extern bool iolayers_sockets;
extern bool iolayers_rcv;
extern bool iolayers_faults;
extern bool iolayers_cost;
DECLARE_STATIC_KEY_FALSE(iolayers_cost_key);

/* One handler run in this many is timed, per CPU and probe. */
#define IOLAYERS_COST_EVERY	64

/**
 * struct iolayers_cost_scope - A handler run being accounted.
 * @pcpu: its probe's counters
 * @t0: local_clock() at its start if this run is timed, else 0
 */
struct iolayers_cost_scope {
	struct iolayers_probe_pcpu __percpu *pcpu;
	u64 t0;
};

/**
 * iolayers_cost_begin() - Count a handler run; start timing one in
 * %IOLAYERS_COST_EVERY.
 * @pcpu: the probe's counters
 *
 * Nothing is counted with empty=1 (the floor), nor unless loaded with
 * cost=1: a patched-out jump then, not a load and a test, since the
 * syscall tracepoints' handlers run for every syscall of every task.
 *
 * Context: any; preemptible callers may migrate, the sums stay right.
 * Return: the scope to hand to iolayers_cost_end().
 */
static __always_inline struct iolayers_cost_scope
iolayers_cost_begin(struct iolayers_probe_pcpu __percpu *pcpu)
{
	struct iolayers_cost_scope s = { .pcpu = pcpu };

	if (static_branch_unlikely(&iolayers_cost_key) && !READ_ONCE(iolayers_empty) &&
	    !(this_cpu_inc_return(pcpu->calls) % IOLAYERS_COST_EVERY))
		s.t0 = local_clock();
	return s;
}

/**
 * iolayers_cost_end() - Add a timed handler run's time.
 * @s: the scope from iolayers_cost_begin()
 */
static __always_inline void iolayers_cost_end(struct iolayers_cost_scope *s)
{
	if (s->t0) {
		this_cpu_add(s->pcpu->ns, local_clock() - s->t0);
		this_cpu_inc(s->pcpu->timed);
	}
}

/**
 * IOLAYERS_COST_SCOPE() - Account the rest of this handler to a probe.
 * @pcpu: the probe's counters, e.g. ``&iolayers_pc_sys_enter``
 *
 * The first declaration of a handler: the run is counted here and, when
 * timed, its time is added at whichever return the handler takes.
 */
#define IOLAYERS_COST_SCOPE(pcpu)					\
	struct iolayers_cost_scope __iolayers_cost __cleanup(iolayers_cost_end) = \
		iolayers_cost_begin(pcpu)

/**
 * iolayers_hit() - Count one event of a followed read on this CPU.
 * @pcpu: the probe's counters
 */
static __always_inline void iolayers_hit(struct iolayers_probe_pcpu __percpu *pcpu)
{
	this_cpu_inc(pcpu->hits);
}

void iolayers_fentry_refused(struct ftrace_ops *op, unsigned long ip);
DECLARE_PER_CPU(bool, iolayers_fentry_busy);

/**
 * iolayers_fentry_run() - The body of every function entry callback.
 * @ip: the traced function, as passed to the callback
 * @parent_ip: its caller
 * @op: the callback's ftrace_ops (its probe's or its group's, to count a
 *	refused entry)
 * @fregs: the callback's registers (the function's arguments)
 * @pcpu: the probe's counters
 * @handler: what to run (inlined: a constant at every call site)
 *
 * Nothing runs under empty=1 (the floor of the mechanism). ftrace calls
 * our callbacks directly (no FTRACE_OPS_FL_RECURSION), so the recursion
 * guard is ours: one flag per CPU, taken with preemption disabled, which
 * refuses an entry while a handler runs on that CPU (one of ours calling
 * a traced function, or an interrupt's during a handler), counted as the
 * probe's nmissed. The functions probed are entered in task context but
 * tcp_v4_destroy_sock() (rcv=1), which a softirq may run for an orphaned
 * socket: refused when that softirq interrupts a handler, it leaves the
 * socket's entry to its TCP_CLOSE event (its backstop lost). ftrace's own
 * guard, per context, cost about 24 instructions more per call (the
 * context's bit from the preempt count, a read-modify-write of the task's
 * word). @handler is an RCU read-side critical section without
 * rcu_read_lock() (one RCU flavour since 5.0, and the table's RCU list
 * walks accept a preempt-disabled reader).
 */
static __always_inline void
iolayers_fentry_run(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
		    struct iolayers_fregs *fregs, struct iolayers_probe_pcpu __percpu *pcpu,
		    void (*handler)(struct iolayers_fregs *fregs,
				    struct iolayers_probe_pcpu __percpu *pcpu))
{
	if (iolayers_empty)
		return;
	preempt_disable_notrace();
	if (unlikely(__this_cpu_read(iolayers_fentry_busy))) {
		preempt_enable_notrace();
		iolayers_fentry_refused(op, ip);
		return;
	}
	/*
	 * An interrupt between the test and the store finds it clear and
	 * leaves it clear: its handler ends before this one starts. The
	 * barriers keep the handler's work between the stores.
	 */
	__this_cpu_write(iolayers_fentry_busy, true);
	barrier();
	handler(fregs, pcpu);
	barrier();
	__this_cpu_write(iolayers_fentry_busy, false);
	preempt_enable_notrace();
}

/**
 * IOLAYERS_DEFINE_FENTRY() - Define a function entry's ftrace callback,
 *	@name, for an IOLAYERS_FENTRY() table line.
 * @name: the callback's name
 * @counters: the probe's counters (one callback per function: no lookup
 *	by address)
 * @handler: void handler(struct iolayers_fregs *, struct iolayers_probe_pcpu
 *	__percpu *)
 */
#define IOLAYERS_DEFINE_FENTRY(name, counters, handler)				\
static void notrace name(unsigned long ip, unsigned long parent_ip,		\
			 struct ftrace_ops *op, struct iolayers_fregs *fregs)	\
{										\
	iolayers_fentry_run(ip, parent_ip, op, fregs, &(counters), handler); \
}

/**
 * IOLAYERS_DEFINE_FENTRY_IF() - Define a function entry's ftrace callback,
 *	@name, whose handler acts only when @maybe() says it may have to.
 * @name: the callback's name
 * @counters: the probe's counters
 * @handler: as IOLAYERS_DEFINE_FENTRY()'s
 * @maybe: bool maybe(void), inline: false only when @handler would do
 *	nothing for current (no event lost; with cost=1 such an entry is
 *	not among the probe's calls); it runs preemptible and outside the
 *	recursion guard, so it reads per-CPU words whole and dereferences
 *	nothing but current
 *
 * For the probes of a read's own context, which every task passing their
 * function enters: a task not followed is sent back before the guard, the
 * preemption count and the handler's frame (IOLAYERS_DEFINE_FENTRY()
 * for the rest, in name##_run, a tail call).
 */
#define IOLAYERS_DEFINE_FENTRY_IF(name, counters, handler, maybe)		\
static noinline void notrace name##_run(unsigned long ip, unsigned long parent_ip, \
					struct ftrace_ops *op,			\
					struct iolayers_fregs *fregs)		\
{										\
	iolayers_fentry_run(ip, parent_ip, op, fregs, &(counters), handler); \
}										\
static void notrace name(unsigned long ip, unsigned long parent_ip,		\
			 struct ftrace_ops *op, struct iolayers_fregs *fregs)	\
{										\
	if (iolayers_empty || !(maybe)())					\
		return;								\
	name##_run(ip, parent_ip, op, fregs);					\
}

void iolayers_probes_attach(struct iolayers_layer_probes *const *layers, unsigned int n);
void iolayers_probes_detach(void);
bool iolayers_layer_attached(const struct iolayers_layer_probes *layer);
void iolayers_probes_reset(void);
void iolayers_probes_show_layers(struct seq_file *m);
void iolayers_probes_show_stats(struct seq_file *m);
u64 iolayers_clock_cost_ns(void);
u64 iolayers_fentry_unmatched_count(void);
unsigned int iolayers_fentry_grouped(void);

/**
 * struct iolayers_fentry_slot - One grouped function entry (probe.c).
 * @ip: its function's address (the kprobe lookup's)
 * @probe: its probe
 */
struct iolayers_fentry_slot {
	unsigned long ip;
	struct iolayers_probe *probe;
};

#if IS_ENABLED(CONFIG_KUNIT)
struct module;
/* Static in the module; visible to the KUnit tests (compat.h). */
bool iolayers_tp_owner_in_tree(const struct module *mod);
void iolayers_tp_set_unverified(struct iolayers_probe *p, const struct module *owner);
void iolayers_tp_owner_going(struct iolayers_probe *p, const struct module *mod);
const struct iolayers_fentry_slot *
iolayers_fentry_slot_of(const struct iolayers_fentry_slot *slot, unsigned int nr, unsigned long ip);
bool iolayers_fentry_slot_clear(const struct iolayers_fentry_slot *slot, unsigned int nr,
				unsigned long ip);
#endif

#endif /* _IOLAYERS_PROBE_H */
