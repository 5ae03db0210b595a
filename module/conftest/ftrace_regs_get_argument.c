// SPDX-License-Identifier: GPL-2.0
/*
 * Feature test (Kbuild): ftrace_regs_get_argument(), the accessor of an
 * ftrace callback's argument registers. It came with "ftrace: abstract
 * DYNAMIC_FTRACE_WITH_ARGS accesses" (v6.2, commit 94d095ffa0e1); x86
 * defines it as a macro, arm64 as an inline function (so `#ifdef` is no
 * test), and kernels before it (6.1, or an architecture without
 * DYNAMIC_FTRACE_WITH_ARGS) wrap a struct pt_regs in struct ftrace_regs.
 */
#include <linux/ftrace.h>

unsigned long iolayers_conftest(struct ftrace_regs *fregs);

/**
 * iolayers_conftest() - Uses ftrace_regs_get_argument().
 * @fregs: an ftrace callback's registers
 *
 * Return: the first argument.
 */
unsigned long iolayers_conftest(struct ftrace_regs *fregs)
{
	return ftrace_regs_get_argument(fregs, 0);
}
