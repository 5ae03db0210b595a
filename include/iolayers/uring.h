/* SPDX-License-Identifier: GPL-2.0 */
/* The URING layer's counter, for `stats` (layers/uring.c). */
#ifndef _IOLAYERS_URING_H
#define _IOLAYERS_URING_H

#include <linux/types.h>

u64 iolayers_uring_unfollowed(void);
void iolayers_uring_unfollowed_reset(void);

#endif /* _IOLAYERS_URING_H */
