/* SPDX-License-Identifier: GPL-2.0 */
/* The SYSCALL layer's names for the read family (layers/syscall.c). */
#ifndef _IOLAYERS_SYSCALL_H
#define _IOLAYERS_SYSCALL_H

int iolayers_syscall_index(int nr);

#endif /* _IOLAYERS_SYSCALL_H */
