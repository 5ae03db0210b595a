// SPDX-License-Identifier: GPL-2.0
/*
 * Feature test (Kbuild) of the feature tests: compiles on every kernel.
 * Where it does not, the tests' compiler or flags are wrong and every
 * other test's "not in this kernel" would be false: the build stops.
 */
#include <linux/module.h>

int iolayers_conftest(void);

/**
 * iolayers_conftest() - Compiles with <linux/module.h>, without a warning.
 *
 * Return: 0.
 */
int iolayers_conftest(void)
{
	return 0;
}
