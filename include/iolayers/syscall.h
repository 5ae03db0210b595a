/* SPDX-License-Identifier: GPL-2.0 */
/* The SYSCALL layer's names for the read family (layers/syscall.c). */
#ifndef _IOLAYERS_SYSCALL_H
#define _IOLAYERS_SYSCALL_H

#include <linux/types.h>

int iolayers_syscall_index(int nr);
u64 iolayers_recvmmsg_calls(void);
void iolayers_recvmmsg_reset(void);

#endif /* _IOLAYERS_SYSCALL_H */
