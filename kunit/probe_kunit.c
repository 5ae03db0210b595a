// SPDX-License-Identifier: GPL-2.0
/* KUnit: which modules' tracepoints the probes attach to (module/probe.c). */

#include <kunit/test.h>
#include <linux/module.h>
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

static struct kunit_case iolayers_probe_cases[] = {
	KUNIT_CASE(iolayers_probe_test_owner_in_tree),
	{}
};

static struct kunit_suite iolayers_probe_suite = {
	.name = "iolayers_probe",
	.test_cases = iolayers_probe_cases,
};

kunit_test_suite(iolayers_probe_suite);
