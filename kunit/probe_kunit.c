// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: which modules' tracepoints the probes attach to, how a group's
 * callback finds its function entry, and the function entries' recursion
 * guard (module/probe.c).
 */

#include <kunit/test.h>
#include <linux/bottom_half.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <iolayers/flow.h>
#include <iolayers/probe.h>

static void iolayers_probe_test_owner_in_tree(struct kunit *test)
{
	struct module *mod = kunit_kzalloc(test, sizeof(*mod), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, mod);
	KUNIT_EXPECT_TRUE(test, iolayers_tp_owner_in_tree(mod));
	mod->taints = 1UL << TAINT_OOT_MODULE;
	KUNIT_EXPECT_FALSE(test, iolayers_tp_owner_in_tree(mod));
	mod->taints = 1UL << TAINT_UNSIGNED_MODULE;
	KUNIT_EXPECT_TRUE(test, iolayers_tp_owner_in_tree(mod));
	/* This test module is built out of the tree, as any other would be. */
	KUNIT_EXPECT_FALSE(test, iolayers_tp_owner_in_tree(THIS_MODULE));
}

/*
 * A module refused as out of the tree leaves: its tracepoint is missing
 * again (it stayed "unverified", naming a module gone, until the next
 * load), and another module's removal changes nothing.
 */
static void iolayers_probe_test_owner_going(struct kunit *test)
{
	struct module *mod = kunit_kzalloc(test, sizeof(*mod), GFP_KERNEL);
	struct module *other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	struct iolayers_probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, mod);
	KUNIT_ASSERT_NOT_NULL(test, other);
	KUNIT_ASSERT_NOT_NULL(test, p);
	p->name = "nvme_setup_cmd";
	p->kind = IOLAYERS_TRACEPOINT;
	p->state = IOLAYERS_PROBE_MISSING;
	/* What the module notifier does for an out-of-tree module's. */
	iolayers_tp_set_unverified(p, mod);
	KUNIT_EXPECT_EQ(test, p->state, IOLAYERS_PROBE_UNVERIFIED);
	iolayers_tp_owner_going(p, other);
	KUNIT_EXPECT_EQ(test, p->state, IOLAYERS_PROBE_UNVERIFIED);
	KUNIT_EXPECT_PTR_EQ(test, p->owner, (const struct module *)mod);
	iolayers_tp_owner_going(p, mod);
	KUNIT_EXPECT_EQ(test, p->state, IOLAYERS_PROBE_MISSING);
	KUNIT_EXPECT_NULL(test, p->owner);
	/* Missing, with no owner: the next removal leaves it alone. */
	iolayers_tp_owner_going(p, mod);
	KUNIT_EXPECT_EQ(test, p->state, IOLAYERS_PROBE_MISSING);
}

/*
 * A group's callback finds its entry by the address ftrace hands it: the
 * function's ftrace site, the kprobe lookup's address on x86, up to 8
 * bytes past it on arm64 (a BTI landing pad, a NOP). Nothing below an
 * entry's address or 16 bytes past it is that entry's, and no address
 * within 16 bytes of one in the group may join it (two names of one
 * site, or two functions that close, would be ambiguous).
 */
static void iolayers_probe_test_fentry_slots(struct kunit *test)
{
	struct iolayers_probe a = { .name = "a" }, b = { .name = "b" };
	const struct iolayers_fentry_slot slot[] = {
		{ .ip = 0x1000, .probe = &a },
		{ .ip = 0x1040, .probe = &b },
	};
	const unsigned long hits[] = { 0x1000, 0x1004, 0x1008, 0x100f };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hits); i++) {
		KUNIT_EXPECT_PTR_EQ(test, iolayers_fentry_slot_of(slot, 2, hits[i]), &slot[0]);
		KUNIT_EXPECT_PTR_EQ(test, iolayers_fentry_slot_of(slot, 2, hits[i] + 0x40),
				    &slot[1]);
	}
	KUNIT_EXPECT_NULL(test, iolayers_fentry_slot_of(slot, 2, 0x1010));
	KUNIT_EXPECT_NULL(test, iolayers_fentry_slot_of(slot, 2, 0xfff));
	KUNIT_EXPECT_NULL(test, iolayers_fentry_slot_of(slot, 2, 0x103f));
	KUNIT_EXPECT_NULL(test, iolayers_fentry_slot_of(slot, 2, 0x1050));
	KUNIT_EXPECT_NULL(test, iolayers_fentry_slot_of(slot, 0, 0x1000));
	/* Joining: clear of both windows, or refused. */
	KUNIT_EXPECT_TRUE(test, iolayers_fentry_slot_clear(slot, 2, 0x1020));
	KUNIT_EXPECT_TRUE(test, iolayers_fentry_slot_clear(slot, 2, 0x1010));
	KUNIT_EXPECT_TRUE(test, iolayers_fentry_slot_clear(slot, 2, 0x1030));
	KUNIT_EXPECT_TRUE(test, iolayers_fentry_slot_clear(slot, 2, 0xff0));
	KUNIT_EXPECT_FALSE(test, iolayers_fentry_slot_clear(slot, 2, 0x1000));
	KUNIT_EXPECT_FALSE(test, iolayers_fentry_slot_clear(slot, 2, 0x100f));
	KUNIT_EXPECT_FALSE(test, iolayers_fentry_slot_clear(slot, 2, 0xff1));
	KUNIT_EXPECT_FALSE(test, iolayers_fentry_slot_clear(slot, 2, 0x1031));
	KUNIT_EXPECT_TRUE(test, iolayers_fentry_slot_clear(slot, 0, 0x1000));
}

