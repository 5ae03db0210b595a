// SPDX-License-Identifier: GPL-2.0
/*
 * Completed reads, one record each, in a ring per CPU, in overwrite mode:
 * the producer (sys_exit) never blocks and never fails; when nobody
 * consumes, the newest records stay and each one written over is counted.
 * `flows` and `slow` copy the newest of them without consuming (as
 * ftrace's `trace`); stream/events hands each record once to one reader,
 * in completion order across CPUs (as `trace_pipe`), with a "# lost N cpu
 * C" line where a CPU's ring wrote over records it had not taken.
 *
 * Why not the kernel's ring buffer (<linux/ring_buffer.h>), which this
 * used until the libbpf comparison: its reservation, its own time stamp
 * and its commit cost about 330 instructions per record, a fifth of what
 * iolayers adds to a cached read, and pay for what this stream does not
 * need: writers in any context nesting on one CPU, and readers on other
 * CPUs racing them. Here a CPU's ring is written only by a followed task's
 * sys_exit on that CPU, preemption off for the whole record, and read
 * only on that CPU with preemption off (by a kworker there,
 * smp_call_on_cpu(), when the reader runs elsewhere), or while the CPU
 * is offline, under a lock of the readers of offline
 * CPUs: no two of them ever run at once, so the ring needs no atomic
 * operation, no commit protocol and no clock. (The kernel's ring buffer
 * also lost records to its readers on other CPUs: one could swap away a
 * page a writer had just filled; design.rst.) Every take is bounded (a
 * few dozen records, preemption off): the stream's reader takes 16 at a
 * time, `flows` copies the newest records by their places, which each
 * CPU's ring keeps (@recent), 64 at a time. Not an IPI: its sender spins
 * until the target takes it, and under TCG a 5.10 guest's stream stalled
 * for minutes on IPIs to a busy vCPU.
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/bitops.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/kdev_t.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/poll.h>
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

/* Both rings per CPU, KiB (buffer_kb=). */
unsigned int iolayers_buffer_kb = 1024;
/* Reads at least this slow (syscall latency) also go to `slow`. */
u64 iolayers_slow_ns = 10 * NSEC_PER_MSEC;

static_assert(offsetof(struct iolayers_flow_rec, kind) ==
	      offsetof(struct iolayers_ring_hdr, kind) &&
	      offsetof(struct iolayers_flow_rec, len) == offsetof(struct iolayers_ring_hdr, len));
static_assert(IOLAYERS_REC_FULL <= U16_MAX);

/* [0]: every completed read (the stream); [1]: the slow ones. */
static DEFINE_PER_CPU(struct iolayers_ring [2], iolayers_rings);
/* The rings' sizes; 0 with flows=0 (no records at all). */
static u32 iolayers_ring_size[2];
/* The places of the newest records each ring keeps (flows=, rounded up). */
static u32 iolayers_recent_n;
/* The CPU hotplug state that gives a CPU coming online its rings. */
static int iolayers_ring_hp;

/*
 * stream/events: open by one reader at a time; what it was given, and
 * what it was told lost.
 */
enum iolayers_stream_state {
	IOLAYERS_STREAM_FREE,		/* no reader */
	IOLAYERS_STREAM_OPENING,	/* one consumes what the rings held */
	IOLAYERS_STREAM_OPEN,		/* its stream begun */
};

static atomic_t iolayers_stream_busy = ATOMIC_INIT(IOLAYERS_STREAM_FREE);
/* Records the reader found missing that no ring said it wrote over. */
static atomic64_t iolayers_stream_vanished = ATOMIC64_INIT(0);
static atomic64_t iolayers_stream_delivered = ATOMIC64_INIT(0);
static atomic64_t iolayers_stream_lost = ATOMIC64_INIT(0);
/* Waits for a batch (batch_us) begun, and those a half-full ring ended. */
static atomic64_t iolayers_stream_batches = ATOMIC64_INIT(0);
static atomic64_t iolayers_stream_batch_full = ATOMIC64_INIT(0);
/* Open, release, reset and the snapshots of `flows` against each other. */
static DEFINE_MUTEX(iolayers_stream_mutex);

/*
 * A reader that took every record, and one woken by a first record, waits
 * up to batch_us more before it takes records, unless a CPU's stream ring
 * gets half full first: it then takes them in batches, not one wake-up, one
 * read() and one switch to it and back per record (what a reader of a
 * program that reads and waits in turn, as a server answering requests,
 * paid). batch_us=0: each record at once.
 */
u64 iolayers_batch_ns = 10 * NSEC_PER_MSEC;

/*
 * What a waiting reader wants, bits of @iolayers_stream_waiting: set by
 * the reader (read(), poll()), each cleared by the producer that wakes
 * for it (and FULL by the reader whose batch wait ends), so that a poll()
 * and a read() of one file on two threads never clear each other's.
 */
enum {
	IOLAYERS_WAKE_ANY,	/* a record: the reader found none */
	IOLAYERS_WAKE_FULL,	/* a CPU's ring half full: the reader batches */
};

/*
 * The reader sleeps with a bit of @iolayers_stream_waiting set; the
 * producer that finds its condition met clears the bit and wakes the
 * reader from an irq_work (a wake-up in the producer's own context would
 * take the wait queue's lock, which the reader holds as it goes to
 * sleep). No barrier on the producer's side (it would cost every read):
 * a wake-up it misses is made up by the reader's own look every tenth of
 * a second, or by the end of its batch.
 */
static unsigned long iolayers_stream_waiting;
static DECLARE_WAIT_QUEUE_HEAD(iolayers_stream_wq);
static struct irq_work iolayers_stream_iw;

static void iolayers_stream_wake_work(struct irq_work *w)
{
	wake_up_interruptible_all(&iolayers_stream_wq);
}

/*
 * A record was written to @rg while a reader waits: wake it if that is
 * what it waits for. Out of line: the producer's path only tests the word.
 */
static noinline void iolayers_stream_kick(const struct iolayers_ring *rg)
{
	unsigned long w = READ_ONCE(iolayers_stream_waiting);
	bool wake = false;

	if ((w & BIT(IOLAYERS_WAKE_ANY)) &&
	    test_and_clear_bit(IOLAYERS_WAKE_ANY, &iolayers_stream_waiting))
		wake = true;
	if ((w & BIT(IOLAYERS_WAKE_FULL)) && rg->used >= rg->size / 2 &&
	    test_and_clear_bit(IOLAYERS_WAKE_FULL, &iolayers_stream_waiting))
		wake = true;
	if (wake)
		irq_work_queue(&iolayers_stream_iw);
}

/* Does @rg have its memory yet? Its size and places too, then. */
static bool iolayers_ring_ready(const struct iolayers_ring *rg)
{
	/* Pairs with the release in iolayers_ring_prepare(). */
	return smp_load_acquire(&rg->data);
}

/* The readers of offline CPUs' rings, against each other. */
static DEFINE_MUTEX(iolayers_offline_lock);

