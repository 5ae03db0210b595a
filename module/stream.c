// SPDX-License-Identifier: GPL-2.0
/*
 * Completed reads, one record each, in the kernel's own lockless per-CPU
 * ring buffer (<linux/ring_buffer.h>, the one ftrace uses), in overwrite
 * mode: the producer (sys_exit) never blocks and takes no lock a reader
 * holds; when nobody consumes, the newest records stay. `flows` and `slow`
 * copy the newest of them without consuming (as ftrace's `trace`);
 * stream/events hands each record once to one reader, in completion order
 * across CPUs (as `trace_pipe`), taking each CPU's records on that CPU
 * (iolayers_stage_fill(): the ring buffer's reader can lose records a
 * writer on another CPU commits while it swaps pages). Every record that
 * does not reach that
 * reader is counted: overwritten before it was read (the ring buffer's
 * own per-CPU overrun count, which the reader learns with the next record
 * of that CPU), or not written at all (a reservation refused, during a
 * reset); the stream has a "# lost N cpu C" line where they were.
 *
 * A hand-written ring would save little: the reservation, the time stamp
 * and the commit are what any lockless per-CPU ring pays, and this one is
 * the kernel's, with its readers, iterators and loss accounting.
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/cpu.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/kdev_t.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/ring_buffer.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <iolayers/compat.h>
#include <iolayers/disk.h>
#include <iolayers/flow.h>
#include <iolayers/hist.h>
#include <iolayers/percpu.h>
#include <iolayers/stream.h>
#include <iolayers/syscall.h>
#include <uapi/iolayers.h>

/* Records `flows` and `slow` show (the newest); 0: none kept at all. */
unsigned int iolayers_flows_kept = 256;

/*
 * A ring buffer page holds PAGE_SIZE less its header (struct
 * buffer_data_page, private to ring_buffer.c: a u64 time stamp and a
 * local_t commit word, unchanged from 5.10 to 7.2); ring_buffer_alloc()
 * takes its size in those bytes and adds a reader page per CPU.
 */
#define IOLAYERS_RB_PAGE_HDR	16
#define IOLAYERS_RB_PAGE_DATA	(PAGE_SIZE - IOLAYERS_RB_PAGE_HDR)

/* Both ring buffers per CPU, KiB (buffer_kb=). */
unsigned int iolayers_buffer_kb = 1024;
/* Reads at least this slow (syscall latency) also go to `slow`. */
u64 iolayers_slow_ns = 10 * NSEC_PER_MSEC;

/* [0]: every completed read (the stream); [1]: the slow ones. */
static struct trace_buffer *iolayers_bufs[2];

/* Reservations refused, per CPU and buffer. */
static DEFINE_PER_CPU(u64 [2], iolayers_rec_dropped);
/*
 * Those of the stream not yet said in it, per CPU whose buffer refused
 * them (from 6.13 on, where sys_exit's handlers are preemptible, a task
 * moved between the refusal and the count can put it on the CPU it moved
 * to); the next record written, on any CPU, says them first, one loss
 * record per CPU, so that a CPU gone idle or offline leaves none behind.
 * @iolayers_lost_any: some are pending (the only word the hot path reads).
 */
static DEFINE_PER_CPU(atomic64_t, iolayers_lost_pending);
static atomic_t iolayers_lost_any = ATOMIC_INIT(0);

/*
 * stream/events: open by one reader at a time; what it was given, and
 * records it took that were neither a read nor a loss (none should ever
 * be: each would be a read neither given nor lost).
 */
enum iolayers_stream_state {
	IOLAYERS_STREAM_FREE,		/* no reader */
	IOLAYERS_STREAM_OPENING,	/* one consumes what the buffers held */
	IOLAYERS_STREAM_OPEN,		/* its stream begun */
};

static atomic_t iolayers_stream_busy = ATOMIC_INIT(IOLAYERS_STREAM_FREE);
static atomic64_t iolayers_stream_unknown = ATOMIC64_INIT(0);
/* Records the ring buffer lost without saying so (in stream_lost too). */
static atomic64_t iolayers_stream_vanished = ATOMIC64_INIT(0);
/* Records written to the stream's buffer on each CPU (their wseq). */
static DEFINE_PER_CPU(u32, iolayers_wseq);
static atomic64_t iolayers_stream_delivered = ATOMIC64_INIT(0);
static atomic64_t iolayers_stream_lost = ATOMIC64_INIT(0);
/* Open, release, reset and the snapshots of `flows` against each other. */
static DEFINE_MUTEX(iolayers_stream_mutex);

/*
 * The reader sleeps with @iolayers_stream_waiting set; the producer that
 * sees it clears it and wakes the reader from an irq_work (a wake-up in
 * the producer's own context would take the wait queue's lock, which the
 * reader holds as it goes to sleep). No barrier on the producer's side:
 * the reader also looks again every tenth of a second.
 */
static bool iolayers_stream_waiting;
static DECLARE_WAIT_QUEUE_HEAD(iolayers_stream_wq);

static void iolayers_stream_wake_work(struct irq_work *w)
{
	wake_up_interruptible_all(&iolayers_stream_wq);
}

static struct irq_work iolayers_stream_iw;

/* A read's file offset: the p* calls' own, else the one its VFS or FS got. */
static s64 iolayers_read_pos(const struct iolayers_read_state *rd)
{
	if (rd->sys.pos >= 0)
		return rd->sys.pos;
	if (rd->vfs.start)
		return rd->vfs.pos;
	return rd->fs.reached ? rd->fs.pos : -1;
}

/*
 * A read with no bio and no request (every cached read) is recorded
 * without its BLOCK/DEVICE part: the record is that much shorter in the
 * buffer (more reads kept in the same memory) and cheaper to write, and
 * whoever reads it back takes that part as zero (iolayers_rec_load()).
 */
#define IOLAYERS_REC_SHORT	offsetof(struct iolayers_flow_rec, blk)

/* Zero what a record of @len bytes copied into @r did not have. */
static void iolayers_rec_pad(struct iolayers_flow_rec *r, size_t len)
{
	if (len < sizeof(*r))
		memset((char *)r + len, 0, sizeof(*r) - len);
}

/* A read record from a buffer, its BLOCK/DEVICE part zero if it had none. */
static void iolayers_rec_load(struct iolayers_flow_rec *out, struct ring_buffer_event *ev)
{
	size_t len = min_t(size_t, ring_buffer_event_length(ev), sizeof(*out));

	memcpy(out, ring_buffer_event_data(ev), len);
	iolayers_rec_pad(out, len);
}

