/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stream of completed reads (stream.c): every record in the kernel's
 * ring buffer, shown by `flows` and `slow` and consumed from
 * stream/events.
 */
#ifndef _IOLAYERS_STREAM_H
#define _IOLAYERS_STREAM_H

#include <linux/types.h>

struct dentry;
struct seq_file;
struct iolayers_flow_rec;
struct iolayers_task_flow;

/* What a ring buffer event holds: its first u32. */
#define IOLAYERS_EV_READ	1	/* struct iolayers_flow_rec */
#define IOLAYERS_EV_LOST	2	/* struct iolayers_ev_lost */

/**
 * struct iolayers_ev_lost - Records a CPU could not write to the stream.
 * @kind: IOLAYERS_EV_LOST
 * @wseq: the stream's records written on the CPU that writes it, before
 *	it: each record's number in its CPU's buffer (a read's too, struct
 *	iolayers_flow_rec), so that the reader can tell a record the ring
 *	buffer lost without saying so
 * @end_ns: when the first of them was lost (for the order of the stream)
 * @count: how many
 * @cpu: the CPU that lost them
 *
 * Written on that CPU's next successful write, so the stream says where
 * the loss was.
 */
struct iolayers_ev_lost {
	u32 kind;
	u32 wseq;
	u64 end_ns;
	u64 count;
	u32 cpu;
};

/* Longest line of `flows`, `slow` and stream/events, with its newline. */
#define IOLAYERS_FLOW_LINE_MAX	768

int iolayers_flow_format(char *buf, size_t size, const struct iolayers_flow_rec *r);

void iolayers_stream_store(const struct iolayers_task_flow *f, long ret, u64 now, int cache);
struct iolayers_flow_rec *iolayers_stream_snapshot(bool slow, unsigned int *n);
void iolayers_stream_show_stats(struct seq_file *m);
size_t iolayers_stream_bytes(void);
void iolayers_stream_debugfs(struct dentry *dir);
int iolayers_stream_init(void);
void iolayers_stream_exit(void);
void iolayers_stream_reset(void);

extern unsigned int iolayers_flows_kept;
extern unsigned int iolayers_buffer_kb;
extern u64 iolayers_slow_ns;

#endif /* _IOLAYERS_STREAM_H */