/*
 * Run @fn(@arg) where no writer of @cpu's rings can be in the middle of a
 * record and no other reader runs: on @cpu, @fn with preemption off (a
 * writer has preemption off; another reader's @fn on @cpu runs before or
 * after), here if the caller runs on @cpu, else from a kworker there; or
 * here while @cpu is offline (none of its tasks is mid-record: taking a
 * CPU down stops every one of them), under a lock. @fn keeps preemption
 * off itself, and must be short.
 *
 * Context: process context, may sleep.
 */
static void iolayers_on_cpu(int cpu, int (*fn)(void *), void *arg)
{
	might_sleep();
	/*
	 * On @cpu already (always, on one CPU): preemption off is all a
	 * kworker there would give, without two switches to it and back.
	 */
	preempt_disable();
	if (cpu == smp_processor_id()) {
		fn(arg);
		preempt_enable();
		return;
	}
	preempt_enable();
	/* The CPU stays on or off line while its ring is read. */
	cpus_read_lock();
	if (cpu_online(cpu)) {
		smp_call_on_cpu(cpu, fn, arg, false);
	} else {
		mutex_lock(&iolayers_offline_lock);
		fn(arg);
		mutex_unlock(&iolayers_offline_lock);
	}
	cpus_read_unlock();
}

/**
 * iolayers_ring_pop() - Take the oldest entry off a ring.
 * @rg: the ring, holding at least one entry
 *
 * Context: no writer or other reader of @rg running (stream.c, the top
 * comment).
 * Return: the entry's header, its bytes valid until the next write.
 */
VISIBLE_IF_KUNIT const struct iolayers_ring_hdr *iolayers_ring_pop(struct iolayers_ring *rg)
{
	const struct iolayers_ring_hdr *h = (const void *)(rg->data + rg->tail);

	rg->tail += h->len;
	if (rg->tail == rg->size)
		rg->tail = 0;
	rg->used -= h->len;
	if (h->kind != IOLAYERS_EV_PAD)
		WRITE_ONCE(rg->entries, rg->entries - 1);
	return h;
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_ring_pop);

/*
 * Write over the oldest entries until @len bytes are free. Free bytes
 * start at @head and run to @tail, or to the end when @tail is not past
 * @head: the caller never asks for more than that end holds.
 */
static void iolayers_ring_room(struct iolayers_ring *rg, u32 len)
{
	while (unlikely(rg->size - rg->used < len)) {
		if (iolayers_ring_pop(rg)->kind != IOLAYERS_EV_PAD)
			WRITE_ONCE(rg->overwritten, rg->overwritten + 1);
	}
}

/**
 * iolayers_ring_reserve() - Make room for an entry at a ring's head, by
 *	writing over its oldest entries (counted in @rg->overwritten when
 *	they are records), and count it in @rg->entries.
 * @rg: the ring
 * @len: the entry's bytes, a multiple of 8, at most the ring's size
 *
 * Context: the ring's writer or a test's, no reader of it running
 * (stream.c, the top comment).
 * Return: where the caller writes the entry, header included.
 */
VISIBLE_IF_KUNIT void *iolayers_ring_reserve(struct iolayers_ring *rg, u32 len)
{
	u32 end = rg->size - rg->head;
	void *p;

	if (unlikely(end < len)) {
		struct iolayers_ring_hdr *pad;

		iolayers_ring_room(rg, end);
		pad = (void *)(rg->data + rg->head);
		pad->kind = IOLAYERS_EV_PAD;
		pad->len = end;
		rg->used += end;
		rg->head = 0;
	}
	iolayers_ring_room(rg, len);
	p = rg->data + rg->head;
	rg->head += len;
	if (rg->head == rg->size)
		rg->head = 0;
	rg->used += len;
	WRITE_ONCE(rg->entries, rg->entries + 1);
	return p;
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_ring_reserve);

/* Throw away every entry of @rg (its counts stay). */
static void iolayers_ring_clear(struct iolayers_ring *rg)
{
	rg->head = 0;
	rg->tail = 0;
	rg->used = 0;
	WRITE_ONCE(rg->entries, 0);
}

/* Zero what a record of @len bytes copied into @r did not have. */
static void iolayers_rec_pad(struct iolayers_flow_rec *r, size_t len)
{
	if (len < sizeof(*r))
		memset((char *)r + len, 0, sizeof(*r) - len);
}

/* A record from a ring, its BLOCK/DEVICE part zero if it had none. */
static void iolayers_rec_load(struct iolayers_flow_rec *out, const struct iolayers_ring_hdr *h)
{
	size_t len = min_t(size_t, h->len, sizeof(*out));

	memcpy(out, h, len);
	iolayers_rec_pad(out, len);
}

/* A read's file offset: the p* calls' own, else the one its VFS or FS got. */
static s64 iolayers_read_pos(const struct iolayers_read_state *rd)
{
	if (rd->sys.pos >= 0)
		return rd->sys.pos;
	if (rd->vfs.start)
		return rd->vfs.pos;
	return rd->fs.reached ? rd->fs.pos : -1;
}

/* A request's own part of its record (io_uring, AIO). */
static noinline void iolayers_req_fill(struct iolayers_flow_rec *r,
				       const struct iolayers_read_uring *ur, u8 via)
{
	r->tid = ur->tid;
	r->tgid = ur->tgid;
	memcpy(r->comm, ur->comm, sizeof(r->comm));
	r->via = via;
	r->attempts = ur->attempts;
	r->where = ur->where;
	r->ur_issue_off = ur->first ? ur->issue_off : -1;
	r->ur_issue_ns = ur->first ? ur->issue_ns : 0;
}

static void iolayers_flow_fill(struct iolayers_flow_rec *r, const struct iolayers_task_flow *f,
			       long ret, u64 now, int cache, bool blk)
{
	bool fs;

	r->end_ns = now;
	r->seq = f->seq;
	if (unlikely(iolayers_via_request(f->rd.sys.via))) {
		/* A request: its submitter's, wherever it ends. */
		iolayers_req_fill(r, &f->rd.ur, f->rd.sys.via);
	} else {
		r->tid = current->pid;
		r->tgid = current->tgid;
		memcpy(r->comm, current->comm, sizeof(r->comm));
		r->via = f->rd.sys.via;
		r->attempts = 0;
		r->where = 0;
		r->vfs_off = f->rd.vfs.start ? f->rd.vfs.off : -1;
		r->vfs_ns = f->rd.vfs.start ? f->rd.vfs.ns : 0;
	}
	r->nr = f->rd.sys.nr;
	r->fd = f->rd.sys.fd;
	r->pos = iolayers_read_pos(&f->rd);
	r->ino = f->rd.file.ino;
	r->fs_dev = f->rd.file.dev;
	r->req = f->rd.sys.req;
	r->ret = ret;
	r->cache = cache;
	r->sys_ns = f->rd.sys.ns;
	/* @rd.sock holds an earlier read's unless this one's SOCK entry came. */
	r->sock = f->rd.sock.start ? f->rd.sock.kind : IOLAYERS_SK_NONE;
	if (unlikely(r->sock)) {
		r->sock_off = f->rd.sock.off;
		r->tcp_off = f->rd.sock.tcp_start ? f->rd.sock.tcp_off : -1;
		r->wait_ns = f->rd.sock.waited ? max_t(u64, f->rd.sock.wait_ns, 1) : 0;
	} else {
		/* A fault's FS part is its page's range, for the cache's probes. */
		fs = f->rd.fs.reached && f->rd.sys.via != IOLAYERS_VIA_FAULT;
		r->fs_off = fs ? f->rd.fs.off : -1;
		r->fs_ns = fs ? f->rd.fs.ns : 0;
		r->ra_bytes = f->rd.cache.ra_pages << PAGE_SHIFT;
	}
	r->missed = f->rd.missed;
	if (blk)
		r->blk = f->blk;
}