static void iolayers_flow_fill(struct iolayers_flow_rec *r, const struct iolayers_task_flow *f,
			       long ret, u64 now, int cache, bool blk)
{
	r->kind = IOLAYERS_EV_READ;
	r->end_ns = now;
	r->seq = f->seq;
	r->tid = current->pid;
	r->tgid = current->tgid;
	memcpy(r->comm, current->comm, sizeof(r->comm));
	r->nr = f->rd.sys.nr;
	r->fd = f->rd.sys.fd;
	r->pos = iolayers_read_pos(&f->rd);
	r->ino = f->rd.file.ino;
	r->fs_dev = f->rd.file.dev;
	r->req = f->rd.sys.req;
	r->ret = ret;
	r->cache = cache;
	r->sys_ns = f->rd.sys.ns;
	r->vfs_off = f->rd.vfs.start ? f->rd.vfs.off : -1;
	r->vfs_ns = f->rd.vfs.ns;
	/* @rd.sock holds an earlier read's unless this one's SOCK entry came. */
	r->sock = f->rd.sock.start ? f->rd.sock.kind : IOLAYERS_SK_NONE;
	if (unlikely(r->sock)) {
		r->sock_off = f->rd.sock.off;
		r->tcp_off = f->rd.sock.tcp_start ? f->rd.sock.tcp_off : -1;
		r->wait_ns = f->rd.sock.waited ? max_t(u64, f->rd.sock.wait_ns, 1) : 0;
	} else {
		r->fs_off = f->rd.fs.reached ? f->rd.fs.off : -1;
		r->fs_ns = f->rd.fs.ns;
		r->ra_bytes = f->rd.cache.ra_pages << PAGE_SHIFT;
	}
	r->missed = f->rd.missed;
	if (blk)
		r->blk = f->blk;
}

/*
 * Say how many records each CPU's buffer did not write (before this one),
 * naming that CPU. What cannot be written stays pending.
 */
static void iolayers_stream_put_lost(struct trace_buffer *buf)
{
	struct iolayers_ev_lost l = { .kind = IOLAYERS_EV_LOST };
	int cpu;

	if (atomic_xchg(&iolayers_lost_any, 0) == 0)
		return;
	/* This CPU's buffer and its count of records stay together. */
	preempt_disable();
	for_each_possible_cpu(cpu) {
		atomic64_t *pending = per_cpu_ptr(&iolayers_lost_pending, cpu);

		l.count = atomic64_xchg(pending, 0);
		if (!l.count)
			continue;
		l.end_ns = ktime_get_ns();
		l.cpu = cpu;
		l.wseq = __this_cpu_read(iolayers_wseq);
		if (ring_buffer_write(buf, sizeof(l), &l)) {
			atomic64_add(l.count, pending);
			atomic_set(&iolayers_lost_any, 1);
		} else {
			__this_cpu_inc(iolayers_wseq);
		}
	}
	preempt_enable();
}

/**
 * iolayers_stream_store() - Write the record of a completed read.
 * @f: the flow, ended
 * @ret: what the syscall returned
 * @now: ktime_get_ns() at sys_exit
 * @cache: its cache state (enum iolayers_cache)
 *
 * The record is filled in place in this CPU's ring buffer page; a read at
 * least slow_us slow is also copied to the `slow` buffer.
 *
 * Context: task context (sys_exit); the ring buffer disables preemption
 * from the reservation to the commit.
 */
void iolayers_stream_store(const struct iolayers_task_flow *f, long ret, u64 now, int cache)
{
	struct trace_buffer *buf = iolayers_bufs[0];
	struct ring_buffer_event *ev;
	struct iolayers_flow_rec *r;
	size_t size;
	bool blk;

	if (!buf)
		return;
	blk = f->blk.nr_bios || f->blk.nr_rqs;
	size = blk ? sizeof(*r) : IOLAYERS_REC_SHORT;
	if (unlikely(atomic_read(&iolayers_lost_any)))
		iolayers_stream_put_lost(buf);
	ev = ring_buffer_lock_reserve(buf, size);
	if (unlikely(!ev)) {
		this_cpu_inc(iolayers_rec_dropped[0]);
		atomic64_inc(raw_cpu_ptr(&iolayers_lost_pending));
		smp_mb__after_atomic();	/* the count before the flag that says it */
		atomic_set(&iolayers_lost_any, 1);
		return;
	}
	r = ring_buffer_event_data(ev);
	iolayers_flow_fill(r, f, ret, now, cache, blk);
	/* Reserved: nothing else writes this CPU's buffer until the commit. */
	r->wseq = __this_cpu_inc_return(iolayers_wseq) - 1;
	/* Another buffer: its own recursion guard lets this write nest. */
	if (r->sys_ns >= READ_ONCE(iolayers_slow_ns) &&
	    ring_buffer_write(iolayers_bufs[1], size, r))
		this_cpu_inc(iolayers_rec_dropped[1]);
	iolayers_rb_commit(buf, ev);
	if (unlikely(READ_ONCE(iolayers_stream_waiting)) &&
	    xchg(&iolayers_stream_waiting, false))
		irq_work_queue(&iolayers_stream_iw);
}

static const char * const iolayers_syscall_names[] = IOLAYERS_SYSCALL_NAMES;

/* The layers a read lost an event of, comma-separated ("-": none). */
static int iolayers_missed_format(char *buf, size_t size, u8 missed)
{
	static const struct {
		u8 bit;
		const char *name;
	} layers[] = {
		{ IOLAYERS_MISSED_VFS, "vfs" },
		{ IOLAYERS_MISSED_FS, "fs" },
		{ IOLAYERS_MISSED_BLOCK, "block" },
		{ IOLAYERS_MISSED_SOCK, "sock" },
	};
	char sep = ' ';
	unsigned int i;
	int n = 0;

	if (!missed)
		return scnprintf(buf, size, " -");
	for (i = 0; i < ARRAY_SIZE(layers); i++) {
		if (!(missed & layers[i].bit))
			continue;
		n += scnprintf(buf + n, size - n, "%c%s", sep, layers[i].name);
		sep = ',';
	}
	return n;
}

/* " VALUE" for a signed time, or " -" when the layer was not reached. */
static int iolayers_opt_format(char *buf, size_t size, bool reached, s64 v)
{
	return reached ? scnprintf(buf, size, " %lld", v) : scnprintf(buf, size, " -");
}

static const char * const iolayers_sock_names[] = IOLAYERS_SOCK_NAMES;

