/* SPDX-License-Identifier: GPL-2.0 */
/* The FAULT layer's counters, for `stats` (layers/fault.c). */
#ifndef _IOLAYERS_FAULT_H
#define _IOLAYERS_FAULT_H

#include <linux/types.h>

u64 iolayers_faults_no_file(void);
u64 iolayers_faults_in_reads(void);
u64 iolayers_faults_write(void);
u64 iolayers_faults_given_up(void);
void iolayers_faults_reset(void);

#endif /* _IOLAYERS_FAULT_H */