/*
 * A record of @len bytes in @rg: its place, kept in @rg->recent under its
 * number, which it gets; a CPU without a ring counts it dropped.
 */
static struct iolayers_flow_rec *iolayers_ring_put(struct iolayers_ring *rg, u32 len)
{
	struct iolayers_flow_rec *r;

	if (unlikely(!rg->data)) {
		WRITE_ONCE(rg->dropped, rg->dropped + 1);
		return NULL;
	}
	r = iolayers_ring_reserve(rg, len);
	r->kind = IOLAYERS_EV_READ;
	r->len = len;
	r->wseq = rg->written;
	rg->recent[rg->written & rg->recent_mask] = (u8 *)r - rg->data;
	WRITE_ONCE(rg->written, rg->written + 1);
	return r;
}

/**
 * iolayers_stream_store() - Write the record of a completed read.
 * @f: the flow, ended
 * @ret: what the syscall returned
 * @now: CLOCK_MONOTONIC at sys_exit (iolayers_clock_now())
 * @cache: its cache state (enum iolayers_cache)
 *
 * The record is filled in place in this CPU's ring; a read at least
 * slow_us slow is also copied to the ring of slow reads.
 *
 * Context: task context (sys_exit), preemption disabled by the caller
 * from the ring's reservation to the record's last byte, so that its
 * readers, which run on this CPU with preemption off, never see half a
 * record (from 6.13 on, sys_exit's handlers are called preemptible).
 */
void iolayers_stream_store(const struct iolayers_task_flow *f, long ret, u64 now, int cache)
{
	struct iolayers_flow_rec *r, *slow;
	bool blk;

	if (!iolayers_ring_size[0])
		return;
	blk = f->blk.nr_bios || f->blk.nr_rqs;
	r = iolayers_ring_put(this_cpu_ptr(&iolayers_rings[0]),
			      blk ? IOLAYERS_REC_FULL : IOLAYERS_REC_SHORT);
	if (unlikely(!r))
		return;
	iolayers_flow_fill(r, f, ret, now, cache, blk);
	if (r->sys_ns >= READ_ONCE(iolayers_slow_ns)) {
		size_t hdr = offsetof(typeof(*r), end_ns);

		slow = iolayers_ring_put(this_cpu_ptr(&iolayers_rings[1]), r->len);
		if (slow)	/* all but its header and number */
			memcpy((void *)slow + hdr, (void *)r + hdr, r->len - hdr);
	}
	if (unlikely(READ_ONCE(iolayers_stream_waiting)))
		iolayers_stream_kick(this_cpu_ptr(&iolayers_rings[0]));
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
		return scnprintf(buf, size, " - - - - - -");
	n = scnprintf(buf, size, " %s %llu", iolayers_sock_names[r->sock], r->sys_ns - r->sock_off);
	n += iolayers_opt_format(buf + n, size - n, r->tcp_off >= 0, r->sys_ns - r->tcp_off);
	n += iolayers_opt_format(buf + n, size - n, r->wait_ns, r->wait_ns);
	n += scnprintf(buf + n, size - n, " %lld", r->sock_off);
	n += iolayers_opt_format(buf + n, size - n, r->tcp_off >= 0, r->tcp_off);
	return n;
}

static const char * const iolayers_where_names[] = IOLAYERS_URING_WHERE_NAMES;

/* The request columns of a line (io_uring, AIO), and its newline. */
static int iolayers_uring_format(char *buf, size_t size, const struct iolayers_flow_rec *r)
{
	char sep = ' ';
	unsigned int i;
	int n;

	if (!iolayers_via_request(r->via))
		return scnprintf(buf, size, " - - - -\n");
	n = scnprintf(buf, size, " %u", r->attempts);
	n += iolayers_opt_format(buf + n, size - n, r->ur_issue_off >= 0, r->ur_issue_ns);
	n += iolayers_opt_format(buf + n, size - n, r->ur_issue_off >= 0, r->ur_issue_off);
	for (i = 0; i < ARRAY_SIZE(iolayers_where_names); i++) {
		if (!(r->where & BIT(i)))
			continue;
		n += scnprintf(buf + n, size - n, "%c%s", sep, iolayers_where_names[i]);
		sep = ',';
	}
	if (sep == ' ')
		n += scnprintf(buf + n, size - n, " -");
	return n + scnprintf(buf + n, size - n, "\n");
}

