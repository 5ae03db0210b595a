/* SPDX-License-Identifier: GPL-2.0 */
/* The only place with kernel-version conditionals. */
#ifndef _IOLAYERS_COMPAT_H
#define _IOLAYERS_COMPAT_H

#include <linux/version.h>

/*
 * Functions only KUnit tests call from outside their file: static in the
 * module, exported to the test module where the kernel has KUnit. The
 * kernel's <kunit/visibility.h> (6.2, backported to 6.1.y) is used where
 * it exists; older kernels (and Debian's, without KUnit) get the static.
 */
#if IS_ENABLED(CONFIG_KUNIT)
#include <kunit/visibility.h>
#endif
#ifndef VISIBLE_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(symbol)
#define VISIBLE_IF_KUNIT static
#endif

/*
 * What MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING) says, written so on
 * every kernel: its argument became a string literal in 6.13.
 */
#define IOLAYERS_IMPORT_KUNIT_NS() MODULE_INFO(import_ns, "EXPORTED_FOR_KUNIT_TESTING")

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

/*
 * Commit a ring buffer reservation: ring_buffer_unlock_commit() lost its
 * unused event argument in 6.2 ("ring_buffer: Remove unused "event"
 * parameter", Song Chen).
 * IOLAYERS_KERNEL_RANGE: < 6.2 two arguments, >= 6.2 one.
 */
#if KERNEL_VERSION(6, 2, 0) > LINUX_VERSION_CODE
#define iolayers_rb_commit(buf, ev) ring_buffer_unlock_commit(buf, ev)
#else
#define iolayers_rb_commit(buf, ev) ring_buffer_unlock_commit(buf)
#endif

/*
 * The low bits of a folio's mapping that say it is not an address_space
 * (anon, movable): PAGE_MAPPING_FLAGS up to 6.12 at least, renamed
 * FOLIO_MAPPING_FLAGS ("mm: rename PAGE_MAPPING_* to FOLIO_MAPPING_*",
 * David Hildenbrand; 7.2's headers have only the new name). Tested on the
 * name, not a version.
 */
#ifdef FOLIO_MAPPING_FLAGS
#define IOLAYERS_MAPPING_FLAGS FOLIO_MAPPING_FLAGS
#else
#define IOLAYERS_MAPPING_FLAGS PAGE_MAPPING_FLAGS
#endif

#endif /* _IOLAYERS_COMPAT_H */