/* The socket columns of a read's line, and its newline. */
static int iolayers_sock_format(char *buf, size_t size, const struct iolayers_flow_rec *r)
{
	int n;

	if (!r->sock)
		return scnprintf(buf, size, " - - - - - -\n");
	n = scnprintf(buf, size, " %s %llu", iolayers_sock_names[r->sock], r->sys_ns - r->sock_off);
	n += iolayers_opt_format(buf + n, size - n, r->tcp_off >= 0, r->sys_ns - r->tcp_off);
	n += iolayers_opt_format(buf + n, size - n, r->wait_ns, r->wait_ns);
	n += scnprintf(buf + n, size - n, " %lld", r->sock_off);
	n += iolayers_opt_format(buf + n, size - n, r->tcp_off >= 0, r->tcp_off);
	return n + scnprintf(buf + n, size - n, "\n");
}

/**
 * iolayers_flow_format() - One read's line of `flows`, `slow` and
 *	stream/events (the columns of IOLAYERS_FLOWS_HEADER).
 * @buf: where to write it
 * @size: its size, IOLAYERS_FLOW_LINE_MAX is enough
 * @r: the record
 *
 * Context: any; reads the table of disks.
 * Return: the line's length, with its newline.
 */
int iolayers_flow_format(char *buf, size_t size, const struct iolayers_flow_rec *r)
{
	const struct iolayers_blk_acc *b = &r->blk;
	u64 start = r->end_ns - r->sys_ns;
	/* A socket read's FS part holds its socket part. */
	bool fs = !r->sock && r->fs_off >= 0;
	char comm[TASK_COMM_LEN];
	const char *disk;
	dev_t dev;
	int i, n;

	/* One token per column: no blanks in the name. */
	for (i = 0; i < TASK_COMM_LEN - 1 && r->comm[i]; i++)
		comm[i] = isgraph(r->comm[i]) ? r->comm[i] : '?';
	comm[i] = '\0';
	n = scnprintf(buf, size, "%llu %llu %d %d %s %s %d %lld %llu %ld %s %llu", r->seq, start,
		      r->tid, r->tgid, i ? comm : "?",
		      iolayers_syscall_names[iolayers_syscall_index(r->nr)], r->fd, r->pos, r->req,
		      r->ret, iolayers_cache_name(r->cache), r->sys_ns);
	n += iolayers_opt_format(buf + n, size - n, r->vfs_off >= 0, r->vfs_ns);
	n += iolayers_opt_format(buf + n, size - n, fs, r->fs_ns);
	n += iolayers_opt_format(buf + n, size - n, b->nr_rqs, b->queue_ns);
	n += iolayers_opt_format(buf + n, size - n, b->nr_rqs, b->service_ns);
	n += iolayers_opt_format(buf + n, size - n, b->device_at, b->device_ns);
	n += scnprintf(buf + n, size - n, " %u %u %llu %llu %llu %u %u", b->nr_bios, b->nr_rqs,
		       b->bio_bytes, b->rq_bytes, r->sock ? 0 : r->ra_bytes, b->requeues,
		       b->errors);
	n += iolayers_opt_format(buf + n, size - n, r->vfs_off >= 0, r->vfs_off);
	n += iolayers_opt_format(buf + n, size - n, fs, r->fs_off);
	n += iolayers_opt_format(buf + n, size - n, b->queue_at, b->queue_at - start);
	n += iolayers_opt_format(buf + n, size - n, b->nr_rqs, b->issue_at - start);
	n += iolayers_opt_format(buf + n, size - n, b->device_at, b->device_at - start);
	n += iolayers_opt_format(buf + n, size - n, b->nr_rqs, b->done_at - start);
	/* The disk of its requests; "+": and others after it. */
	disk = iolayers_disk_name(b->disk);
	if (b->nr_rqs)
		n += scnprintf(buf + n, size - n, " %s%s", disk ?: "?",
			       hweight16(b->disk_mask) > 1 ? "+" : "");
	else
		n += scnprintf(buf + n, size - n, " -");
	n += iolayers_missed_format(buf + n, size - n, r->missed);
	if (r->ino)
		n += scnprintf(buf + n, size - n, " %llu %u:%u", r->ino, MAJOR(r->fs_dev),
			       MINOR(r->fs_dev));
	else
		n += scnprintf(buf + n, size - n, " - -");
	dev = iolayers_disk_dev(b->disk);
	if (b->nr_rqs && dev)
		n += scnprintf(buf + n, size - n, " %u:%u", MAJOR(dev), MINOR(dev));
	else
		n += scnprintf(buf + n, size - n, " -");
	n += scnprintf(buf + n, size - n, " %u", hweight16(b->disk_mask));
	return n + iolayers_sock_format(buf + n, size - n, r);
}

static int iolayers_rec_cmp(const void *a, const void *b)
{
	const struct iolayers_flow_rec *x = a, *y = b;

	if (x->end_ns != y->end_ns)
		return x->end_ns < y->end_ns ? -1 : 1;
	return 0;
}

/* Sort @n records oldest first and keep the newest @keep of them. */
static unsigned int iolayers_recs_keep_newest(struct iolayers_flow_rec *recs, unsigned int n,
					      unsigned int keep)
{
	unsigned int skip;

	sort(recs, n, sizeof(*recs), iolayers_rec_cmp, NULL);
	skip = n > keep ? n - keep : 0;
	memmove(recs, recs + skip, (n - skip) * sizeof(*recs));
	return n - skip;
}

/*
 * Copy the read records of one CPU's buffer, oldest first, into @out,
 * circularly: the last @keep of them stay (in an order sorting restores).
 * The walk is bounded: a writer that keeps writing is not chased.
 */
static unsigned int iolayers_cpu_copy(struct trace_buffer *buf, int cpu,
				      struct iolayers_flow_rec *out, unsigned int keep)
{
	unsigned long max = 2 * (ring_buffer_size(buf, cpu) / IOLAYERS_REC_SHORT) + keep;
	struct ring_buffer_iter *iter;
	struct ring_buffer_event *ev;
	unsigned int j = 0;
	unsigned long walked;

	iter = ring_buffer_read_start(buf, cpu, GFP_KERNEL);
	if (!iter)
		return 0;
	for (walked = 0; walked < max; walked++) {
		const struct iolayers_flow_rec *r;

		ev = ring_buffer_iter_peek(iter, NULL);
		if (!ev)
			break;
		r = ring_buffer_event_data(ev);
		if (r->kind == IOLAYERS_EV_READ)
			iolayers_rec_load(&out[j++ % keep], ev);
		ring_buffer_iter_advance(iter);
		if (!(walked % 256))
			cond_resched();
	}
	ring_buffer_read_finish(iter);
	return min(j, keep);
}