/* The syscall column: the syscall's name, or "io_uring:" or "aio:" and the opcode's. */
static int iolayers_via_format(char *buf, size_t size, const struct iolayers_flow_rec *r)
{
	const char *op;

	if (r->via == IOLAYERS_VIA_SYSCALL)
		return scnprintf(buf, size, "%s",
				 iolayers_syscall_names[iolayers_syscall_index(r->nr)]);
	if (!iolayers_via_request(r->via))
		return scnprintf(buf, size, "%s", iolayers_via_prefix(r->via) ?: "?");
	op = iolayers_req_op_name(r->via, r->nr);
	return op ? scnprintf(buf, size, "%s:%s", iolayers_via_prefix(r->via), op) :
		    scnprintf(buf, size, "%s:%d", iolayers_via_prefix(r->via), r->nr);
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
	/* An io_uring request's VFS part holds its time issuing. */
	bool vfs = r->via == IOLAYERS_VIA_SYSCALL && r->vfs_off >= 0;
	char comm[TASK_COMM_LEN], via[32];
	const char *disk;
	dev_t dev;
	int i, n;

	/* One token per column: no blanks in the name. */
	for (i = 0; i < TASK_COMM_LEN - 1 && r->comm[i]; i++)
		comm[i] = isgraph(r->comm[i]) ? r->comm[i] : '?';
	comm[i] = '\0';
	iolayers_via_format(via, sizeof(via), r);
	n = scnprintf(buf, size, "%llu %llu %d %d %s %s %d %lld %llu %ld %s %llu", r->seq, start,
		      r->tid, r->tgid, i ? comm : "?", via, r->fd, r->pos, r->req,
		      r->ret, iolayers_cache_name(r->cache), r->sys_ns);
	n += iolayers_opt_format(buf + n, size - n, vfs, r->vfs_ns);
	n += iolayers_opt_format(buf + n, size - n, fs, r->fs_ns);
	n += iolayers_opt_format(buf + n, size - n, b->nr_rqs, b->queue_ns);
	n += iolayers_opt_format(buf + n, size - n, b->nr_rqs, b->service_ns);
	n += iolayers_opt_format(buf + n, size - n, b->device_at, b->device_ns);
	n += scnprintf(buf + n, size - n, " %u %u %llu %llu %llu %u %u", b->nr_bios, b->nr_rqs,
		       b->bio_bytes, b->rq_bytes, r->sock ? 0 : r->ra_bytes, b->requeues,
		       b->errors);
	n += iolayers_opt_format(buf + n, size - n, vfs, r->vfs_off);
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
	n += iolayers_sock_format(buf + n, size - n, r);
	return n + iolayers_uring_format(buf + n, size - n, r);
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

/* Records iolayers_cpu_copy() copies at a time (preemption off). */
#define IOLAYERS_COPY_RECS	64

/* The arguments of iolayers_cpu_copy(). */
struct iolayers_copy {
	struct iolayers_ring *rg;
	struct iolayers_flow_rec *out;
	unsigned int n;		/* records copied to @out */
	bool started;		/* @next and @end are set */
	unsigned long next;	/* the number of the next record to copy */
	unsigned long end;	/* one past the newest record to copy */
	unsigned int keep;
};

/*
 * Copy the newest @keep records of one CPU's ring, oldest first, at most
 * IOLAYERS_COPY_RECS at a time: the first call fixes which (the newest
 * when it runs), each finds a record by its place in @recent, and one
 * the ring no longer holds (written over or taken since) is skipped.
 * Where no writer can be mid-record (iolayers_on_cpu()).
 */
static int iolayers_cpu_copy(void *arg)
{
	struct iolayers_copy *a = arg;
	const struct iolayers_ring *rg = a->rg;
	unsigned long held;
	unsigned int i;

	preempt_disable();
	held = min_t(unsigned long, rg->entries, rg->recent_mask + 1);
	if (!a->started) {
		a->started = true;
		a->end = rg->written;
		a->next = a->end - min_t(unsigned long, held, a->keep);
	}
	for (i = 0; i < IOLAYERS_COPY_RECS && a->next != a->end; i++, a->next++) {
		/* Still held: not older than the oldest the ring keeps. */
		if (rg->written - a->next > held)
			continue;
		iolayers_rec_load(&a->out[a->n++],
				  (const void *)(rg->data +
						 rg->recent[a->next & rg->recent_mask]));
	}
	preempt_enable();
	return 0;
}

/**
 * iolayers_stream_snapshot() - Copy the newest completed reads, without
 *	consuming them.
 * @slow: the slow reads' rings instead of the stream's
 * @n: set to the number of records returned
 *
 * Memory stays at twice flows= records whatever the number of CPUs. Each
 * CPU's ring is copied on that CPU, a few records at a time between its
 * writers' records: its newest when the copy began, less those the ring
 * lost meanwhile (written over, or taken by the stream's reader, which
 * also took those it took before).
 *
 * Context: process context, may sleep.
 * Return: at most flows= records, oldest first, to be kvfree()d; NULL
 * when there are none or on allocation failure (@n is 0 then).
 */
struct iolayers_flow_rec *iolayers_stream_snapshot(bool slow, unsigned int *n)
{
	unsigned int total = 0, kept = iolayers_flows_kept;
	struct iolayers_flow_rec *all;
	int cpu;

	*n = 0;
	if (!iolayers_ring_size[slow] || !kept)
		return NULL;
	all = kvmalloc_array(2 * (size_t)kept, sizeof(*all), GFP_KERNEL);
	if (!all)
		return NULL;
	mutex_lock(&iolayers_stream_mutex);
	/* An offline CPU's ring keeps its records; a CPU without one has none. */
	for_each_possible_cpu(cpu) {
		struct iolayers_copy a = {
			.rg = &per_cpu(iolayers_rings, cpu)[slow],
			.out = all + total,
			.keep = kept,
		};

		if (!iolayers_ring_ready(a.rg))
			continue;
		do {
			iolayers_on_cpu(cpu, iolayers_cpu_copy, &a);
			cond_resched();
		} while (a.next != a.end);
		total += a.n;
		if (total > kept)
			total = iolayers_recs_keep_newest(all, total, kept);
	}
	mutex_unlock(&iolayers_stream_mutex);
	*n = iolayers_recs_keep_newest(all, total, kept);
	return all;
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_stream_snapshot);

/**
 * iolayers_stream_bytes() - Memory the rings take.
 *
 * Return: bytes, over every CPU that has rings (an offline one keeps
 * them).
 */
size_t iolayers_stream_bytes(void)
{
	size_t bytes = 0;
	int k, cpu;

	for_each_possible_cpu(cpu) {
		for (k = 0; k < 2; k++) {
			const struct iolayers_ring *rg = &per_cpu(iolayers_rings, cpu)[k];

			if (iolayers_ring_ready(rg))
				bytes += rg->size;
		}
	}
	return bytes;
}

/**
 * iolayers_stream_show_stats() - The stream's part of `stats`: per ring
 *	and CPU (rows "stream/CPU" and "slow/CPU") the records written,
 *	overwritten before any reader took them, and not written (no ring),
 *	the ring's bytes and the records it holds unread; then what the
 *	stream's reader was given and what it lost.
 * @m: the seq_file of `stats`
 *
 * Counts read while writers go on: each is a moment's, not one moment's
 * together.
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
		for_each_possible_cpu(cpu) {
			const struct iolayers_ring *rg = &per_cpu(iolayers_rings, cpu)[k];

			u32 size = iolayers_ring_ready(rg) ? rg->size : 0;

			if (!size && !READ_ONCE(rg->dropped))
				continue;	/* no ring: never online */
			seq_printf(m, "%s/%-*d %12lu %12lu %12lu %12u %12lu\n", names[k],
				   9 - (int)strlen(names[k]), cpu, READ_ONCE(rg->written),
				   READ_ONCE(rg->overwritten), READ_ONCE(rg->dropped), size,
				   READ_ONCE(rg->entries));
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
	seq_printf(m, "%-20s %12lld\n", "stream_vanished",
		   (long long)atomic64_read(&iolayers_stream_vanished));
	seq_printf(m, "%-20s %12lld\n", "stream_batches",
		   (long long)atomic64_read(&iolayers_stream_batches));
	seq_printf(m, "%-20s %12lld\n", "stream_batch_full",
		   (long long)atomic64_read(&iolayers_stream_batch_full));
}

