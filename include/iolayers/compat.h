/* SPDX-License-Identifier: GPL-2.0 */
/* The only place with kernel-version conditionals. */
#ifndef _IOLAYERS_COMPAT_H
#define _IOLAYERS_COMPAT_H

#include <linux/version.h>

/*
 * The cleanup attribute: <linux/compiler_attributes.h> names it __cleanup
 * from 6.5 on; older kernels have the compiler feature but not the name.
 */
#ifndef __cleanup
#define __cleanup(func) __attribute__((__cleanup__(func)))
#endif

/**
 * iolayers_fregs_arg() - Argument @n of the function an ftrace callback
 *	entered.
 * @fregs: the callback's struct ftrace_regs (x86-64: argument registers
 *	saved, DYNAMIC_FTRACE_WITH_ARGS)
 * @n: 0 for the first argument
 *
 * ftrace_regs_get_argument() came in 6.2 with the ftrace_regs accessors
 * ("ftrace: abstract DYNAMIC_FTRACE_WITH_ARGS accesses"); 6.1's x86
 * struct ftrace_regs is a struct pt_regs and has no accessor yet.
 */
#ifdef ftrace_regs_get_argument
#define iolayers_fregs_arg(fregs, n) ftrace_regs_get_argument(fregs, n)
#else
#define iolayers_fregs_arg(fregs, n) regs_get_kernel_argument(&(fregs)->regs, n)
#endif

#endif /* _IOLAYERS_COMPAT_H */