/**
 * iolayers_stream_snapshot() - Copy the newest completed reads, without
 *	consuming them.
 * @slow: the slow reads' buffer instead of the stream's
 * @n: set to the number of records returned
 *
 * Memory stays at twice flows= records whatever the number of CPUs. A
 * CPU's buffer is walked with the ring buffer's own iterator while writers
 * go on; records the stream's reader consumed are not there any more.
 *
 * Context: process context, may sleep.
 * Return: at most flows= records, oldest first, to be kvfree()d; NULL
 * when there are none or on allocation failure (@n is 0 then).
 */
struct iolayers_flow_rec *iolayers_stream_snapshot(bool slow, unsigned int *n)
{
	unsigned int total = 0, kept = iolayers_flows_kept;
	struct trace_buffer *buf = iolayers_bufs[slow];
	struct iolayers_flow_rec *all;
	int cpu;

	*n = 0;
	if (!buf || !kept)
		return NULL;
	all = kvmalloc_array(2 * (size_t)kept, sizeof(*all), GFP_KERNEL);
	if (!all)
		return NULL;
	mutex_lock(&iolayers_stream_mutex);
	/* An offline CPU's buffer keeps its records; a CPU without one has none. */
	for_each_possible_cpu(cpu) {
		total += iolayers_cpu_copy(buf, cpu, all + total, kept);
		if (total > kept)
			total = iolayers_recs_keep_newest(all, total, kept);
	}
	mutex_unlock(&iolayers_stream_mutex);
	*n = iolayers_recs_keep_newest(all, total, kept);
	return all;
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_stream_snapshot);

/* Records written to a buffer on @cpu since it was allocated or reset. */
static unsigned long iolayers_rb_written(struct trace_buffer *buf, int cpu)
{
	return ring_buffer_entries_cpu(buf, cpu) + ring_buffer_overrun_cpu(buf, cpu) +
	       ring_buffer_read_events_cpu(buf, cpu);
}

/**
 * iolayers_stream_bytes() - Memory the ring buffers take: their pages,
 *	the reader page of each CPU included.
 *
 * Return: bytes, over every CPU the buffers have pages for (an offline
 * one keeps them).
 */
size_t iolayers_stream_bytes(void)
{
	size_t bytes = 0;
	int k, cpu;

	for (k = 0; k < 2; k++) {
		if (!iolayers_bufs[k])
			continue;
		/* Every CPU the buffer has pages for, online or not. */
		for_each_possible_cpu(cpu) {
			unsigned long size = ring_buffer_size(iolayers_bufs[k], cpu);

			if (size)
				bytes += (DIV_ROUND_UP(size, IOLAYERS_RB_PAGE_DATA) + 1) <<
					 PAGE_SHIFT;
		}
	}
	return bytes;
}

/**
 * iolayers_stream_show_stats() - The stream's part of `stats`: per buffer
 *	and CPU (rows "stream/CPU" and "slow/CPU") the records written,
 *	overwritten before any reader took them, and refused (not written),
 *	and the buffer's bytes; then what the stream's reader was given and
 *	what it lost.
 * @m: the seq_file of `stats`
 *
 * Context: process context.
 */
void iolayers_stream_show_stats(struct seq_file *m)
{
	static const char * const names[] = { "stream", "slow" };
	int k, cpu;

	seq_printf(m, "%-10s %12s %12s %12s %12s %12s\n", "buffer", "written", "overwritten",
		   "dropped", "bytes", "unread");
	for (k = 0; k < 2; k++) {
		struct trace_buffer *buf = iolayers_bufs[k];

		if (!buf)
			continue;
		for_each_possible_cpu(cpu) {
			if (!ring_buffer_size(buf, cpu))
				continue;	/* no buffer for it: never online */
			seq_printf(m, "%s/%-*d %12lu %12lu %12llu %12lu %12lu\n", names[k],
				   9 - (int)strlen(names[k]), cpu,
				   iolayers_rb_written(buf, cpu), ring_buffer_overrun_cpu(buf, cpu),
				   per_cpu(iolayers_rec_dropped, cpu)[k],
				   ring_buffer_size(buf, cpu), ring_buffer_entries_cpu(buf, cpu));
		}
	}
	seq_putc(m, '\n');
	seq_printf(m, "%-20s %12zu\n", "stream_bytes", iolayers_stream_bytes());
	seq_printf(m, "%-20s %12d\n", "stream_readers",
		   atomic_read(&iolayers_stream_busy) == IOLAYERS_STREAM_OPEN);
	seq_printf(m, "%-20s %12lld\n", "stream_delivered",
		   (long long)atomic64_read(&iolayers_stream_delivered));
	seq_printf(m, "%-20s %12lld\n", "stream_lost",
		   (long long)atomic64_read(&iolayers_stream_lost));
	seq_printf(m, "%-20s %12lld\n", "stream_unknown",
		   (long long)atomic64_read(&iolayers_stream_unknown));
	seq_printf(m, "%-20s %12lld\n", "stream_vanished",
		   (long long)atomic64_read(&iolayers_stream_vanished));
}

/* Most bytes one record takes in stream/raw: a loss, then a read. */
#define IOLAYERS_RAW_MAX (sizeof(struct iolayers_rec_lost) + sizeof(struct iolayers_rec_read))

/* A record as the reader takes it: its kind and number first. */
union iolayers_ev {
	struct {
		u32 kind;
		u32 wseq;
	} hdr;
	struct iolayers_flow_rec rec;
	struct iolayers_ev_lost lost;
};

/* Records taken from one CPU's buffer at a time (on that CPU). */
#define IOLAYERS_STAGE_RECS	16

/*
 * Records taken from one CPU's buffer and not yet handed out, oldest at
 * @head: each with its length and the ring buffer's count of records
 * overwritten before it.
 */
struct iolayers_stage {
	unsigned int head;
	unsigned int n;
	struct {
		union iolayers_ev ev;
		u32 len;
		unsigned long lost;
	} slot[IOLAYERS_STAGE_RECS];
};

/* What the reader knows of one CPU's buffer. */
struct iolayers_reader_cpu {
	u32 next_wseq;		/* the wseq its next record should have */
	bool seen;		/* a record was taken from it since the open */
	unsigned long vanished;	/* records it lost without saying so, since */
	unsigned long stuck;	/* counted unread, none to take: at the open or later */
	struct iolayers_stage stage;
};