/* Most bytes one record takes in stream/raw: a loss, then a read. */
#define IOLAYERS_RAW_MAX (sizeof(struct iolayers_rec_lost) + sizeof(struct iolayers_rec_read))

/* Records taken from one CPU's ring at a time (on that CPU). */
#define IOLAYERS_STAGE_RECS	16

/*
 * Records taken from one CPU's ring and not yet handed out, oldest at
 * @head: each with the count of records its ring wrote over before it.
 */
struct iolayers_stage {
	unsigned int head;
	unsigned int n;
	struct {
		struct iolayers_flow_rec rec;
		unsigned long lost;
	} slot[IOLAYERS_STAGE_RECS];
};

/* What the reader knows of one CPU's ring. */
struct iolayers_reader_cpu {
	u32 next_wseq;		/* the wseq its next record should have */
	unsigned long overwritten;	/* the ring's count at the last take */
	struct iolayers_stage stage;
};

/*
 * Bytes of binary records stream/raw's reader gathers before it copies
 * them out at once: a copy_to_user() of a record each cost about a
 * hundred instructions more per record than its bytes (the call, its
 * checks of the kernel object and of the user range).
 */
#define IOLAYERS_RAW_BATCH	(16 * 1024)

/*
 * An open stream/events or stream/raw: a record's text, partly copied
 * out, in @line; or binary records, @off to @len of @buf (each goes out
 * whole).
 */
struct iolayers_stream_reader {
	struct mutex lock;	/* threads reading the one open file */
	bool raw;
	bool said_vanished;	/* iolayers_stream_gap() spoke */
	u64 due_ns;		/* 0, or: wait for more records until then */
	size_t len;
	size_t off;
	struct iolayers_reader_cpu *cpus;	/* per possible CPU, nr_cpu_ids */
	char *buf;		/* raw: IOLAYERS_RAW_BATCH bytes */
	char line[IOLAYERS_FLOW_LINE_MAX + 64] __aligned(8);
};

static_assert(IOLAYERS_RAW_BATCH >= 2 * IOLAYERS_RAW_MAX);

/*
 * Does @r go to stream/raw in brief (struct iolayers_rec_brief)? A read
 * its ring kept without a BLOCK/DEVICE part, not a socket's, not a
 * request's: its full record's other fields would all say "not reached".
 */
static bool iolayers_rec_brief(const struct iolayers_flow_rec *r)
{
	return r->len < IOLAYERS_REC_FULL && !r->sock && !iolayers_via_request(r->via);
}

/* A read's brief binary record, at @buf; its size. */
static size_t iolayers_rec_to_brief(const struct iolayers_flow_rec *r, int cpu, void *buf)
{
	struct iolayers_rec_brief *o = buf;

	o->hdr.type = IOLAYERS_REC_BRIEF;
	o->hdr.size = sizeof(*o);
	o->hdr.cpu = cpu;
	o->seq = r->seq;
	o->start_ns = r->end_ns - r->sys_ns;
	o->pos = r->pos;
	o->req = r->req;
	o->ret = r->ret;
	o->ino = r->ino;
	o->sys_ns = r->sys_ns;
	o->vfs_ns = !r->via && r->vfs_off >= 0 ? r->vfs_ns : -1;
	o->fs_ns = r->fs_off >= 0 ? r->fs_ns : -1;
	o->vfs_off = r->via ? -1 : r->vfs_off;
	o->fs_off = r->fs_off;
	o->ra_bytes = r->ra_bytes;
	o->tid = r->tid;
	o->tgid = r->tgid;
	o->fd = r->fd;
	o->fs_major = MAJOR(r->fs_dev);
	o->fs_minor = MINOR(r->fs_dev);
	o->syscall = r->via == IOLAYERS_VIA_SYSCALL ? iolayers_syscall_index(r->nr) : 0;
	o->cache = r->cache;
	o->missed = r->missed;
	o->via = r->via;
	memcpy(o->comm, r->comm, sizeof(o->comm) - 1);
	o->comm[sizeof(o->comm) - 1] = '\0';
	return sizeof(*o);
}

static_assert(sizeof(((struct iolayers_flow_rec *)0)->comm) >=
	      sizeof(((struct iolayers_rec_brief *)0)->comm));

/* A read's full binary record (stream/raw), from its kept record. */
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
	o->ns[IOLAYERS_L_VFS] = !r->via && r->vfs_off >= 0 ? r->vfs_ns : -1;
	o->ns[IOLAYERS_L_FS] = !r->sock && r->fs_off >= 0 ? r->fs_ns : -1;
	o->ns[IOLAYERS_L_QUEUE] = b->nr_rqs ? b->queue_ns : -1;
	o->ns[IOLAYERS_L_SERVICE] = b->nr_rqs ? b->service_ns : -1;
	o->ns[IOLAYERS_L_DEVICE] = b->device_at ? b->device_ns : -1;
	o->vfs_off = r->via ? -1 : r->vfs_off;
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
	o->via = r->via;
	if (iolayers_via_request(r->via)) {
		o->syscall = r->nr;
		o->attempts = r->attempts;
		o->where = r->where;
		o->ur_issue_off = r->ur_issue_off;
		o->ur_issue_ns = r->ur_issue_off >= 0 ? (s64)r->ur_issue_ns : -1;
	} else {
		o->syscall = r->via == IOLAYERS_VIA_SYSCALL ? iolayers_syscall_index(r->nr) : 0;
		o->ur_issue_off = -1;
		o->ur_issue_ns = -1;
	}
	o->cache = r->cache;
	o->missed = r->missed;
	o->ndisks = hweight16(b->disk_mask);
	memcpy(o->comm, r->comm, min(sizeof(o->comm), sizeof(r->comm)));
	o->comm[sizeof(o->comm) - 1] = '\0';
	if (b->nr_rqs)
		strscpy(o->disk, disk ?: "?", sizeof(o->disk));
}

/**
 * iolayers_rec_put_raw() - A read's binary record for stream/raw.
 * @r: the read's kept record (its block part zero, or not read, when
 *	@r->len says it has none)
 * @cpu: the CPU whose ring kept it
 * @buf: where it goes, room for struct iolayers_rec_read
 *
 * Return: its size: struct iolayers_rec_brief's where the read had no
 * block part and is not a socket's or a request's, else struct
 * iolayers_rec_read's.
 */
VISIBLE_IF_KUNIT size_t iolayers_rec_put_raw(const struct iolayers_flow_rec *r, int cpu, void *buf)
{
	if (iolayers_rec_brief(r))
		return iolayers_rec_to_brief(r, cpu, buf);
	iolayers_rec_to_raw(r, cpu, buf);
	return sizeof(struct iolayers_rec_read);
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_rec_put_raw);

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

/*
 * Records written to @cpu's ring between the last one the reader took
 * from it and this one (numbered @wseq), less the @lost ones the ring
 * said it wrote over: records lost without a count, which the ring's
 * design leaves none of; counted, and said once, should one be.
 */
