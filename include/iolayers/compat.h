/* SPDX-License-Identifier: GPL-2.0 */
/* The only place with kernel-version conditionals. */
#ifndef _IOLAYERS_COMPAT_H
#define _IOLAYERS_COMPAT_H

#include <linux/version.h>

/**
 * IOLAYERS_KERNEL_RANGE() - Is the running kernel in [lo, hi)?
 * @lo: first version included, as KERNEL_VERSION(a, b, c)
 * @hi: first version excluded
 */
#define IOLAYERS_KERNEL_RANGE(lo, hi) \
	(LINUX_VERSION_CODE >= (lo) && LINUX_VERSION_CODE < (hi))

/*
 * The cleanup attribute: <linux/compiler_attributes.h> names it __cleanup
 * from 6.5 on; older kernels have the compiler feature but not the name.
 */
#ifndef __cleanup
#define __cleanup(func) __attribute__((__cleanup__(func)))
#endif

#endif /* _IOLAYERS_COMPAT_H */