/*
 * An open stream/events or stream/raw: a record's text or binary form,
 * partly copied out (text only: binary records go out whole).
 */
struct iolayers_stream_reader {
	struct mutex lock;	/* threads reading the one open file */
	bool raw;
	bool said_unreadable;	/* iolayers_cpu_stuck() spoke */
	bool said_vanished;	/* iolayers_stream_gap() spoke */
	size_t len;
	size_t off;
	struct iolayers_reader_cpu *cpus;	/* per possible CPU, nr_cpu_ids */
	char line[IOLAYERS_FLOW_LINE_MAX + 64] __aligned(8);
};

static_assert(sizeof(((struct iolayers_stream_reader *)0)->line) >= IOLAYERS_RAW_MAX);
/* The reader takes every record's kind and number from the same place. */
static_assert(offsetof(struct iolayers_flow_rec, kind) == 0 &&
	      offsetof(struct iolayers_ev_lost, kind) == 0);
static_assert(offsetof(struct iolayers_flow_rec, wseq) == sizeof(u32) &&
	      offsetof(struct iolayers_ev_lost, wseq) == sizeof(u32));

/* A read's binary record (stream/raw), from its kept record. */
static void iolayers_rec_to_raw(const struct iolayers_flow_rec *r, int cpu,
				struct iolayers_rec_read *o)
{
	const struct iolayers_blk_acc *b = &r->blk;
	u64 start = r->end_ns - r->sys_ns;
	const char *disk = iolayers_disk_name(b->disk);
	dev_t dev = iolayers_disk_dev(b->disk);

	memset(o, 0, sizeof(*o));
	o->hdr.type = IOLAYERS_REC_READ;
	o->hdr.size = sizeof(*o);
	o->hdr.cpu = cpu;
	o->seq = r->seq;
	o->start_ns = start;
	o->pos = r->pos;
	o->req = r->req;
	o->ret = r->ret;
	o->ino = r->ino;
	o->ns[IOLAYERS_L_SYSCALL] = r->sys_ns;
	o->ns[IOLAYERS_L_VFS] = r->vfs_off >= 0 ? r->vfs_ns : -1;
	o->ns[IOLAYERS_L_FS] = !r->sock && r->fs_off >= 0 ? r->fs_ns : -1;
	o->ns[IOLAYERS_L_QUEUE] = b->nr_rqs ? b->queue_ns : -1;
	o->ns[IOLAYERS_L_SERVICE] = b->nr_rqs ? b->service_ns : -1;
	o->ns[IOLAYERS_L_DEVICE] = b->device_at ? b->device_ns : -1;
	o->vfs_off = r->vfs_off;
	o->fs_off = r->sock ? -1 : r->fs_off;
	o->queue_off = b->queue_at ? (s64)(b->queue_at - start) : -1;
	o->issue_off = b->nr_rqs ? (s64)(b->issue_at - start) : -1;
	o->device_off = b->device_at ? (s64)(b->device_at - start) : -1;
	o->done_off = b->nr_rqs ? (s64)(b->done_at - start) : -1;
	o->bio_bytes = b->bio_bytes;
	o->rq_bytes = b->rq_bytes;
	o->ra_bytes = r->sock ? 0 : r->ra_bytes;
	o->sock = r->sock;
	o->sock_ns = r->sock ? (s64)(r->sys_ns - r->sock_off) : -1;
	o->tcp_ns = r->sock && r->tcp_off >= 0 ? (s64)(r->sys_ns - r->tcp_off) : -1;
	o->wait_ns = r->sock && r->wait_ns ? (s64)r->wait_ns : -1;
	o->sock_off = r->sock ? r->sock_off : -1;
	o->tcp_off = r->sock ? r->tcp_off : -1;
	o->tid = r->tid;
	o->tgid = r->tgid;
	o->fd = r->fd;
	o->bios = b->nr_bios;
	o->rqs = b->nr_rqs;
	o->requeues = b->requeues;
	o->errors = b->errors;
	o->fs_major = MAJOR(r->fs_dev);
	o->fs_minor = MINOR(r->fs_dev);
	if (b->nr_rqs && dev) {
		o->dev_major = MAJOR(dev);
		o->dev_minor = MINOR(dev);
	}
	o->syscall = iolayers_syscall_index(r->nr);
	o->cache = r->cache;
	o->missed = r->missed;
	o->ndisks = hweight16(b->disk_mask);
	memcpy(o->comm, r->comm, min(sizeof(o->comm), sizeof(r->comm)));
	o->comm[sizeof(o->comm) - 1] = '\0';
	if (b->nr_rqs)
		strscpy(o->disk, disk ?: "?", sizeof(o->disk));
}

/* A loss's binary record at @buf. */
static size_t iolayers_lost_to_raw(void *buf, int cpu, u64 count)
{
	struct iolayers_rec_lost *l = buf;

	memset(l, 0, sizeof(*l));
	l->hdr.type = IOLAYERS_REC_LOST;
	l->hdr.size = sizeof(*l);
	l->hdr.cpu = cpu;
	l->count = count;
	return sizeof(*l);
}

/* When a record was written (a read's sys_exit, a loss's first report). */
static u64 iolayers_ev_time(const void *data)
{
	const struct iolayers_flow_rec *r = data;
	const struct iolayers_ev_lost *l = data;

	return r->kind == IOLAYERS_EV_READ ? r->end_ns : l->end_ns;
}

/*
 * Records written to @cpu's buffer between the last one the reader took
 * from it and this one (numbered @wseq), less the @lost ones the ring
 * buffer said it overwrote: records it lost without saying so. None
 * before the first record taken since the open (its drain took the rest).
 */
static unsigned long iolayers_stream_gap(struct iolayers_stream_reader *rd, int cpu, u32 wseq,
					 unsigned long lost)
{
	u32 gap = wseq - rd->cpus[cpu].next_wseq;

	rd->cpus[cpu].next_wseq = wseq + 1;
	if (!rd->cpus[cpu].seen) {
		rd->cpus[cpu].seen = true;
		return 0;
	}
	if (gap <= lost)
		return 0;
	rd->cpus[cpu].vanished += gap - lost;
	atomic64_add(gap - lost, &iolayers_stream_vanished);
	if (!rd->said_vanished) {
		rd->said_vanished = true;
		pr_warn_ratelimited("stream: cpu %d: %lu records before its record %u neither given by the ring buffer nor said overwritten; counted lost\n",
				    cpu, gap - lost, wseq);
	}
	return gap - lost;
}