static unsigned long iolayers_stream_gap(struct iolayers_stream_reader *rd, int cpu, u32 wseq,
					 unsigned long lost)
{
	u32 gap = wseq - rd->cpus[cpu].next_wseq;

	rd->cpus[cpu].next_wseq = wseq + 1;
	if (gap <= lost)
		return 0;
	atomic64_add(gap - lost, &iolayers_stream_vanished);
	if (!rd->said_vanished) {
		rd->said_vanished = true;
		pr_warn_ratelimited("stream: cpu %d: %lu records before its record %u missing and not said overwritten; counted lost\n",
				    cpu, gap - lost, wseq);
	}
	return gap - lost;
}

/* The arguments of iolayers_stage_fill() and iolayers_cpu_drain(). */
struct iolayers_fill {
	struct iolayers_ring *rg;
	struct iolayers_reader_cpu *c;
	bool raw;	/* for stream/raw: a brief record's block part unread */
};

/*
 * Take records from one CPU's ring into the reader's stage until the
 * stage is full or the ring is empty; the first of them carries the
 * count of records the ring wrote over since the last take (all older
 * than anything it still holds). Where no writer can be mid-record
 * (iolayers_on_cpu()).
 */
static int iolayers_stage_fill(void *arg)
{
	struct iolayers_fill *a = arg;
	struct iolayers_ring *rg = a->rg;
	struct iolayers_stage *st = &a->c->stage;

	preempt_disable();
	while (st->n < IOLAYERS_STAGE_RECS && rg->entries) {
		unsigned int i = (st->head + st->n) % IOLAYERS_STAGE_RECS;
		const struct iolayers_ring_hdr *h = iolayers_ring_pop(rg);

		if (h->kind != IOLAYERS_EV_READ)
			continue;
		if (a->raw && iolayers_rec_brief((const void *)h))
			memcpy(&st->slot[i].rec, h, h->len);	/* no zeros it would not read */
		else
			iolayers_rec_load(&st->slot[i].rec, h);
		st->slot[i].lost = rg->overwritten - a->c->overwritten;
		a->c->overwritten = rg->overwritten;
		st->n++;
	}
	preempt_enable();
	return 0;
}

/*
 * At the open: throw away what one CPU's ring holds (the stream begins
 * here) and know its counts from now on. Where iolayers_stage_fill() runs.
 */
static int iolayers_cpu_drain(void *arg)
{
	struct iolayers_fill *a = arg;
	struct iolayers_ring *rg = a->rg;

	preempt_disable();
	iolayers_ring_clear(rg);
	a->c->next_wseq = rg->written;
	a->c->overwritten = rg->overwritten;
	preempt_enable();
	return 0;
}

/* Records @cpu's ring holds, read from anywhere: a hint, not a take. */
static bool iolayers_cpu_unread(int cpu)
{
	const struct iolayers_ring *rg = &per_cpu(iolayers_rings, cpu)[0];

	return READ_ONCE(rg->entries);
}

/*
 * Hand out the oldest record of all CPUs' rings: put its text (after a
 * "# lost" line if that CPU's ring wrote over records before it) in
 * @rd->line, or add its binary records to @rd->buf, which has room for
 * IOLAYERS_RAW_MAX more. False when no CPU's ring has a record to take.
 */
static bool iolayers_stream_next(struct iolayers_stream_reader *rd)
{
	struct iolayers_flow_rec *r;
	struct iolayers_stage *st;
	unsigned long lost;
	u64 best_ns = U64_MAX;
	int cpu, best = -1;
	size_t n = 0;

	for_each_possible_cpu(cpu) {
		u64 t;

		st = &rd->cpus[cpu].stage;
		if (!st->n && iolayers_cpu_unread(cpu)) {
			struct iolayers_fill a = {
				.rg = &per_cpu(iolayers_rings, cpu)[0],
				.c = &rd->cpus[cpu],
				.raw = rd->raw,
			};

			iolayers_on_cpu(cpu, iolayers_stage_fill, &a);
		}
		if (!st->n)
			continue;
		t = st->slot[st->head].rec.end_ns;
		if (best < 0 || t < best_ns) {
			best_ns = t;
			best = cpu;
		}
	}
	if (best < 0)
		return false;
	st = &rd->cpus[best].stage;
	r = &st->slot[st->head].rec;
	lost = st->slot[st->head].lost;
	st->head = (st->head + 1) % IOLAYERS_STAGE_RECS;
	st->n--;
	lost += iolayers_stream_gap(rd, best, r->wseq, lost);
	if (lost)
		atomic64_add(lost, &iolayers_stream_lost);
	if (rd->raw) {
		char *p = rd->buf + rd->len;

		if (lost)
			p += iolayers_lost_to_raw(p, best, lost);
		p += iolayers_rec_put_raw(r, best, p);
		rd->len = p - rd->buf;
		return true;
	}
	/* Delivered: a text reader takes a record's line whatever its size. */
	atomic64_inc(&iolayers_stream_delivered);
	if (lost)
		n = scnprintf(rd->line, sizeof(rd->line), "# lost %lu cpu %d\n", lost, best);
	n += iolayers_flow_format(rd->line + n, sizeof(rd->line) - n, r);
	rd->len = n;
	rd->off = 0;
	return true;
}

/*
 * A record the reader can take: one staged, or one a CPU's ring holds,
 * on any CPU (an offline CPU keeps its records). From counts only:
 * called as a wait's condition (no sleeping, no taking).
 */
static bool iolayers_stream_ready(const struct iolayers_stream_reader *rd)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		if (rd->cpus[cpu].stage.n || iolayers_cpu_unread(cpu))
			return true;
	}
	return false;
}

/*
 * Sleep until a record can be taken; -ERESTARTSYS on a signal. The ANY bit
 * stays set for the producer to clear (or a poll() on another thread of
 * the file would lose it).
 */
static int iolayers_stream_wait(struct iolayers_stream_reader *rd)
{
	long ret;

	do {
		set_bit(IOLAYERS_WAKE_ANY, &iolayers_stream_waiting);
		smp_mb__after_atomic();	/* the bit before the look at the buffers */
		ret = wait_event_interruptible_timeout(iolayers_stream_wq,
						       iolayers_stream_ready(rd), HZ / 10);
	} while (!ret);
	return ret < 0 ? ret : 0;
}

/* Is a CPU's stream ring half full? Read from anywhere: a hint. */
static bool iolayers_stream_full(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct iolayers_ring *rg = &per_cpu(iolayers_rings, cpu)[0];
		u32 size = READ_ONCE(rg->size);

		/* A CPU that never came online has no ring (size 0). */
		if (size && READ_ONCE(rg->used) >= size / 2)
			return true;
	}
	return false;
}

/*
 * A batch begins now (the reader took every record, or a first one came
 * to a reader that had found none): take the next records batch_us on.
 */
