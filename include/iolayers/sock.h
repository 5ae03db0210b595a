/* SPDX-License-Identifier: GPL-2.0 */
/* The state of a socket read: READY, WAITED, EMPTY (or UNK, other). */
#ifndef _IOLAYERS_SOCK_H
#define _IOLAYERS_SOCK_H

#include <uapi/iolayers.h>

#include <linux/types.h>
#include <iolayers/table.h>

struct iolayers_task_flow;
struct seq_file;

/**
 * struct iolayers_sockent - A TCP socket that followed reads are from.
 * @e: table entry, keyed by the socket's address (never dereferenced)
 *
 * Added at the read, removed when the socket closes (TCP_CLOSE): its
 * segments in the receive path are the followed ones'.
 */
struct iolayers_sockent {
	struct iolayers_entry e;
};

void iolayers_rcv_show(struct seq_file *m);
void iolayers_rcv_reset(void);

enum iolayers_cache iolayers_sock_state(const struct iolayers_task_flow *f, long ret);

#endif /* _IOLAYERS_SOCK_H */