/* The arguments of iolayers_stage_fill(). */
struct iolayers_fill {
	struct trace_buffer *buf;
	struct iolayers_stage *st;
	int cpu;
	unsigned long entries;	/* the buffer's unread count once it gave none */
};

/*
 * Take records from one CPU's buffer into its stage until the stage is
 * full or the buffer has nothing committed to give; then, if it gave
 * none, note how many records the buffer still counts as unread.
 *
 * Runs on that CPU, in a kworker with preemption off (or the CPU is
 * offline), so that no writer of the buffer is in the middle of a write:
 * its writers are the followed tasks' sys_exit on that CPU, preemption
 * off from the reservation to the commit. The ring buffer lets its
 * reader run on any CPU, but the reader looks first at how far its page
 * is committed and then at whether the commit page is still its page,
 * and a writer that committed the rest of that page and moved on to the
 * next in between had those records thrown away with the page when the
 * reader swapped it (6.1 to 7.2; design.rst, loss accounting). Not an
 * IPI: interrupting a writer mid-reservation, the reader could find its
 * page's write index past the page's end, and the ring buffer's reader
 * then waits for that writer, here for ever (a second, then a warning
 * and the buffer disabled).
 */
static int iolayers_stage_fill(void *arg)
{
	struct iolayers_fill *a = arg;
	struct iolayers_stage *st = a->st;
	unsigned int taken = 0;

	preempt_disable();
	while (st->n < IOLAYERS_STAGE_RECS) {
		unsigned int i = (st->head + st->n) % IOLAYERS_STAGE_RECS;
		struct ring_buffer_event *ev;
		unsigned long lost = 0;
		size_t len;

		ev = ring_buffer_consume(a->buf, a->cpu, NULL, &lost);
		if (!ev)
			break;
		len = min_t(size_t, ring_buffer_event_length(ev), sizeof(st->slot[i].ev));
		memcpy(&st->slot[i].ev, ring_buffer_event_data(ev), len);
		st->slot[i].len = len;
		st->slot[i].lost = lost;
		st->n++;
		taken++;
	}
	if (!taken)
		a->entries = ring_buffer_entries_cpu(a->buf, a->cpu);
	preempt_enable();
	return 0;
}

/*
 * Fill @cpu's stage on @cpu (iolayers_stage_fill()). Return: how many
 * records the buffer counts as unread when it gave none, else 0.
 *
 * Context: process context, may sleep.
 */
static unsigned long iolayers_stage_refill(struct iolayers_stream_reader *rd, int cpu)
{
	struct iolayers_fill a = {
		.buf = iolayers_bufs[0],
		.st = &rd->cpus[cpu].stage,
		.cpu = cpu,
	};

	/* The CPU stays on or off line while its buffer is read. */
	cpus_read_lock();
	if (!cpu_online(cpu) || smp_call_on_cpu(cpu, iolayers_stage_fill, &a, false))
		iolayers_stage_fill(&a);
	cpus_read_unlock();
	return a.entries;
}

/*
 * Does @cpu's buffer count records committed and not yet taken, beyond
 * those no read can take (iolayers_cpu_stuck())? Its counters only: the
 * ring buffer's peek may swap pages as a take does.
 */
static bool iolayers_cpu_unread(const struct iolayers_stream_reader *rd, int cpu)
{
	const struct iolayers_reader_cpu *c = &rd->cpus[cpu];

	return ring_buffer_entries_cpu(iolayers_bufs[0], cpu) > c->stuck + c->vanished;
}

/*
 * A take from @cpu found nothing while its buffer counted @entries records
 * unread: records no read will take (counted unread at the open, found
 * lost since, or lost after the CPU's last record, which no gap shows).
 * Those beyond the ones known are said once per open, with what finding
 * where they went would start from; all of them stop counting as
 * records to wait for.
 */
static void iolayers_cpu_stuck(struct iolayers_stream_reader *rd, int cpu, unsigned long entries)
{
	struct trace_buffer *buf = iolayers_bufs[0];
	struct iolayers_reader_cpu *c = &rd->cpus[cpu];
	unsigned long known = c->stuck + c->vanished;

	if (entries <= known)
		return;
	if (!rd->said_unreadable) {
		rd->said_unreadable = true;
		pr_warn_ratelimited("stream: cpu %d holds %lu records no read can take: empty %d, bytes %lu, overrun %lu, read %lu, commit overrun %lu, dropped %lu\n",
				    cpu, entries - known, ring_buffer_empty_cpu(buf, cpu),
				    ring_buffer_bytes_cpu(buf, cpu),
				    ring_buffer_overrun_cpu(buf, cpu),
				    ring_buffer_read_events_cpu(buf, cpu),
				    ring_buffer_commit_overrun_cpu(buf, cpu),
				    ring_buffer_dropped_events_cpu(buf, cpu));
	}
	c->stuck = entries - c->vanished;
}

/*
 * Hand out the oldest record of all CPUs' buffers and put its text (after
 * a "# lost" line if that CPU's buffer overwrote records before it), or
 * its binary records, in @rd->line. False when no CPU's buffer has a
 * record to take.
 */
