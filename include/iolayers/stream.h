/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stream of completed reads (stream.c): every record in its CPU's
 * ring, shown by `flows` and `slow` and consumed from stream/events.
 */
#ifndef _IOLAYERS_STREAM_H
#define _IOLAYERS_STREAM_H

#include <linux/types.h>

struct dentry;
struct seq_file;
struct iolayers_flow_rec;
struct iolayers_task_flow;

/* What an entry of a CPU's ring holds: its first u16. */
#define IOLAYERS_EV_READ	1	/* struct iolayers_flow_rec */
#define IOLAYERS_EV_PAD		2	/* no record: the ring's end, skipped */

/**
 * struct iolayers_ring_hdr - What every entry of a ring starts with (a
 *	read record's first fields).
 * @kind: IOLAYERS_EV_READ or IOLAYERS_EV_PAD
 * @len: bytes the entry takes, a multiple of 8
 */
struct iolayers_ring_hdr {
	u16 kind;
	u16 len;
};

/**
 * struct iolayers_ring - One CPU's records (the stream's or the slow
 *	reads'), oldest at @tail: entries of whole records, 8-byte aligned,
 *	none wrapping (a pad fills the end a record does not fit in).
 * @data: @size bytes, NULL until the CPU first comes online
 * @size: bytes, a multiple of 8
 * @head: where the next entry goes
 * @tail: the oldest entry kept
 * @used: bytes from @tail to @head, pads included
 * @entries: records kept, not yet taken
 * @written: records written since the last reset (a read's @wseq)
 * @overwritten: of those, dropped unread for newer ones
 * @dropped: records not written: the CPU had no ring (none should be)
 * @recent: where the newest records are, by their number (@written when
 *	they were written) & @recent_mask: at least flows= of them
 * @recent_mask: @recent's entries less one, a power of two less one
 *
 * Written by that CPU with preemption off, read on that CPU by a kworker
 * with preemption off or while it is offline (stream.c); `stats` and the reader's
 * wait peek at its counts from anywhere.
 */
struct iolayers_ring {
	u8 *data;
	u32 size;
	u32 head;
	u32 tail;
	u32 used;
	unsigned long entries;
	unsigned long written;
	unsigned long overwritten;
	unsigned long dropped;
	u32 *recent;
	u32 recent_mask;
};

/*
 * A read with no bio and no request (every cached read) is recorded
 * without its BLOCK/DEVICE part: the record is that much shorter in the
 * ring (more reads kept in the same memory) and cheaper to write, and
 * whoever reads it back takes that part as zero (stream.c,
 * iolayers_rec_load()).
 */
#define IOLAYERS_REC_SHORT	ALIGN(offsetof(struct iolayers_flow_rec, blk), 8)
#define IOLAYERS_REC_FULL	ALIGN(sizeof(struct iolayers_flow_rec), 8)

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

#if IS_ENABLED(CONFIG_KUNIT)
/* Static in the module; visible to the KUnit tests (compat.h). */
void *iolayers_ring_reserve(struct iolayers_ring *rg, u32 len);
const struct iolayers_ring_hdr *iolayers_ring_pop(struct iolayers_ring *rg);
size_t iolayers_rec_put_raw(const struct iolayers_flow_rec *r, int cpu, void *buf);
#endif

extern unsigned int iolayers_flows_kept;
extern unsigned int iolayers_buffer_kb;
extern u64 iolayers_slow_ns;
extern u64 iolayers_batch_ns;

#endif /* _IOLAYERS_STREAM_H */