static void iolayers_stream_batch_from(struct iolayers_stream_reader *rd)
{
	u64 batch = READ_ONCE(iolayers_batch_ns);

	rd->due_ns = batch ? ktime_get_ns() + batch : 0;
}

/*
 * Wait, before taking records, until the batch is due or a CPU's ring
 * half full (a signal ends the wait too: what is there is taken). An
 * hrtimer ends it: the timer wheel would round a long wait up by an
 * eighth.
 */
static void iolayers_stream_batch(struct iolayers_stream_reader *rd)
{
	u64 now = ktime_get_ns();

	if (rd->due_ns > now && !iolayers_stream_full()) {
		int ret;

		set_bit(IOLAYERS_WAKE_FULL, &iolayers_stream_waiting);
		smp_mb__after_atomic();	/* the bit before the look at the rings */
		ret = wait_event_interruptible_hrtimeout(iolayers_stream_wq,
							 iolayers_stream_full(),
							 ns_to_ktime(rd->due_ns - now));
		clear_bit(IOLAYERS_WAKE_FULL, &iolayers_stream_waiting);
		atomic64_inc(&iolayers_stream_batches);
		/* Ended by a half-full ring, not found so as the timer ended it. */
		if (!ret && ktime_get_ns() < rd->due_ns)
			atomic64_inc(&iolayers_stream_batch_full);
	}
	rd->due_ns = 0;
}

/*
 * No record to hand out: -EAGAIN without blocking, else wait for one and
 * for the batch it begins; 0 when there may be one to take now.
 */
static int iolayers_stream_none(struct iolayers_stream_reader *rd, bool block)
{
	int ret;

	if (!block)
		return -EAGAIN;
	if (signal_pending(current))
		return -ERESTARTSYS;
	ret = iolayers_stream_wait(rd);
	if (ret)
		return ret;
	iolayers_stream_batch_from(rd);
	iolayers_stream_batch(rd);
	return 0;
}

/*
 * Bytes of the whole binary records from @rd->off on that fit in @room;
 * @reads: how many of them are reads.
 */
static size_t iolayers_raw_whole(const struct iolayers_stream_reader *rd, size_t room,
				 unsigned int *reads)
{
	size_t n = 0;

	*reads = 0;
	while (rd->off + n < rd->len) {
		const struct iolayers_rec_hdr *h = (const void *)(rd->buf + rd->off + n);

		if (n + h->size > room)
			break;
		n += h->size;
		*reads += h->type != IOLAYERS_REC_LOST && h->type != IOLAYERS_REC_START;
	}
	return n;
}

/*
 * stream/raw: whole records, gathered in @rd->buf as many as the read has
 * room for and copied out at once (records left from a read that faulted
 * go first).
 */
static ssize_t raw_read(struct iolayers_stream_reader *rd, char __user *ubuf, size_t count,
			bool block)
{
	ssize_t done = 0;
	int ret = 0;

	while (count - done >= IOLAYERS_RAW_MAX) {
		size_t room = count - done;
		unsigned int reads;
		bool more = true;
		size_t n;

		if (rd->off == rd->len) {
			rd->off = 0;
			rd->len = 0;
		}
		while (rd->len + IOLAYERS_RAW_MAX <= IOLAYERS_RAW_BATCH &&
		       rd->len - rd->off + IOLAYERS_RAW_MAX <= room &&
		       (more = iolayers_stream_next(rd)))
			;
		n = iolayers_raw_whole(rd, room, &reads);
		if (!n) {
			if (done) {
				/* All taken: the next read waits for a batch. */
				iolayers_stream_batch_from(rd);
				break;
			}
			ret = iolayers_stream_none(rd, block);
			if (ret)
				break;
			continue;
		}
		if (copy_to_user(ubuf + done, rd->buf + rd->off, n)) {
			ret = -EFAULT;
			break;
		}
		/* Delivered once copied out (a faulted read's wait for the next). */
		atomic64_add(reads, &iolayers_stream_delivered);
		rd->off += n;
		done += n;
		if (!more) {
			iolayers_stream_batch_from(rd);
			break;
		}
	}
	return done ? done : ret;
}

/* stream/events: text, a record's line copied out in as many reads as it takes. */
static ssize_t text_read(struct iolayers_stream_reader *rd, char __user *ubuf, size_t count,
			 bool block)
{
	ssize_t done = 0;
	int ret = 0;

	while (done < count) {
		size_t n;

		if (rd->off == rd->len && !iolayers_stream_next(rd)) {
			if (done) {
				/* All taken: the next read waits for a batch. */
				iolayers_stream_batch_from(rd);
				break;
			}
			ret = iolayers_stream_none(rd, block);
			if (ret)
				break;
			continue;
		}
		n = min_t(size_t, count - done, rd->len - rd->off);
		if (copy_to_user(ubuf + done, rd->line + rd->off, n)) {
			ret = -EFAULT;
			break;
		}
		rd->off += n;
		done += n;
	}
	return done ? done : ret;
}

static ssize_t events_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	struct iolayers_stream_reader *rd = file->private_data;
	bool block = !(file->f_flags & O_NONBLOCK);
	ssize_t ret;

	if (rd->raw && count < IOLAYERS_RAW_MAX) {
		pr_err_ratelimited("read of %zu bytes from stream/raw: want at least %zu (whole records)\n",
				   count, IOLAYERS_RAW_MAX);
		return -EINVAL;
	}
	if (mutex_lock_interruptible(&rd->lock))
		return -ERESTARTSYS;
	if (count && block && rd->due_ns)
		iolayers_stream_batch(rd);
	ret = rd->raw ? raw_read(rd, ubuf, count, block) : text_read(rd, ubuf, count, block);
	mutex_unlock(&rd->lock);
	return ret;
}

static __poll_t events_poll(struct file *file, poll_table *wait)
{
	struct iolayers_stream_reader *rd = file->private_data;

	poll_wait(file, &iolayers_stream_wq, wait);
	set_bit(IOLAYERS_WAKE_ANY, &iolayers_stream_waiting);
	smp_mb__after_atomic();	/* the bit before the look at the buffers */
	if (READ_ONCE(rd->off) != READ_ONCE(rd->len) || iolayers_stream_ready(rd))
		return EPOLLIN | EPOLLRDNORM;
	return 0;
}

static void iolayers_reader_free(struct iolayers_stream_reader *rd)
{
	kvfree(rd->buf);
	kvfree(rd->cpus);
	kfree(rd);
}

static struct iolayers_stream_reader *iolayers_reader_alloc(bool raw)
{
	struct iolayers_stream_reader *rd = kzalloc(sizeof(*rd), GFP_KERNEL);

	if (!rd)
		return NULL;
	rd->cpus = kvcalloc(nr_cpu_ids, sizeof(*rd->cpus), GFP_KERNEL);
	if (raw)
		rd->buf = kvmalloc(IOLAYERS_RAW_BATCH, GFP_KERNEL);
	if (!rd->cpus || (raw && !rd->buf)) {
		iolayers_reader_free(rd);
		return NULL;
	}
	return rd;
}