static bool iolayers_stream_next(struct iolayers_stream_reader *rd)
{
	struct iolayers_stage *st;
	union iolayers_ev *e;
	unsigned long lost;
	u64 best_ns = U64_MAX;
	int cpu, best = -1;
	size_t len, n = 0;
	bool is_read, is_lost;

	for_each_possible_cpu(cpu) {
		u64 t;

		st = &rd->cpus[cpu].stage;
		if (!st->n && iolayers_cpu_unread(rd, cpu)) {
			unsigned long entries = iolayers_stage_refill(rd, cpu);

			if (!st->n)
				iolayers_cpu_stuck(rd, cpu, entries);
		}
		if (!st->n)
			continue;
		t = iolayers_ev_time(&st->slot[st->head].ev);
		if (best < 0 || t < best_ns) {
			best_ns = t;
			best = cpu;
		}
	}
	if (best < 0)
		return false;
	st = &rd->cpus[best].stage;
	e = &st->slot[st->head].ev;
	len = st->slot[st->head].len;
	lost = st->slot[st->head].lost;
	st->head = (st->head + 1) % IOLAYERS_STAGE_RECS;
	st->n--;
	is_read = e->hdr.kind == IOLAYERS_EV_READ && len >= IOLAYERS_REC_SHORT;
	is_lost = e->hdr.kind == IOLAYERS_EV_LOST && len >= sizeof(e->lost);
	/* A record of a known kind: its number can be trusted. */
	if (is_read || is_lost)
		lost += iolayers_stream_gap(rd, best, e->hdr.wseq, lost);
	if (lost) {
		if (rd->raw)
			n = iolayers_lost_to_raw(rd->line, best, lost);
		else
			n = scnprintf(rd->line, sizeof(rd->line), "# lost %lu cpu %d\n", lost,
				      best);
		atomic64_add(lost, &iolayers_stream_lost);
	}
	if (is_read) {
		iolayers_rec_pad(&e->rec, len);
		if (rd->raw) {
			iolayers_rec_to_raw(&e->rec, best, (void *)(rd->line + n));
			n += sizeof(struct iolayers_rec_read);
		} else {
			n += iolayers_flow_format(rd->line + n, sizeof(rd->line) - n, &e->rec);
		}
		atomic64_inc(&iolayers_stream_delivered);
	} else if (is_lost) {
		if (rd->raw)
			n += iolayers_lost_to_raw(rd->line + n, e->lost.cpu, e->lost.count);
		else
			n += scnprintf(rd->line + n, sizeof(rd->line) - n, "# lost %llu cpu %u\n",
				       e->lost.count, e->lost.cpu);
		atomic64_add(e->lost.count, &iolayers_stream_lost);
	} else {
		atomic64_inc(&iolayers_stream_unknown);
		pr_warn_ratelimited("stream: cpu %d: a record of kind %u and %zu bytes is neither a read nor a loss\n",
				    best, e->hdr.kind, len);
	}
	rd->len = n;
	rd->off = 0;
	return true;
}

/*
 * A record the reader can take: one staged, or one a CPU's buffer counts
 * as committed and not taken, on any CPU the buffer has (an offline CPU
 * keeps its records). From counters only: called as a wait's condition
 * (no sleeping, no taking). Not ring_buffer_empty(), whose answer the
 * takes need not share: "not empty" with nothing to take would have the
 * reader spin without sleeping.
 */
static bool iolayers_stream_ready(const struct iolayers_stream_reader *rd)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		if (rd->cpus[cpu].stage.n || iolayers_cpu_unread(rd, cpu))
			return true;
	}
	return false;
}

/* Sleep until a record can be taken; -ERESTARTSYS on a signal. */
static int iolayers_stream_wait(struct iolayers_stream_reader *rd)
{
	long ret;

	do {
		WRITE_ONCE(iolayers_stream_waiting, true);
		smp_mb();	/* the flag before the look at the buffers */
		ret = wait_event_interruptible_timeout(iolayers_stream_wq,
						       iolayers_stream_ready(rd), HZ / 10);
	} while (!ret);
	WRITE_ONCE(iolayers_stream_waiting, false);
	return ret < 0 ? ret : 0;
}

static ssize_t events_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	struct iolayers_stream_reader *rd = file->private_data;
	ssize_t done = 0;
	int ret = 0;

	if (rd->raw && count < IOLAYERS_RAW_MAX) {
		pr_err_ratelimited("read of %zu bytes from stream/raw: want at least %zu (whole records)\n",
				   count, IOLAYERS_RAW_MAX);
		return -EINVAL;
	}
	if (mutex_lock_interruptible(&rd->lock))
		return -ERESTARTSYS;
	while (done < count) {
		size_t n;

		if (rd->off == rd->len && !iolayers_stream_next(rd)) {
			if (done)
				break;
			if (file->f_flags & O_NONBLOCK) {
				ret = -EAGAIN;
				break;
			}
			if (signal_pending(current)) {
				ret = -ERESTARTSYS;
				break;
			}
			ret = iolayers_stream_wait(rd);
			if (ret)
				break;
			continue;
		}
		n = min_t(size_t, count - done, rd->len - rd->off);
		if (rd->raw && n < rd->len - rd->off)
			break;	/* the next records do not fit whole */
		if (copy_to_user(ubuf + done, rd->line + rd->off, n)) {
			ret = -EFAULT;
			break;
		}
		rd->off += n;
		done += n;
	}
	mutex_unlock(&rd->lock);
	return done ? done : ret;
}

static __poll_t events_poll(struct file *file, poll_table *wait)
{
	struct iolayers_stream_reader *rd = file->private_data;

	poll_wait(file, &iolayers_stream_wq, wait);
	WRITE_ONCE(iolayers_stream_waiting, true);
	smp_mb();	/* the flag before the look at the buffers */
	if (READ_ONCE(rd->off) != READ_ONCE(rd->len) || iolayers_stream_ready(rd))
		return EPOLLIN | EPOLLRDNORM;
	return 0;
}

static void iolayers_reader_free(struct iolayers_stream_reader *rd)
{
	kvfree(rd->cpus);
	kfree(rd);
}

static struct iolayers_stream_reader *iolayers_reader_alloc(void)
{
	struct iolayers_stream_reader *rd = kzalloc(sizeof(*rd), GFP_KERNEL);

	if (!rd)
		return NULL;
	rd->cpus = kvcalloc(nr_cpu_ids, sizeof(*rd->cpus), GFP_KERNEL);
	if (!rd->cpus) {
		iolayers_reader_free(rd);
		return NULL;
	}
	return rd;
}

/*
 * One reader at a time (-EBUSY for another): each record goes to exactly
 * one place. The stream starts at the open: what the buffers held is
 * consumed unseen (and leaves `flows`), so that what the reader gets,
 * plus what it is told was lost, is every read completed while it is
 * open.
 */
