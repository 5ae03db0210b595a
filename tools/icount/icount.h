/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The marker shared by the QEMU plugin and the guest helper: an 8-byte
 * NOP (nopl 0x0(%rax,%rax,1) with a 32-bit displacement) whose
 * displacement spells "IOLY". Executing it costs the guest one
 * instruction and tells the plugin to write its counters.
 */
#ifndef _IOLAYERS_ICOUNT_H
#define _IOLAYERS_ICOUNT_H

#define IOLAYERS_MARK_BYTES	0x0f, 0x1f, 0x84, 0x00, 'I', 'O', 'L', 'Y'
#define IOLAYERS_MARK_ASM	".byte 0x0f, 0x1f, 0x84, 0x00, 0x49, 0x4f, 0x4c, 0x59"

#endif /* _IOLAYERS_ICOUNT_H */