/*
 * One reader at a time (-EBUSY for another): each record goes to exactly
 * one place. The stream starts at the open: what the rings held is
 * consumed unseen (and leaves `flows`), so that what the reader gets,
 * plus what it is told was lost, is every read completed while it is
 * open.
 */
static int iolayers_stream_open(struct inode *inode, struct file *file, bool raw)
{
	struct iolayers_stream_reader *rd;
	int cpu;

	if (!iolayers_ring_size[0])
		return -ENODATA;	/* flows=0: no records at all */
	if (atomic_cmpxchg(&iolayers_stream_busy, IOLAYERS_STREAM_FREE,
			   IOLAYERS_STREAM_OPENING) != IOLAYERS_STREAM_FREE)
		return -EBUSY;
	rd = iolayers_reader_alloc(raw);
	if (!rd) {
		atomic_set(&iolayers_stream_busy, IOLAYERS_STREAM_FREE);
		return -ENOMEM;
	}
	mutex_init(&rd->lock);
	rd->raw = raw;
	if (raw) {
		struct iolayers_rec_start *st = (void *)rd->buf;

		memset(st, 0, sizeof(*st));	/* rd->buf is not zeroed */
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
		struct iolayers_fill a = {
			.rg = &per_cpu(iolayers_rings, cpu)[0],
			.c = &rd->cpus[cpu],
		};

		/* A CPU without a ring yet starts with none written. */
		if (iolayers_ring_ready(a.rg))
			iolayers_on_cpu(cpu, iolayers_cpu_drain, &a);
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

/* Empty one CPU's rings and zero their counts (iolayers_on_cpu()). */
static int iolayers_cpu_reset(void *arg)
{
	struct iolayers_ring *rgs = arg;
	int k;

	preempt_disable();
	for (k = 0; k < 2; k++) {
		struct iolayers_ring *rg = &rgs[k];

		iolayers_ring_clear(rg);
		rg->written = 0;
		rg->overwritten = 0;
		rg->dropped = 0;
	}
	preempt_enable();
	return 0;
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
	int cpu;

	mutex_lock(&iolayers_stream_mutex);
	if (atomic_read(&iolayers_stream_busy) == IOLAYERS_STREAM_FREE) {
		for_each_possible_cpu(cpu)
			iolayers_on_cpu(cpu, iolayers_cpu_reset, per_cpu(iolayers_rings, cpu));
		atomic64_set(&iolayers_stream_delivered, 0);
		atomic64_set(&iolayers_stream_lost, 0);
		atomic64_set(&iolayers_stream_vanished, 0);
		atomic64_set(&iolayers_stream_batches, 0);
		atomic64_set(&iolayers_stream_batch_full, 0);
	}
	mutex_unlock(&iolayers_stream_mutex);
}

/*
 * A CPU comes online (or is online at load): its rings, unless it had
 * them already (an offline CPU keeps its records). Failing, the CPU does
 * not come online, as with the kernel's ring buffer: a CPU without rings
 * would lose every read it ran.
 */
static int iolayers_ring_prepare(unsigned int cpu)
{
	int k;

	for (k = 0; k < 2; k++) {
		struct iolayers_ring *rg = &per_cpu(iolayers_rings, cpu)[k];
		u8 *data;

		if (rg->data)
			continue;
		if (!rg->recent) {
			rg->recent = kvzalloc_node((size_t)iolayers_recent_n * sizeof(*rg->recent),
						   GFP_KERNEL, cpu_to_node(cpu));
			if (!rg->recent)
				return -ENOMEM;
			rg->recent_mask = iolayers_recent_n - 1;
		}
		data = kvzalloc_node(iolayers_ring_size[k], GFP_KERNEL, cpu_to_node(cpu));
		if (!data)
			return -ENOMEM;
		rg->size = iolayers_ring_size[k];
		/* The rest before its pointer, for readers on other CPUs. */
		smp_store_release(&rg->data, data);
	}
	return 0;
}

/**
 * iolayers_stream_exit() - Free the rings.
 *
 * Context: process context (unload, or a load that failed), no probe
 * attached, no file open.
 */
void iolayers_stream_exit(void)
{
	int k, cpu;

	irq_work_sync(&iolayers_stream_iw);
	if (iolayers_ring_hp > 0)
		cpuhp_remove_state_nocalls(iolayers_ring_hp);
	iolayers_ring_hp = 0;
	for_each_possible_cpu(cpu) {
		for (k = 0; k < 2; k++) {
			struct iolayers_ring *rg = &per_cpu(iolayers_rings, cpu)[k];

			kvfree(rg->data);
			kvfree(rg->recent);
			memset(rg, 0, sizeof(*rg));
		}
	}
	iolayers_ring_size[0] = 0;
	iolayers_ring_size[1] = 0;
	iolayers_recent_n = 0;
}

/**
 * iolayers_stream_init() - Size the rings and give every online CPU its
 *	own (and each CPU that comes online later): per CPU, buffer_kb in
 *	all, seven eighths for the stream and an eighth for the slow reads,
 *	each at least flows= records with BLOCK/DEVICE parts and two more
 *	(so that `flows` and `slow` can show the newest flows= even when one
 *	CPU made them all); none with flows=0.
 *
 * Context: process context (load), may sleep.
 * Return: 0, or a negative errno (-ENOMEM).
 */
int iolayers_stream_init(void)
{
	size_t all = (size_t)iolayers_buffer_kb << 10;
	size_t need = ((size_t)iolayers_flows_kept + 2) * IOLAYERS_REC_FULL;
	int ret, cpu;

	init_irq_work(&iolayers_stream_iw, iolayers_stream_wake_work);
	if (!iolayers_flows_kept)
		return 0;
	iolayers_ring_size[1] = ALIGN_DOWN(max(all / 8, need), 8);
	iolayers_ring_size[0] = ALIGN_DOWN(max(all - all / 8, need), 8);
	iolayers_recent_n = roundup_pow_of_two(iolayers_flows_kept);
	/*
	 * The CPUs online now get their rings here, not from the call's own
	 * invocation of the callback: before 5.14 it invokes it only for
	 * the dynamic online states, not for CPUHP_BP_PREPARE_DYN (5.10
	 * gave no CPU a ring). Under the hotplug lock: no CPU comes up
	 * between the two.
	 */
	cpus_read_lock();
	ret = cpuhp_setup_state_nocalls_cpuslocked(CPUHP_BP_PREPARE_DYN,
						   "iolayers/stream:prepare",
						   iolayers_ring_prepare, NULL);
	if (ret > 0) {
		iolayers_ring_hp = ret;
		for_each_online_cpu(cpu) {
			ret = iolayers_ring_prepare(cpu);
			if (ret)
				break;
		}
	}
	cpus_read_unlock();
	if (ret < 0) {
		iolayers_stream_exit();
		return ret;
	}
	return 0;
}