static int iolayers_stream_open(struct inode *inode, struct file *file, bool raw)
{
	struct iolayers_stream_reader *rd;
	int cpu;

	if (!iolayers_bufs[0])
		return -ENODATA;	/* flows=0: no records at all */
	if (atomic_cmpxchg(&iolayers_stream_busy, IOLAYERS_STREAM_FREE,
			   IOLAYERS_STREAM_OPENING) != IOLAYERS_STREAM_FREE)
		return -EBUSY;
	rd = iolayers_reader_alloc();
	if (!rd) {
		atomic_set(&iolayers_stream_busy, IOLAYERS_STREAM_FREE);
		return -ENOMEM;
	}
	mutex_init(&rd->lock);
	rd->raw = raw;
	if (raw) {
		struct iolayers_rec_start *st = (void *)rd->line;

		st->hdr.type = IOLAYERS_REC_START;
		st->hdr.size = sizeof(*st);
		st->version = IOLAYERS_STREAM_VERSION;
		st->format = IOLAYERS_FORMAT_VERSION;
		st->open_ns = ktime_get_ns();
		rd->len = sizeof(*st);
	} else {
		rd->len = scnprintf(rd->line, sizeof(rd->line), "%s\n", IOLAYERS_FLOWS_HEADER);
	}
	mutex_lock(&iolayers_stream_mutex);
	for_each_possible_cpu(cpu) {
		struct iolayers_stage *stage = &rd->cpus[cpu].stage;
		/* At most what it holds now: a writer may keep adding. */
		long left = ring_buffer_entries_cpu(iolayers_bufs[0], cpu);
		unsigned long entries;

		do {
			stage->head = 0;
			stage->n = 0;
			entries = iolayers_stage_refill(rd, cpu);
			left -= stage->n;
			cond_resched();
		} while (stage->n && left > 0);
		/*
		 * What the drain could not take no read will: the buffer's
		 * unread count when a take found nothing. Records taken
		 * past the bound go too (written as the stream opened).
		 */
		rd->cpus[cpu].stuck = stage->n ? 0 : entries;
		stage->head = 0;
		stage->n = 0;
	}
	mutex_unlock(&iolayers_stream_mutex);
	/* Its stream begins: `stats` says a reader from here on. */
	atomic_set(&iolayers_stream_busy, IOLAYERS_STREAM_OPEN);
	file->private_data = rd;
	return nonseekable_open(inode, file);
}

static int events_open(struct inode *inode, struct file *file)
{
	return iolayers_stream_open(inode, file, false);
}

static int raw_open(struct inode *inode, struct file *file)
{
	return iolayers_stream_open(inode, file, true);
}

static int events_release(struct inode *inode, struct file *file)
{
	struct iolayers_stream_reader *rd = file->private_data;

	mutex_destroy(&rd->lock);
	iolayers_reader_free(rd);
	atomic_set(&iolayers_stream_busy, IOLAYERS_STREAM_FREE);
	return 0;
}

static const struct file_operations events_fops = {
	.owner = THIS_MODULE,
	.open = events_open,
	.read = events_read,
	.poll = events_poll,
	.release = events_release,
};

static const struct file_operations raw_fops = {
	.owner = THIS_MODULE,
	.open = raw_open,
	.read = events_read,
	.poll = events_poll,
	.release = events_release,
};

/**
 * iolayers_stream_debugfs() - Create the stream's directory and its
 *	files: events (text) and raw (binary), one stream.
 * @dir: the module's debugfs directory
 *
 * Context: process context (load).
 */
void iolayers_stream_debugfs(struct dentry *dir)
{
	struct dentry *sd = debugfs_create_dir(IOLAYERS_STREAM_DIR, dir);

	debugfs_create_file(IOLAYERS_FILE_EVENTS, 0400, sd, NULL, &events_fops);
	debugfs_create_file(IOLAYERS_FILE_RAW, 0400, sd, NULL, &raw_fops);
}

/**
 * iolayers_stream_reset() - Forget every kept record and the stream's
 *	counts, unless a reader has the stream open (its records are not
 *	thrown away under it).
 *
 * Context: process context, may sleep.
 */
void iolayers_stream_reset(void)
{
	int k, cpu;

	mutex_lock(&iolayers_stream_mutex);
	if (atomic_read(&iolayers_stream_busy) == IOLAYERS_STREAM_FREE) {
		for (k = 0; k < 2; k++)
			if (iolayers_bufs[k])
				ring_buffer_reset(iolayers_bufs[k]);
		for_each_possible_cpu(cpu)
			memset(per_cpu_ptr(iolayers_rec_dropped, cpu), 0,
			       sizeof(iolayers_rec_dropped));
		atomic64_set(&iolayers_stream_delivered, 0);
		atomic64_set(&iolayers_stream_lost, 0);
		atomic64_set(&iolayers_stream_unknown, 0);
		atomic64_set(&iolayers_stream_vanished, 0);
	}
	mutex_unlock(&iolayers_stream_mutex);
}

/**
 * iolayers_stream_exit() - Free the buffers.
 *
 * Context: process context (unload), no probe attached, no file open.
 */
void iolayers_stream_exit(void)
{
	int k;

	irq_work_sync(&iolayers_stream_iw);
	for (k = 0; k < 2; k++) {
		if (iolayers_bufs[k])
			ring_buffer_free(iolayers_bufs[k]);
		iolayers_bufs[k] = NULL;
	}
}

/*
 * Room one record takes in a ring buffer at most (a read with requests:
 * short records take less): the record, its event header
 * (with the length word of a large event) and its share of what a page
 * of about 4 KiB cannot fit; two pages more for the page a writer fills
 * and the reader's.
 */
#define IOLAYERS_REC_ROOM	(sizeof(struct iolayers_flow_rec) + 32)
#define IOLAYERS_RB_SLACK	(2 * PAGE_SIZE)

/*
 * Bytes to ask ring_buffer_alloc() for so that it takes @pages pages per
 * CPU, its reader page included; at least @need.
 */
static unsigned long iolayers_rb_bytes(unsigned long pages, unsigned long need)
{
	return max((pages - 1) * IOLAYERS_RB_PAGE_DATA, need);
}

/**
 * iolayers_stream_init() - Allocate the buffers: per CPU, buffer_kb in
 *	all, seven eighths for the stream and an eighth for the slow reads
 *	(in whole pages, at least two each, the ring buffer's reader page
 *	included), each grown to hold flows= records (so that `flows` and
 *	`slow` can show the newest flows= even when one CPU made them all);
 *	none with flows=0.
 *
 * Context: process context (load), may sleep.
 * Return: 0, or -ENOMEM.
 */
int iolayers_stream_init(void)
{
	unsigned long pages = max(((unsigned long)iolayers_buffer_kb << 10) >> PAGE_SHIFT, 4UL);
	unsigned long slow = max(pages / 8, 2UL);
	unsigned long need = iolayers_flows_kept * IOLAYERS_REC_ROOM + IOLAYERS_RB_SLACK;

	init_irq_work(&iolayers_stream_iw, iolayers_stream_wake_work);
	if (!iolayers_flows_kept)
		return 0;
	iolayers_bufs[0] = ring_buffer_alloc(iolayers_rb_bytes(pages - slow, need),
					     RB_FL_OVERWRITE);
	iolayers_bufs[1] = ring_buffer_alloc(iolayers_rb_bytes(slow, need), RB_FL_OVERWRITE);
	if (!iolayers_bufs[0] || !iolayers_bufs[1]) {
		iolayers_stream_exit();
		return -ENOMEM;
	}
	return 0;
}