/*
 * The function entries' recursion guard (iolayers_fentry_run()): a
 * callback whose handler enters the traced function again.
 */
static DEFINE_PER_CPU(struct iolayers_probe_pcpu, iolayers_test_guard_pc);
static struct iolayers_probe iolayers_test_guard_probe = {
	.name = "guard", .kind = IOLAYERS_FENTRY, .missed_layer = IOLAYERS_MISSED_FS,
};

static int iolayers_test_guard_runs;

static void iolayers_test_guard_cb(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *op, struct iolayers_fregs *fregs);

static void iolayers_test_guard_handler(struct iolayers_fregs *fregs,
					struct iolayers_probe_pcpu __percpu *pcpu)
{
	iolayers_test_guard_runs++;
	iolayers_test_guard_cb(0, 0, &iolayers_test_guard_probe.ops, fregs);
}

IOLAYERS_DEFINE_FENTRY(iolayers_test_guard_cb, iolayers_test_guard_pc,
		       iolayers_test_guard_handler)

/*
 * The nested entry is refused: the handler ran once, the refusal is the
 * probe's nmissed and the test thread's read lost the probe's layer (with
 * bottom halves disabled too: still the task's own read); the CPU's flag
 * is clear afterwards and the preempt count as it was.
 */
static void iolayers_probe_test_guard(struct kunit *test)
{
	struct iolayers_probe *p = &iolayers_test_guard_probe;
	struct iolayers_task_flow *f;
	int pc = preempt_count();
	int cpu;

	rcu_read_lock();
	f = iolayers_flow_start(current->pid);
	if (!f) {
		rcu_read_unlock();
		kunit_skip(test, "no task entry (table full)");
	}
	atomic_long_set(&p->missed, 0);
	iolayers_test_guard_runs = 0;
	iolayers_test_guard_cb(0, 0, &p->ops, NULL);
	KUNIT_EXPECT_EQ(test, iolayers_test_guard_runs, 1);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&p->missed), 1L);
	KUNIT_EXPECT_EQ(test, f->rd.missed, (u8)IOLAYERS_MISSED_FS);
	KUNIT_EXPECT_EQ(test, preempt_count(), pc);
	for_each_possible_cpu(cpu)
		KUNIT_EXPECT_FALSE(test, per_cpu(iolayers_fentry_busy, cpu));
	f->rd.missed = 0;
	local_bh_disable();
	iolayers_test_guard_cb(0, 0, &p->ops, NULL);
	local_bh_enable();
	KUNIT_EXPECT_EQ(test, iolayers_test_guard_runs, 2);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&p->missed), 2L);
	KUNIT_EXPECT_EQ(test, f->rd.missed, (u8)IOLAYERS_MISSED_FS);
	iolayers_flow_finish(f, 0);
	rcu_read_unlock();
	iolayers_flow_exit(current->pid);
}

static struct kunit_case iolayers_probe_cases[] = {
	KUNIT_CASE(iolayers_probe_test_owner_in_tree),
	KUNIT_CASE(iolayers_probe_test_owner_going),
	KUNIT_CASE(iolayers_probe_test_fentry_slots),
	KUNIT_CASE(iolayers_probe_test_guard),
	{}
};

static struct kunit_suite iolayers_probe_suite = {
	.name = "iolayers_probe",
	.test_cases = iolayers_probe_cases,
};

kunit_test_suite(iolayers_probe_suite);
