// SPDX-License-Identifier: GPL-2.0
/*
 * The KUnit test module: one file of suites per file under test, beside
 * this one. The functions tested are the module's own (iolayers.ko, loaded
 * first): static there, exported to this module only where the kernel has
 * KUnit (VISIBLE_IF_KUNIT, include/iolayers/compat.h).
 */

#include <linux/module.h>
#include <iolayers/compat.h>

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for iolayers");
IOLAYERS_IMPORT_KUNIT_NS();
