// SPDX-License-Identifier: GPL-2.0
/*
 * The libbpf twin of iolayers: the module's measurement of a followed
 * process's reads written as a careful eBPF engineer would, for make
 * bench's comparison (Documentation/benchmarks.rst). CO-RE, one object for
 * every kernel with BTF.
 *
 * The same probe points as the module where BPF can attach to them:
 *  - raw syscall tracepoints (tp_btf/sys_enter, sys_exit), the followed
 *    process tested first, then the read family;
 *  - function entries (fentry) of vfs_read and vfs_readv (VFS), of
 *    filemap_read, shmem_file_read_iter, iomap_dio_rw and dax_iomap_rw (FS,
 *    the outermost one a read enters); iomap_dio_rw has seven arguments,
 *    which trampolines before 6.6 cannot take: the loader falls back to a
 *    kprobe there;
 *  - the page cache's mm_filemap_add_to_page_cache and sched_switch (the
 *    pages a read added and whether it waited for I/O: its cache state);
 *  - BLOCK: block_bio_queue binds a followed read's bios to it (in its
 *    own context), block_rq_insert, block_rq_issue and NVMe's
 *    nvme_setup_cmd bind a request through its bios wherever they run,
 *    block_rq_requeue, block_rq_complete (in the completion interrupt)
 *    folds the request's queue, service and device times into its reads;
 *    DEVICE: nvme_setup_cmd to nvme_complete_rq (tracepoints of the
 *    nvme_core module, found in its BTF);
 *  - SOCK and TCP: the entries of sock_recvmsg and of the protocols'
 *    recvmsg (inet, inet6, Unix), of tcp_recvmsg, of the waits for data
 *    (sk_wait_data, __skb_wait_for_more_packets, schedule_timeout) and of
 *    skb_copy_datagram_iter (the wait's end); tcp_v4_do_rcv and
 *    tcp_v6_do_rcv timed (fentry and fexit) for the TCP sockets followed
 *    reads read, until inet_sock_set_state says they closed or
 *    tcp_v4_destroy_sock destroys them;
 *  - io_uring's read requests from their submission (io_uring_submit_req,
 *    io_uring_submit_sqe before 6.4) to their CQE (io_uring_complete),
 *    Linux AIO's from aio_read() to aio_complete_rw(), keyed by the
 *    request (URING, AIO; their attempts' layers are the module's only);
 *  - with -f, page faults on a file's mapping (handle_mm_fault's fentry
 *    and fexit), each a read of its page: FAULT, BLOCK, DEVICE.
 * Per-read state lives in task local storage; what completions add to a
 * read (in an interrupt, where the reader's task is not at hand) in a hash
 * of thread ids; bios, requests and sockets in hashes by address (LRU: an
 * entry whose end was missed is evicted, not kept). Histograms of layer x
 * state x log2 bucket (count, sum, min, max, bytes, as the module's) in a
 * per-CPU array, one entry per state holding every layer's; every read's
 * record (the module's struct iolayers_flow_rec, byte for byte: the short
 * one without BLOCK part when the read queued no bio) goes to a BPF ring
 * buffer without a wakeup, drained by the loader every 10 ms; records the
 * buffer had no room for, and entries a map could not take, are counted.
 *
 * The floor (empty=1): the same programs, attached the same way, each
 * returning at once.
 *
 * Not here (the module has them): the file table of paths; stacked
 * devices' remaps, bio splits and request merges (make bench's NVMe
 * namespace has none); SCSI's dispatch and completion; a request's disk;
 * the check that a bio a read queues is its own file's (the module looks
 * at the bio's first page: a swap-in or another file's page is not bound);
 * a request reused while its entry lived (the module's "other life").
 * BPF has no lock a tracing program may take: a completion folding into a
 * read as it returns may be torn, where the module takes the read's lock.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "twin.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * Removals from socks (a reader that knows its socket is there looks again
 * only after one), and bios bound and requests made not yet completed (no
 * request is looked at while there are none: the module's empty tables).
 */
__u64 sock_forgets;
__s64 blk_live;

/* Set by the loader before the load: the verifier prunes on them. */
const volatile __u32 targ_tgid;
const volatile bool empty;
/* -r: the receive path timed (the module's rcv=1); else no socket learnt. */
const volatile bool rcv_on;

/* The read family of x86-64 (asm/unistd_64.h). */
#define NR_read		0
#define NR_pread64	17
#define NR_readv	19
#define NR_recvfrom	45
#define NR_recvmsg	47
#define NR_preadv	295
#define NR_preadv2	327

#define TWIN_PAGE_SHIFT	12
/* Defines, so not in BTF: linux/socket.h, linux/blk_types.h. */
#define TWIN_AF_UNIX	1
#define TWIN_AF_INET	2
#define TWIN_AF_INET6	10
#define TWIN_REQ_OP_MASK	0xff
/* include/linux/fs.h; a define, so not in BTF. */
#define TWIN_IOCB_DIRECT	(1 << 17)

/* What an FS probe point says about the page cache (as module/layers/fs.c). */
enum twin_fs_how {
	TWIN_FS_PAGECACHE,	/* filemap_read: the page cache serves it */
	TWIN_FS_ASKED,		/* shmem, iomap_dio_rw: IOCB_DIRECT at its word */
	TWIN_FS_DAX,		/* dax_iomap_rw: never the page cache */
};

/* One thread's read in progress. */
struct twin_read {
	__u64 seq;		/* reads of this thread so far */
	__u64 start_ns;
	__u64 vfs_start;
	__u64 fs_start;
	__s64 pos;		/* the p* calls' argument, else vfs_read's */
	__s64 fs_pos;
	__u64 first_index;
	__u64 last_index;
	__u64 ino;
	__u64 req;
	__u64 mapping;		/* compared only, never followed */
	__u64 added_pages;
	__u64 ra_pages;
	__u64 sk;		/* the socket read, compared only */
	__u64 last_sk;		/* a TCP socket known in socks (kept across reads) */
	__u64 last_sk_gen;	/* sock_forgets then */
	__u64 sock_start;
	__u64 tcp_start;
	__u64 wait_start;	/* a wait for data in progress */
	__u64 wait_ns;
	__u32 dev;
	__s32 nr;
	__s32 fd;
	__u8 active;
	__u8 fs_reached;
	__u8 direct;
	__u8 iowait;
	__u8 bound;		/* a bio was bound: its twin_acc is this read's */
	__u8 sock_kind;		/* enum iolayers_sock_kind */
	__u8 waited;
	__u8 fault;		/* a page fault's, not a syscall's */
	__u8 retried;		/* the fault returned VM_FAULT_RETRY: its retry comes */
	__u8 in_fault;		/* handle_mm_fault's call of this fault runs */
};

/* The kinds of socket (enum iolayers_sock_kind). */
#define TWIN_SK_TCP		1
#define TWIN_SK_TCP6		2
#define TWIN_SK_UDP		3
#define TWIN_SK_UDP6		4
#define TWIN_SK_UNIX_STREAM	5
#define TWIN_SK_UNIX_DGRAM	6
#define TWIN_SK_OTHER		7

/* What the BLOCK and DEVICE layers add to one thread's read in flight. */
struct twin_acc {
	__u64 seq;		/* the read's */
	__u8 open;		/* until its sys_exit */
	struct twin_blk blk;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);	/* thread id */
	__type(value, struct twin_acc);
} accs SEC(".maps");

/* A followed read's bio, until a request takes it. */
struct twin_bio {
	__u64 seq;
	__u64 queue_ns;
	__u32 tid;
	__u32 bytes;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);	/* struct bio * */
	__type(value, struct twin_bio);
} bios SEC(".maps");

/* The reads a request carries (as the module's struct iolayers_rq). */
#define TWIN_RQ_FLOWS	4
struct twin_rq {
	__u64 seq[TWIN_RQ_FLOWS];
	__u32 tid[TWIN_RQ_FLOWS];
	__u32 bytes[TWIN_RQ_FLOWS];
	__u32 nr_flows;
	__u32 requeues;
	__u64 queue_ns;		/* its first bio's queueing */
	__u64 insert_ns;
	__u64 first_issue_ns;
	__u64 issue_ns;
	__u64 queue_lat;
	__u64 setup_ns;
	__u64 devdone_ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);	/* struct request * */
	__type(value, struct twin_rq);
} rqs SEC(".maps");

/*
 * TCP sockets a followed read read, until they close; the value is the
 * start of the segment in tcp_v4_do_rcv/tcp_v6_do_rcv (the socket's lock
 * keeps them one at a time).
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);	/* struct sock * */
	__type(value, __u64);
} socks SEC(".maps");

/* The receive path's time per segment of followed TCP sockets. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct twin_hist);
} rcv SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct twin_read);
} reads SEC(".maps");

/* Every layer's histogram of one state: one lookup per read. */
struct twin_state_hists {
	struct twin_hist layer[TWIN_NR_LAYERS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TWIN_NR_STATES);
	__type(key, __u32);
	__type(value, struct twin_state_hists);
} hists SEC(".maps");

/* Per CPU: records written (a record's wseq), reads begun, the counters. */
struct twin_cpu {
	__u64 wseq;
	__u64 reads;
	__u64 n[TWIN_N_COUNTERS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct twin_cpu);
} cpus SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} events SEC(".maps");

/* The folio's page count field, renamed in 6.16 (CO-RE flavors). */
struct folio___nr_old {
	unsigned int _folio_nr_pages;
} __attribute__((preserve_access_index));

struct folio___nr_new {
	unsigned int _nr_pages;
} __attribute__((preserve_access_index));

static __always_inline bool twin_followed(void)
{
	return (__u32)(bpf_get_current_pid_tgid() >> 32) == targ_tgid;
}

static __always_inline struct twin_read *twin_read_of_current(void)
{
	struct twin_read *r = bpf_task_storage_get(&reads, bpf_get_current_task_btf(), 0, 0);

	return r && r->active ? r : 0;
}

/*
 * A read's id, unique across threads as the module's (a late completion
 * checks it): this CPU's reads begun, the CPU in the low 13 bits.
 */
static __always_inline __u64 twin_next_seq(void)
{
	struct twin_cpu *c;
	__u32 zero = 0;

	c = bpf_map_lookup_elem(&cpus, &zero);
	if (!c)
		return 0;
	return (++c->reads << 13) | bpf_get_smp_processor_id();
}

static __always_inline void twin_count(int which)
{
	__u32 zero = 0;
	struct twin_cpu *c = bpf_map_lookup_elem(&cpus, &zero);

	if (c && which < TWIN_N_COUNTERS)
		c->n[which]++;
}

/* Bytes a readv-family call asks for: its first 8 iovecs (0: unreadable). */
static __always_inline __u64 twin_iov_bytes(const struct iovec *uiov, unsigned long cnt)
{
	struct iovec iov;
	__u64 sum = 0;
	int i;

	for (i = 0; i < 8; i++) {
		if (i >= cnt)
			break;
		if (bpf_probe_read_user(&iov, sizeof(iov), &uiov[i]))
			return 0;
		sum += iov.iov_len;
	}
	return sum;
}

/*
 * A new read of the thread begins in @r (a syscall's or a fault's): its
 * number, its call and fd, no layer reached yet, no position known.
 */
static __always_inline void twin_read_begin(struct twin_read *r, __s32 nr, __s32 fd)
{
	r->seq = twin_next_seq();
	r->nr = nr;
	r->fd = fd;
	r->vfs_start = 0;
	r->fs_start = 0;
	r->fs_reached = 0;
	r->direct = 0;
	r->iowait = 0;
	r->added_pages = 0;
	r->ra_pages = 0;
	r->ino = 0;
	r->dev = 0;
	r->pos = -1;
	r->bound = 0;
	r->sock_start = 0;
	r->tcp_start = 0;
	r->wait_start = 0;
	r->wait_ns = 0;
	r->waited = 0;
	r->sock_kind = 0;
	r->fault = 0;
	r->retried = 0;
	r->in_fault = 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(twin_sys_enter, struct pt_regs *regs, long id)
{
	struct twin_read *r;
	struct user_msghdr msg;

	if (empty || !twin_followed())
		return 0;
	switch (id) {
	case NR_read: case NR_pread64: case NR_readv: case NR_preadv: case NR_preadv2:
	case NR_recvfrom: case NR_recvmsg:
		break;
	default:
		return 0;
	}
	r = bpf_task_storage_get(&reads, bpf_get_current_task_btf(), 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!r) {
		twin_count(TWIN_N_NO_STORAGE);
		return 0;
	}
	twin_read_begin(r, id, regs->di);
	switch (id) {
	case NR_pread64:
		r->pos = regs->r10;
		/* fall through */
	case NR_read:
	case NR_recvfrom:
		r->req = regs->dx;
		break;
	case NR_preadv:
	case NR_preadv2:
		r->pos = regs->r10;
		/* fall through */
	case NR_readv:
		r->req = twin_iov_bytes((const struct iovec *)regs->si, regs->dx);
		break;
	default:	/* recvmsg */
		r->req = 0;
		if (!bpf_probe_read_user(&msg, sizeof(msg), (void *)regs->si))
			r->req = twin_iov_bytes(msg.msg_iov, msg.msg_iovlen);
	}
	r->active = 1;
	r->start_ns = bpf_ktime_get_ns();
	return 0;
}

/* vfs_read(file, buf, count, pos) and vfs_readv(file, vec, vlen, pos, flags). */
static __always_inline void twin_vfs_entry(struct file *file, loff_t *ppos)
{
	struct twin_read *r;
	struct inode *inode;
	loff_t pos = -1;

	if (empty || !twin_followed())
		return;
	r = twin_read_of_current();
	if (!r || r->vfs_start)	/* not a followed read, or nested */
		return;
	inode = file->f_inode;
	r->ino = inode->i_ino;
	r->dev = inode->i_sb->s_dev;
	if (ppos)
		bpf_probe_read_kernel(&pos, sizeof(pos), ppos);
	if (r->pos < 0)
		r->pos = pos;
	r->vfs_start = bpf_ktime_get_ns();
}

SEC("fentry/vfs_read")
int BPF_PROG(twin_vfs_read, struct file *file, char *buf, size_t count, loff_t *pos)
{
	twin_vfs_entry(file, pos);
	return 0;
}

SEC("fentry/vfs_readv")
int BPF_PROG(twin_vfs_readv, struct file *file, const struct iovec *vec,
	     unsigned long vlen, loff_t *pos)
{
	twin_vfs_entry(file, pos);
	return 0;
}

/*
 * The outermost FS call starts the layer (module/layers/fs.c). @typed:
 * the arguments are typed pointers (fentry), read directly; else (a
 * kprobe's) through probe reads.
 */
static __always_inline void twin_fs_entry(struct kiocb *iocb, struct iov_iter *iter,
					  enum twin_fs_how how, const bool typed)
{
	struct twin_read *r;
	struct file *filp;
	__u64 len;
	__s64 pos;
	int flags;

	if (empty || !twin_followed())
		return;
	r = twin_read_of_current();
	if (!r)
		return;
	if (r->fs_reached) {
		/* A direct read finished through the page cache is not direct. */
		if (how == TWIN_FS_PAGECACHE)
			r->direct = 0;
		return;
	}
	if (typed) {
		filp = iocb->ki_filp;
		pos = iocb->ki_pos;
		len = iter->count;
		flags = iocb->ki_flags;
		r->mapping = (__u64)filp->f_mapping;
	} else {
		filp = BPF_CORE_READ(iocb, ki_filp);
		pos = BPF_CORE_READ(iocb, ki_pos);
		len = BPF_CORE_READ(iter, count);
		flags = BPF_CORE_READ(iocb, ki_flags);
		r->mapping = (__u64)BPF_CORE_READ(filp, f_mapping);
	}
	r->fs_reached = 1;
	r->direct = how == TWIN_FS_DAX || (how == TWIN_FS_ASKED && (flags & TWIN_IOCB_DIRECT));
	if (!r->ino) {
		if (typed) {
			r->ino = filp->f_inode->i_ino;
			r->dev = filp->f_inode->i_sb->s_dev;
		} else {
			r->ino = BPF_CORE_READ(filp, f_inode, i_ino);
			r->dev = BPF_CORE_READ(filp, f_inode, i_sb, s_dev);
		}
	}
	r->fs_pos = pos;
	r->first_index = pos >> TWIN_PAGE_SHIFT;
	r->last_index = len ? (pos + len - 1) >> TWIN_PAGE_SHIFT : r->first_index;
	r->fs_start = bpf_ktime_get_ns();
}

SEC("fentry/filemap_read")
int BPF_PROG(twin_filemap_read, struct kiocb *iocb, struct iov_iter *iter)
{
	twin_fs_entry(iocb, iter, TWIN_FS_PAGECACHE, true);
	return 0;
}

SEC("fentry/shmem_file_read_iter")
int BPF_PROG(twin_shmem_read, struct kiocb *iocb, struct iov_iter *iter)
{
	twin_fs_entry(iocb, iter, TWIN_FS_ASKED, true);
	return 0;
}

SEC("fentry/iomap_dio_rw")
int BPF_PROG(twin_iomap_dio, struct kiocb *iocb, struct iov_iter *iter)
{
	twin_fs_entry(iocb, iter, TWIN_FS_ASKED, true);
	return 0;
}

/* iomap_dio_rw where a trampoline cannot take its seven arguments. */
SEC("kprobe/iomap_dio_rw")
int BPF_KPROBE(twin_iomap_dio_kp, struct kiocb *iocb, struct iov_iter *iter)
{
	twin_fs_entry(iocb, iter, TWIN_FS_ASKED, false);
	return 0;
}

SEC("fentry/dax_iomap_rw")
int BPF_PROG(twin_dax_rw, struct kiocb *iocb, struct iov_iter *iter)
{
	twin_fs_entry(iocb, iter, TWIN_FS_DAX, true);
	return 0;
}

/* The folio's flags, a struct of one word since 6.18 (memdesc_flags_t). */
struct folio___memdesc {
	struct {
		unsigned long f;
	} flags;
} __attribute__((preserve_access_index));

static __always_inline __u64 twin_folio_pages(struct folio *folio)
{
	struct folio___nr_old *o = (void *)folio;
	struct folio___nr_new *n = (void *)folio;
	struct folio___memdesc *m = (void *)folio;
	unsigned long flags;

	if (bpf_core_field_exists(m->flags.f))
		flags = BPF_CORE_READ(m, flags.f);
	else
		flags = BPF_CORE_READ(folio, flags);
	if (!(flags & (1UL << bpf_core_enum_value(enum pageflags, PG_head))))
		return 1;
	if (bpf_core_field_exists(n->_nr_pages))
		return BPF_CORE_READ(n, _nr_pages);
	return BPF_CORE_READ(o, _folio_nr_pages);
}

/* Pages a followed read adds to its own file's range (module/layers/cache.c). */
SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(twin_add_to_page_cache, struct folio *folio)
{
	struct twin_read *r;
	__u64 index, nr, first, last, in;

	if (empty || !twin_followed())
		return 0;
	r = twin_read_of_current();
	if (!r || !r->fs_reached || r->direct || (__u64)folio->mapping != r->mapping)
		return 0;
	index = folio->index;
	nr = twin_folio_pages(folio);
	first = index > r->first_index ? index : r->first_index;
	last = index + nr - 1 < r->last_index ? index + nr - 1 : r->last_index;
	in = last >= first ? last - first + 1 : 0;
	r->added_pages += in;
	r->ra_pages += nr - in;
	return 0;
}

/* A followed read that sleeps in I/O wait (in_iowait) during its FS call. */
SEC("tp_btf/sched_switch")
int BPF_PROG(twin_sched_switch, bool preempt, struct task_struct *prev)
{
	struct twin_read *r;

	if (empty || prev->tgid != targ_tgid || !BPF_CORE_READ_BITFIELD(prev, in_iowait))
		return 0;
	r = bpf_task_storage_get(&reads, prev, 0, 0);
	if (r && r->active && r->fs_reached)
		r->iowait = 1;
	return 0;
}

/* include/iolayers/cache.h's iolayers_cache_decide(), FS layer attached. */
static __always_inline int twin_cache_state(const struct twin_read *r, long ret)
{
	__u64 range;

	if (r->sock_start) {
		if (r->sock_kind == TWIN_SK_OTHER)
			return TWIN_C_OTHER;
		if (r->waited)
			return TWIN_C_WAITED;
		return ret > 0 ? TWIN_C_READY : TWIN_C_EMPTY;
	}
	if (!r->fs_reached)
		return TWIN_C_OTHER;
	if (ret < 0)
		return TWIN_C_ERROR;
	if (r->direct)
		return TWIN_C_DIRECT;
	if (!r->added_pages && !r->iowait)
		return TWIN_C_HIT;
	range = ret > 0 ? ((r->fs_pos + ret - 1) >> TWIN_PAGE_SHIFT) - r->first_index + 1 : 0;
	if (range && r->added_pages >= range)
		return TWIN_C_MISS;
	return TWIN_C_PARTIAL;
}

/* Bucket i holds [2^i, 2^(i+1)); 0 and 1 in bucket 0. No clz in BPF. */
static __always_inline __u32 twin_log2(__u64 v)
{
	__u32 r = 0, s;

	s = (v > 0xffffffffULL) << 5;
	v >>= s;
	r = s;
	s = (v > 0xffff) << 4;
	v >>= s;
	r |= s;
	s = (v > 0xff) << 3;
	v >>= s;
	r |= s;
	s = (v > 0xf) << 2;
	v >>= s;
	r |= s;
	s = (v > 0x3) << 1;
	v >>= s;
	r |= s;
	return r | (__u32)(v >> 1);
}

static __always_inline void twin_hist_add(struct twin_hist *h, __u64 ns, __u64 bytes)
{
	__u32 b = twin_log2(ns);

	/* Keeps clang from folding the bound into the log's parts. */
	asm volatile("" : "+r"(b));
	h->buckets[b & (TWIN_HIST_BUCKETS - 1)]++;
	if (!h->count || ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->count++;
	h->sum_ns += ns;
	h->bytes += bytes;
}

/*
 * BLOCK. A bio a followed read queues, in its own context: bound to the
 * read (its thread and sequence number), counted into the read's twin_acc,
 * made afresh at the read's first bio.
 */
SEC("tp_btf/block_bio_queue")
int BPF_PROG(twin_bio_queue, struct bio *bio)
{
	struct twin_bio b = {};
	struct twin_read *r;
	struct twin_acc *a;
	__u32 tid;
	__u64 key = (__u64)bio;

	if (empty || !twin_followed())
		return 0;
	r = twin_read_of_current();
	if (!r || !bio || (bio->bi_opf & TWIN_REQ_OP_MASK) != REQ_OP_READ)
		return 0;
	tid = (__u32)bpf_get_current_pid_tgid();
	b.seq = r->seq;
	b.tid = tid;
	b.bytes = bio->bi_iter.bi_size;
	b.queue_ns = bpf_ktime_get_ns();
	a = bpf_map_lookup_elem(&accs, &tid);
	if (!r->bound) {
		/* The thread's accumulator, made once, renewed in place. */
		if (!a) {
			struct twin_acc fresh = {};

			if (bpf_map_update_elem(&accs, &tid, &fresh, BPF_NOEXIST)) {
				twin_count(TWIN_N_NO_ENTRY);
				return 0;
			}
			a = bpf_map_lookup_elem(&accs, &tid);
			if (!a)
				return 0;
		}
		__builtin_memset(&a->blk, 0, sizeof(a->blk));
		a->seq = r->seq;
		a->open = 1;
		r->bound = 1;
	}
	if (!a || a->seq != r->seq)
		return 0;
	if (bpf_map_update_elem(&bios, &key, &b, BPF_ANY)) {
		twin_count(TWIN_N_NO_ENTRY);
		return 0;
	}
	__sync_fetch_and_add(&blk_live, 1);
	a->blk.nr_bios++;
	a->blk.bio_bytes += b.bytes;
	if (!a->blk.queue_at || b.queue_ns < a->blk.queue_at)
		a->blk.queue_at = b.queue_ns;
	return 0;
}

/* A bound bio's read into a request's entry (its bytes added to it). */
static __always_inline void twin_rq_take(struct twin_rq *q, const struct twin_bio *b)
{
	__u32 i;

	if (!q->queue_ns || b->queue_ns < q->queue_ns)
		q->queue_ns = b->queue_ns;
	for (i = 0; i < TWIN_RQ_FLOWS; i++) {
		if (i >= q->nr_flows)
			break;
		if (q->tid[i] == b->tid && q->seq[i] == b->seq) {
			q->bytes[i] += b->bytes;
			return;
		}
	}
	if (q->nr_flows >= TWIN_RQ_FLOWS) {
		twin_count(TWIN_N_RQ_OVERFLOW);
		return;
	}
	i = q->nr_flows++;
	/* The verifier sees the bound again. */
	if (i < TWIN_RQ_FLOWS) {
		q->tid[i] = b->tid;
		q->seq[i] = b->seq;
		q->bytes[i] = b->bytes;
	}
}

/*
 * A request's entry, found, or made from its bios that are bound (each
 * taken out of the bio hash): the first 8 of its chain, again at each
 * event (a bio merged in since). NULL: it carries no followed read's bio.
 */
static __always_inline struct twin_rq *twin_rq_bind(struct request *rq)
{
	__u64 key = (__u64)rq, bkey;
	struct twin_rq fresh = {}, *q;
	struct twin_bio *b;
	struct bio *bio;
	int i;

	/* 7.x's verifier takes some tracepoints' arguments as maybe NULL. */
	if (!rq)
		return 0;
	if (*(volatile __s64 *)&blk_live <= 0)
		return 0;
	q = bpf_map_lookup_elem(&rqs, &key);
	bio = rq->bio;
	for (i = 0; i < 8 && bio; i++) {
		bkey = (__u64)bio;
		b = bpf_map_lookup_elem(&bios, &bkey);
		if (b) {
			twin_rq_take(q ? q : &fresh, b);
			if (!bpf_map_delete_elem(&bios, &bkey))
				__sync_fetch_and_add(&blk_live, -1);
		}
		bio = bio->bi_next;
	}
	if (q || !fresh.nr_flows)
		return q;
	if (bpf_map_update_elem(&rqs, &key, &fresh, BPF_NOEXIST)) {
		twin_count(TWIN_N_NO_ENTRY);
		return 0;
	}
	__sync_fetch_and_add(&blk_live, 1);
	return bpf_map_lookup_elem(&rqs, &key);
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(twin_rq_insert, struct request *rq)
{
	struct twin_rq *q;

	if (empty)
		return 0;
	q = twin_rq_bind(rq);
	if (q && !q->first_issue_ns)
		q->insert_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(twin_rq_issue, struct request *rq)
{
	struct twin_rq *q;
	__u64 now;

	if (empty)
		return 0;
	q = twin_rq_bind(rq);
	if (!q)
		return 0;
	now = bpf_ktime_get_ns();
	if (!q->first_issue_ns) {
		q->first_issue_ns = now;
		q->queue_lat = now - (q->insert_ns ? q->insert_ns : q->queue_ns);
	}
	q->issue_ns = now;
	return 0;
}

SEC("tp_btf/block_rq_requeue")
int BPF_PROG(twin_rq_requeue, struct request *rq)
{
	__u64 key = (__u64)rq;
	struct twin_rq *q;

	if (empty || *(volatile __s64 *)&blk_live <= 0)
		return 0;
	q = bpf_map_lookup_elem(&rqs, &key);
	if (q) {
		q->requeues++;
		q->setup_ns = 0;
	}
	return 0;
}

/* DEVICE: NVMe sets the command up before the issue, so it binds too. */
SEC("tp_btf/nvme_setup_cmd")
int BPF_PROG(twin_nvme_setup, struct request *rq)
{
	struct twin_rq *q;

	if (empty)
		return 0;
	q = twin_rq_bind(rq);
	if (q) {
		q->setup_ns = bpf_ktime_get_ns();
		q->devdone_ns = 0;
	}
	return 0;
}

SEC("tp_btf/nvme_complete_rq")
int BPF_PROG(twin_nvme_done, struct request *rq)
{
	__u64 key = (__u64)rq;
	struct twin_rq *q;

	if (empty || *(volatile __s64 *)&blk_live <= 0)
		return 0;
	q = bpf_map_lookup_elem(&rqs, &key);
	if (q && q->setup_ns)
		q->devdone_ns = bpf_ktime_get_ns();
	return 0;
}

/* A completed request into one read it carried, if still in flight. */
static __always_inline void twin_rq_fold(const struct twin_rq *q, __u32 i, __u64 now, bool error)
{
	struct twin_acc *a;
	struct twin_blk *k;
	__u32 tid;

	if (i >= TWIN_RQ_FLOWS)
		return;
	tid = q->tid[i];
	a = bpf_map_lookup_elem(&accs, &tid);
	if (!a || !a->open || a->seq != q->seq[i]) {
		twin_count(TWIN_N_RQ_LATE);
		return;
	}
	k = &a->blk;
	k->nr_rqs++;
	k->rq_bytes += q->bytes[i];
	k->requeues += q->requeues;
	k->errors += error;
	if (q->queue_lat > k->queue_ns)
		k->queue_ns = q->queue_lat;
	if (now - q->issue_ns > k->service_ns)
		k->service_ns = now - q->issue_ns;
	if (q->setup_ns && q->devdone_ns) {
		if (q->devdone_ns - q->setup_ns > k->device_ns)
			k->device_ns = q->devdone_ns - q->setup_ns;
		if (q->devdone_ns > k->device_at)
			k->device_at = q->devdone_ns;
	}
	if (!k->issue_at || q->first_issue_ns < k->issue_at)
		k->issue_at = q->first_issue_ns;
	if (now > k->done_at)
		k->done_at = now;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(twin_rq_complete, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	__u64 key = (__u64)rq, now;
	struct twin_rq *q;
	__u32 i;

	if (empty || *(volatile __s64 *)&blk_live <= 0)
		return 0;
	q = bpf_map_lookup_elem(&rqs, &key);
	if (!q || !q->issue_ns || !rq)
		return 0;
	if (nr_bytes < rq->__data_len) {
		/* More completions of this request follow. */
		twin_count(TWIN_N_RQ_PARTIAL);
		return 0;
	}
	now = bpf_ktime_get_ns();
	for (i = 0; i < TWIN_RQ_FLOWS; i++) {
		if (i >= q->nr_flows)
			break;
		twin_rq_fold(q, i, now, error != 0);
	}
	if (!bpf_map_delete_elem(&rqs, &key))
		__sync_fetch_and_add(&blk_live, -1);
	return 0;
}

/* SOCK: what a socket is, from its family, type and protocol. */
static __always_inline __u8 twin_sock_kind(struct socket *sock, struct sock *sk)
{
	bool stream = sock->type == SOCK_STREAM;
	__u16 family = sk->__sk_common.skc_family;
	__u16 proto = sk->sk_protocol;

	switch (family) {
	case TWIN_AF_INET:
	case TWIN_AF_INET6:
		if (stream && proto == IPPROTO_TCP)
			return family == TWIN_AF_INET ? TWIN_SK_TCP : TWIN_SK_TCP6;
		if (sock->type == SOCK_DGRAM && proto == IPPROTO_UDP)
			return family == TWIN_AF_INET ? TWIN_SK_UDP : TWIN_SK_UDP6;
		return TWIN_SK_OTHER;
	case TWIN_AF_UNIX:
		return stream ? TWIN_SK_UNIX_STREAM : TWIN_SK_UNIX_DGRAM;
	default:
		return TWIN_SK_OTHER;
	}
}

/* A followed read's first sock_recvmsg (or protocol recvmsg) entry. */
static __always_inline void twin_sock_entry(struct socket *sock)
{
	struct twin_read *r;
	struct sock *sk;
	__u64 key, gen, zero = 0;
	__u8 state;

	if (empty || !twin_followed())
		return;
	r = twin_read_of_current();
	if (!r || r->sock_start)
		return;
	sk = sock->sk;
	if (!sk)
		return;
	r->sk = (__u64)sk;
	r->sock_kind = twin_sock_kind(sock, sk);
	state = sk->__sk_common.skc_state;
	gen = *(volatile __u64 *)&sock_forgets;
	/* A listener's segments are connections, not data: not followed. */
	if (rcv_on && (r->sock_kind == TWIN_SK_TCP || r->sock_kind == TWIN_SK_TCP6) &&
	    state != TCP_CLOSE && state != TCP_LISTEN &&
	    (r->last_sk != (__u64)sk || r->last_sk_gen != gen)) {
		key = (__u64)sk;
		if (bpf_map_lookup_elem(&socks, &key) ||
		    !bpf_map_update_elem(&socks, &key, &zero, BPF_NOEXIST)) {
			r->last_sk = key;
			r->last_sk_gen = gen;
		} else {
			twin_count(TWIN_N_NO_ENTRY);
		}
	}
	r->sock_start = bpf_ktime_get_ns();
}

SEC("fentry/sock_recvmsg")
int BPF_PROG(twin_sock_recvmsg, struct socket *sock)
{
	twin_sock_entry(sock);
	return 0;
}

SEC("fentry/inet_recvmsg")
int BPF_PROG(twin_inet_recvmsg, struct socket *sock)
{
	twin_sock_entry(sock);
	return 0;
}

SEC("fentry/inet6_recvmsg")
int BPF_PROG(twin_inet6_recvmsg, struct socket *sock)
{
	twin_sock_entry(sock);
	return 0;
}

SEC("fentry/unix_stream_recvmsg")
int BPF_PROG(twin_unix_stream_recvmsg, struct socket *sock)
{
	twin_sock_entry(sock);
	return 0;
}

SEC("fentry/unix_dgram_recvmsg")
int BPF_PROG(twin_unix_dgram_recvmsg, struct socket *sock)
{
	twin_sock_entry(sock);
	return 0;
}

SEC("fentry/unix_seqpacket_recvmsg")
int BPF_PROG(twin_unix_seqpacket_recvmsg, struct socket *sock)
{
	twin_sock_entry(sock);
	return 0;
}

/* The socket read of current, if its socket is @sk (0: any). */
static __always_inline struct twin_read *twin_sock_read(__u64 sk)
{
	struct twin_read *r;

	if (empty || !twin_followed())
		return 0;
	r = twin_read_of_current();
	return r && r->sock_start && (!sk || r->sk == sk) ? r : 0;
}

SEC("fentry/tcp_recvmsg")
int BPF_PROG(twin_tcp_recvmsg, struct sock *sk)
{
	struct twin_read *r = twin_sock_read((__u64)sk);

	if (r && !r->tcp_start)
		r->tcp_start = bpf_ktime_get_ns();
	return 0;
}

static __always_inline void twin_wait_begin(struct twin_read *r)
{
	if (!r || r->wait_start)
		return;
	r->waited = 1;
	r->wait_start = bpf_ktime_get_ns();
}

SEC("fentry/sk_wait_data")
int BPF_PROG(twin_sk_wait, struct sock *sk)
{
	twin_wait_begin(twin_sock_read((__u64)sk));
	return 0;
}

SEC("fentry/__skb_wait_for_more_packets")
int BPF_PROG(twin_dgram_wait, struct sock *sk)
{
	twin_wait_begin(twin_sock_read((__u64)sk));
	return 0;
}

SEC("fentry/schedule_timeout")
int BPF_PROG(twin_sleep)
{
	twin_wait_begin(twin_sock_read(0));
	return 0;
}

/* Data is copied to the reader: a wait in progress has ended. */
SEC("fentry/skb_copy_datagram_iter")
int BPF_PROG(twin_skb_copy)
{
	struct twin_read *r = twin_sock_read(0);

	if (r && r->wait_start) {
		r->wait_ns += bpf_ktime_get_ns() - r->wait_start;
		r->wait_start = 0;
	}
	return 0;
}

/* A followed TCP socket closes (its address may be another's next). */
SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(twin_sock_state, struct sock *sk, int oldstate, int newstate)
{
	__u64 key = (__u64)sk;

	if (empty || newstate != TCP_CLOSE)
		return 0;
	if (!bpf_map_delete_elem(&socks, &key))
		__sync_fetch_and_add(&sock_forgets, 1);
	return 0;
}

SEC("fentry/tcp_v4_destroy_sock")
int BPF_PROG(twin_sock_destroy, struct sock *sk)
{
	__u64 key = (__u64)sk;

	if (empty)
		return 0;
	if (!bpf_map_delete_elem(&socks, &key))
		__sync_fetch_and_add(&sock_forgets, 1);
	return 0;
}

/* A segment of a followed TCP socket enters the receive path. */
static __always_inline void twin_rcv_entry(struct sock *sk)
{
	__u64 key = (__u64)sk, *start;

	if (empty)
		return;
	start = bpf_map_lookup_elem(&socks, &key);
	if (start)
		*start = bpf_ktime_get_ns();
}

static __always_inline void twin_rcv_exit(struct sock *sk)
{
	__u64 key = (__u64)sk, *start;
	struct twin_hist *h;
	__u32 zero = 0;

	if (empty)
		return;
	start = bpf_map_lookup_elem(&socks, &key);
	if (!start || !*start)
		return;
	h = bpf_map_lookup_elem(&rcv, &zero);
	if (h)
		twin_hist_add(h, bpf_ktime_get_ns() - *start, 0);
	*start = 0;
}

SEC("fentry/tcp_v4_do_rcv")
int BPF_PROG(twin_rcv4, struct sock *sk, struct sk_buff *skb)
{
	twin_rcv_entry(sk);
	return 0;
}

SEC("fexit/tcp_v4_do_rcv")
int BPF_PROG(twin_rcv4_exit, struct sock *sk, struct sk_buff *skb)
{
	twin_rcv_exit(sk);
	return 0;
}

SEC("fentry/tcp_v6_do_rcv")
int BPF_PROG(twin_rcv6, struct sock *sk, struct sk_buff *skb)
{
	twin_rcv_entry(sk);
	return 0;
}

SEC("fexit/tcp_v6_do_rcv")
int BPF_PROG(twin_rcv6_exit, struct sock *sk, struct sk_buff *skb)
{
	twin_rcv_exit(sk);
	return 0;
}

/* A followed thread exits: its accumulator goes (the module's entry too). */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(twin_thread_exit, struct task_struct *p)
{
	__u32 tid;

	if (empty || !p || p->tgid != targ_tgid)
		return 0;
	tid = p->pid;
	bpf_map_delete_elem(&accs, &tid);
	return 0;
}

/*
 * A followed read (a syscall's, or a fault's: @top its layer) ends with
 * @ret in the current thread: its histograms, then its record.
 */
static __always_inline void twin_finish(struct twin_read *r, long ret, __u32 top)
{
	struct twin_state_hists *h;
	struct twin_acc *a = 0;
	struct twin_rec *e;
	struct twin_cpu *c;
	__u32 zero = 0, tid;
	__u32 state;
	__u64 now, sock_ns = 0, bytes = ret > 0 ? ret : 0;

	now = bpf_ktime_get_ns();
	tid = (__u32)bpf_get_current_pid_tgid();
	r->active = 0;
	if (r->bound) {
		a = bpf_map_lookup_elem(&accs, &tid);
		if (a && a->seq == r->seq)
			a->open = 0;
		else
			a = 0;
	}
	if (r->sock_start) {
		sock_ns = now - r->sock_start;
		if (r->wait_start)	/* still waiting: a signal, a timeout */
			r->wait_ns += now - r->wait_start;
		if (r->wait_ns > sock_ns)
			r->wait_ns = sock_ns;
	}
	state = twin_cache_state(r, ret);
	h = bpf_map_lookup_elem(&hists, &state);
	if (h) {
		/* Keeps the index a register the verifier bounds. */
		asm volatile("" : "+r"(top));
		twin_hist_add(&h->layer[top == TWIN_L_FAULT ? TWIN_L_FAULT : TWIN_L_SYSCALL],
			      now - r->start_ns, bytes);
		if (r->vfs_start)
			twin_hist_add(&h->layer[TWIN_L_VFS], now - r->vfs_start, bytes);
		/* A fault's page is its FS range for the cache, not a layer. */
		if (r->fs_reached && !r->fault)
			twin_hist_add(&h->layer[TWIN_L_FS], now - r->fs_start, bytes);
		if (a && a->blk.nr_rqs) {
			twin_hist_add(&h->layer[TWIN_L_QUEUE], a->blk.queue_ns, a->blk.rq_bytes);
			twin_hist_add(&h->layer[TWIN_L_SERVICE], a->blk.service_ns,
				      a->blk.rq_bytes);
			if (a->blk.device_at)
				twin_hist_add(&h->layer[TWIN_L_DEVICE], a->blk.device_ns,
					      a->blk.rq_bytes);
		}
		if (r->sock_start) {
			twin_hist_add(&h->layer[TWIN_L_SOCK], sock_ns, bytes);
			if (r->tcp_start)
				twin_hist_add(&h->layer[TWIN_L_TCP], now - r->tcp_start, bytes);
			if (r->waited)
				twin_hist_add(&h->layer[TWIN_L_WAIT], r->wait_ns, bytes);
		}
	}
	c = bpf_map_lookup_elem(&cpus, &zero);
	if (!c)
		return;
	/* The module's short record (IOLAYERS_REC_SHORT) without a bio. */
	if (a && !a->blk.nr_bios && !a->blk.nr_rqs)
		a = 0;
	if (a)
		e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	else
		e = bpf_ringbuf_reserve(&events, offsetof(struct twin_rec, blk), 0);
	if (!e) {
		c->n[TWIN_N_LOST]++;
		return;
	}
	e->kind = TWIN_EV_READ;
	e->wseq = c->wseq++;
	e->end_ns = now;
	e->seq = r->seq;
	e->tid = tid;
	e->tgid = targ_tgid;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->nr = r->nr;
	e->fd = r->fd;
	e->pos = r->pos >= 0 || !r->fs_reached ? r->pos : r->fs_pos;
	e->ino = r->ino;
	e->fs_dev = r->dev;
	e->req = r->req;
	e->ret = ret;
	e->cache = state;
	e->sys_ns = now - r->start_ns;
	e->vfs_off = r->vfs_start ? (__s64)(r->vfs_start - r->start_ns) : -1;
	e->vfs_ns = r->vfs_start ? now - r->vfs_start : 0;
	if (r->sock_start) {
		e->sock_off = r->sock_start - r->start_ns;
		e->tcp_off = r->tcp_start ? (__s64)(r->tcp_start - r->start_ns) : -1;
		e->wait_ns = r->waited ? r->wait_ns : 0;
	} else {
		e->fs_off = r->fs_reached && !r->fault ? (__s64)(r->fs_start - r->start_ns) : -1;
		e->fs_ns = r->fs_reached && !r->fault ? now - r->fs_start : 0;
		e->ra_bytes = r->ra_pages << TWIN_PAGE_SHIFT;
	}
	e->missed = 0;
	e->sock = r->sock_kind;
	if (a)
		__builtin_memcpy(&e->blk, &a->blk, sizeof(e->blk));
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(twin_sys_exit, struct pt_regs *regs, long ret)
{
	struct twin_read *r;

	if (empty || !twin_followed())
		return 0;
	r = twin_read_of_current();
	/* A fault's read ends at its handler's return, not here. */
	if (!r || r->fault)
		return 0;
	twin_finish(r, ret, TWIN_L_SYSCALL);
	return 0;
}

/*
 * FAULT (-f, the module's faults=1): a page fault of the followed process
 * on a file's mapping is a read of its page, from handle_mm_fault()'s
 * entry to its last return (module/layers/fault.c): the same task storage
 * as a syscall's read, so that the pages its readahead adds, its I/O
 * wait and its bios bind to it through the same programs (its page is
 * the FS range the cache's program looks at, not an FS layer). A return
 * of VM_FAULT_RETRY is not the end: the same fault comes again, unless it
 * was given up (a signal for a user fault, a fatal one for the kernel's,
 * or a caller that asked not to wait), which ends it without a record. A
 * write fault is followed too, and recorded only if it was major (it
 * read its page from the disk), else counted; a fault during a followed
 * read is that read's, and one on a file of memory (tmpfs, memfd, ramfs,
 * hugetlbfs) reads no disk: both counted, not followed.
 */
#define TWIN_VM_PFNMAP		0x00000400UL	/* include/linux/mm.h: defines */
#define TWIN_VM_IO		0x00004000UL
#define TWIN_VM_MIXEDMAP	0x10000000UL
#define TWIN_VM_HUGETLB		0x00400000UL
#define TWIN_S_PRIVATE		(1U << 9)	/* include/linux/fs.h */
#define TWIN_S_DAX		(1U << 13)
#define TWIN_TMPFS_MAGIC	0x01021994	/* include/uapi/linux/magic.h */
#define TWIN_RAMFS_MAGIC	0x858458f6
#define TWIN_HUGETLBFS_MAGIC	0x958458f6
/* enum fault_flag (a set of defines before 5.17): values never moved. */
#define TWIN_FAULT_FLAG_WRITE		(1U << 0)
#define TWIN_FAULT_FLAG_RETRY_NOWAIT	(1U << 3)
#define TWIN_FAULT_FLAG_TRIED		(1U << 5)
#define TWIN_FAULT_FLAG_USER		(1U << 6)
#define TWIN_SIGKILL_BIT		(1ULL << (9 - 1))

extern int LINUX_KERNEL_VERSION __kconfig;

/* The kernel's fatal_signal_pending(): SIGKILL among the thread's own. */
static __always_inline bool twin_fatal_signal_pending(struct task_struct *t)
{
	return t->pending.signal.sig[0] & TWIN_SIGKILL_BIT;
}

/*
 * The kernel's signal_pending(): the thread's TIF_SIGPENDING or
 * TIF_NOTIFY_SIGNAL. x86's TIF bits are defines no BTF gives; from the
 * headers of Debian's kernels: SIGPENDING 2 and NOTIFY_SIGNAL 19 on 5.10
 * (a backport, behind TIF_IA32 and TIF_SLD), 17 from 5.11, and from 6.18
 * the generic set x86 took, 1 and 2. A signal set test would not do: a
 * process-wide signal is pending in every thread's shared set, but only
 * the thread it wakes gives its fault up.
 */
static __always_inline bool twin_signal_pending(struct task_struct *t)
{
	int sig = 2, notify = 17;

	if (LINUX_KERNEL_VERSION >= KERNEL_VERSION(6, 18, 0)) {
		sig = 1;
		notify = 2;
	} else if (LINUX_KERNEL_VERSION < KERNEL_VERSION(5, 11, 0)) {
		notify = 19;
	}
	return t->thread_info.flags & ((1ULL << sig) | (1ULL << notify));
}

SEC("fentry/handle_mm_fault")
int BPF_PROG(twin_fault, struct vm_area_struct *vma, unsigned long address, unsigned int flags)
{
	struct task_struct *task;
	struct twin_read *r;
	struct inode *inode;
	struct file *file;
	__u64 index;

	if (empty || !twin_followed())
		return 0;
	task = bpf_get_current_task_btf();
	file = vma->vm_file;
	if (!file || (vma->vm_flags & (TWIN_VM_PFNMAP | TWIN_VM_IO | TWIN_VM_MIXEDMAP |
				       TWIN_VM_HUGETLB)) ||
	    (file->f_inode->i_flags & TWIN_S_PRIVATE) || vma->vm_mm != task->mm) {
		twin_count(TWIN_N_FAULT_OTHER);
		return 0;
	}
	switch (file->f_inode->i_sb->s_magic) {
	case TWIN_TMPFS_MAGIC:
	case TWIN_RAMFS_MAGIC:
	case TWIN_HUGETLBFS_MAGIC:
		twin_count(TWIN_N_FAULT_OTHER);
		return 0;
	}
	index = vma->vm_pgoff + ((address - vma->vm_start) >> TWIN_PAGE_SHIFT);
	r = bpf_task_storage_get(&reads, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!r) {
		twin_count(TWIN_N_NO_STORAGE);
		return 0;
	}
	if (r->active) {
		if (r->fault && r->retried && r->mapping == (__u64)file->f_mapping &&
		    r->first_index == index) {
			r->retried = 0;
			r->in_fault = 1;
			return 0;
		}
		if (!r->fault) {
			twin_count(TWIN_N_FAULT_NESTED);
			return 0;
		}
		/* A fault whose retry did not come: this one is new. */
		r->active = 0;
	}
	inode = file->f_inode;
	twin_read_begin(r, TWIN_NR_FAULT, -1);
	r->req = 1 << TWIN_PAGE_SHIFT;
	r->pos = index << TWIN_PAGE_SHIFT;
	r->ino = inode->i_ino;
	r->dev = inode->i_sb->s_dev;
	r->direct = !!(inode->i_flags & TWIN_S_DAX);
	r->fault = 1;
	r->in_fault = 1;
	r->mapping = (__u64)file->f_mapping;
	r->fs_pos = r->pos;
	r->first_index = index;
	r->last_index = index;
	r->fs_reached = 1;
	r->active = 1;
	r->start_ns = bpf_ktime_get_ns();
	r->fs_start = r->start_ns;
	return 0;
}

/*
 * The return of the call whose entry began or went on with the fault
 * (in_fault): another fault's entry, which returned early, leaves no mark.
 */
SEC("fexit/handle_mm_fault")
int BPF_PROG(twin_fault_exit, struct vm_area_struct *vma, unsigned long address,
	     unsigned int flags, struct pt_regs *regs, unsigned int ret)
{
	struct task_struct *task;
	unsigned int err;
	struct twin_read *r;

	if (empty || !twin_followed())
		return 0;
	r = twin_read_of_current();
	if (!r || !r->fault || !r->in_fault)
		return 0;
	r->in_fault = 0;
	if (ret & bpf_core_enum_value(enum vm_fault_reason, VM_FAULT_RETRY)) {
		task = bpf_get_current_task_btf();
		if ((flags & TWIN_FAULT_FLAG_RETRY_NOWAIT) || twin_fatal_signal_pending(task) ||
		    ((flags & TWIN_FAULT_FLAG_USER) && twin_signal_pending(task))) {
			r->active = 0;	/* given up: no retry, no record */
			twin_count(TWIN_N_FAULT_GIVEN_UP);
			return 0;
		}
		r->retried = 1;
		return 0;
	}
	/* The kernel's VM_FAULT_ERROR: the fault failed. */
	err = ret & (bpf_core_enum_value(enum vm_fault_reason, VM_FAULT_OOM) |
		     bpf_core_enum_value(enum vm_fault_reason, VM_FAULT_SIGBUS) |
		     bpf_core_enum_value(enum vm_fault_reason, VM_FAULT_SIGSEGV) |
		     bpf_core_enum_value(enum vm_fault_reason, VM_FAULT_HWPOISON) |
		     bpf_core_enum_value(enum vm_fault_reason, VM_FAULT_HWPOISON_LARGE) |
		     bpf_core_enum_value(enum vm_fault_reason, VM_FAULT_FALLBACK));
	/* A write fault that was not major (nor failed) read nothing from the disk. */
	if ((flags & TWIN_FAULT_FLAG_WRITE) && !(flags & TWIN_FAULT_FLAG_TRIED) && !err &&
	    !(ret & bpf_core_enum_value(enum vm_fault_reason, VM_FAULT_MAJOR))) {
		r->active = 0;
		twin_count(TWIN_N_FAULT_OTHER);
		return 0;
	}
	twin_finish(r, err ? -14 /* -EFAULT */ : 1 << TWIN_PAGE_SHIFT, TWIN_L_FAULT);
	return 0;
}

/*
 * Requests: io_uring's and Linux AIO's reads, one entry per request keyed
 * by its address (never by a thread: io-wq and SQPOLL threads issue
 * them, completions come in interrupts and task work), from submission
 * to completion: the URING or AIO layer and a short record. Not the
 * twin's (the module has them): the attempts' FS, BLOCK and DEVICE
 * parts, and so the cache state: a request is OTHER, or ERROR when it
 * failed.
 */
struct twin_req {
	__u64 seq;
	__u64 start_ns;
	__u64 user_data;	/* io_uring's: checked at the CQE */
	__s64 pos;
	__u64 len;
	__u32 tid;
	__s32 fd;
	__s32 nr;
	char comm[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64);	/* struct io_kiocb *, or AIO's struct kiocb * */
	__type(value, struct twin_req);
} reqs SEC(".maps");

/*
 * The request @key ends with @res, its file @file (NULL: unknown). AIO's
 * completion of a direct read runs in the interrupt: its updates of this
 * CPU's histograms and counters are not atomic, and one that interrupts
 * another program's update on the CPU may lose an increment of either.
 */
static __always_inline void twin_req_finish(__u64 key, struct twin_req *q, long res,
					    struct file *file, __u32 layer)
{
	struct twin_state_hists *h;
	struct twin_rec *e;
	struct twin_cpu *c;
	__u32 zero = 0, state = res < 0 ? TWIN_C_ERROR : TWIN_C_OTHER;
	__u64 now = bpf_ktime_get_ns();

	h = bpf_map_lookup_elem(&hists, &state);
	if (h) {
		asm volatile("" : "+r"(layer));
		twin_hist_add(&h->layer[layer == TWIN_L_AIO ? TWIN_L_AIO : TWIN_L_URING],
			      now - q->start_ns, res > 0 ? res : 0);
	}
	c = bpf_map_lookup_elem(&cpus, &zero);
	if (!c)
		goto out;
	e = bpf_ringbuf_reserve(&events, offsetof(struct twin_rec, blk), 0);
	if (!e) {
		c->n[TWIN_N_LOST]++;
		goto out;
	}
	e->kind = TWIN_EV_READ;
	e->wseq = c->wseq++;
	e->end_ns = now;
	e->seq = q->seq;
	e->tid = q->tid;
	e->tgid = targ_tgid;
	__builtin_memcpy(e->comm, q->comm, sizeof(e->comm));
	e->nr = q->nr;
	e->fd = q->fd;
	e->pos = q->pos;
	e->ino = file ? BPF_CORE_READ(file, f_inode, i_ino) : 0;
	e->fs_dev = file ? BPF_CORE_READ(file, f_inode, i_sb, s_dev) : 0;
	e->req = q->len;
	e->ret = res;
	e->cache = state;
	e->sys_ns = now - q->start_ns;
	e->vfs_off = -1;
	e->vfs_ns = 0;
	e->fs_off = -1;
	e->fs_ns = 0;
	e->ra_bytes = 0;
	e->missed = 0;
	e->sock = 0;
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
out:
	bpf_map_delete_elem(&reqs, &key);
}

/*
 * A request's entry; one left at its address by a request whose end was
 * not seen (an overflowed CQE) is replaced, counted stale.
 */
static __always_inline void twin_req_put(__u64 key, const struct twin_req *q)
{
	if (!bpf_map_update_elem(&reqs, &key, q, BPF_NOEXIST))
		return;
	if (bpf_map_lookup_elem(&reqs, &key))
		twin_count(TWIN_N_REQ_STALE);
	if (bpf_map_update_elem(&reqs, &key, q, BPF_ANY))
		twin_count(TWIN_N_NO_ENTRY);
}

/*
 * The read opcodes (include/uapi/linux/io_uring.h: numbers of the ABI):
 * READ, READV, READ_FIXED, and READV_FIXED (6.15 on, not in 6.1's BTF).
 */
static __always_inline bool twin_uring_read(__u8 op)
{
	return op == 22 || op == 1 || op == 4 || op == 60;
}

/* io_uring's read request, as its prep left it (io_uring/rw.h). */
struct io_rw___twin {
	struct kiocb kiocb;
	__u64 addr;
	__u32 len;
} __attribute__((preserve_access_index));

/*
 * A request's flag that its success posts no CQE: REQ_F_CQE_SKIP, whose
 * bit is IOSQE_CQE_SKIP_SUCCESS_BIT's (include/uapi/linux/io_uring.h; the
 * kernel's REQ_F_* bits below 8 are the SQE's flags).
 */
#define TWIN_REQ_F_CQE_SKIP	(1U << 6)

/* The submission of a request; a CQE-less success is not followed. */
static __always_inline void twin_uring_submit(struct io_kiocb *req)
{
	struct io_rw___twin *rw = (void *)&req->cmd;
	struct twin_req q = {};
	__u64 key = (__u64)req;

	if (empty || !twin_followed() || !twin_uring_read(req->opcode) ||
	    (req->flags & TWIN_REQ_F_CQE_SKIP))
		return;
	q.seq = twin_next_seq();
	q.tid = (__u32)bpf_get_current_pid_tgid();
	q.nr = TWIN_NR_URING + req->opcode;
	/* The fd is in the CQE's place until the completion (io_init_req()). */
	q.fd = req->cqe.fd;
	q.user_data = req->cqe.user_data;
	q.pos = -1;
	if (bpf_core_type_exists(struct io_rw___twin)) {
		q.pos = BPF_CORE_READ(rw, kiocb.ki_pos);
		q.len = BPF_CORE_READ(rw, len);
		/* READV, READV_FIXED: len counts iovecs (the submitter's memory). */
		if (req->opcode == 1 || req->opcode == 60)
			q.len = twin_iov_bytes((const struct iovec *)BPF_CORE_READ(rw, addr), q.len);
	}
	bpf_get_current_comm(q.comm, sizeof(q.comm));
	q.start_ns = bpf_ktime_get_ns();
	twin_req_put(key, &q);
}

/* io_uring_submit_req(req), 6.4 on. */
SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(twin_uring_submit_req, struct io_kiocb *req)
{
	twin_uring_submit(req);
	return 0;
}

/* io_uring_submit_sqe(req, force_nonblock), 6.0 to 6.3 (the loader checks). */
SEC("tp_btf/io_uring_submit_sqe")
int BPF_PROG(twin_uring_submit_sqe, struct io_kiocb *req)
{
	twin_uring_submit(req);
	return 0;
}

/*
 * io_uring_complete(ctx, req, ...): the CQE's fields, then the CQE itself,
 * follow; the request holds them both ways (req->cqe). An entry of a
 * request whose CQE was not seen (an overflow) is another request's now.
 */
SEC("tp_btf/io_uring_complete")
int BPF_PROG(twin_uring_complete, void *ring, void *ptr)
{
	struct io_kiocb *req = ptr;	/* a void * in the prototype: read, not walked */
	struct twin_req *q;
	__u64 key = (__u64)ptr;

	if (empty || !req)
		return 0;
	q = bpf_map_lookup_elem(&reqs, &key);
	if (!q)
		return 0;
	if (q->user_data != BPF_CORE_READ(req, cqe.user_data) ||
	    q->nr != TWIN_NR_URING + BPF_CORE_READ(req, opcode)) {
		twin_count(TWIN_N_REQ_STALE);
		bpf_map_delete_elem(&reqs, &key);
		return 0;
	}
	twin_req_finish(key, q, BPF_CORE_READ(req, cqe.res), BPF_CORE_READ(req, file),
			TWIN_L_URING);
	return 0;
}

/* include/uapi/linux/aio_abi.h: defines. */
#define TWIN_IOCB_CMD_PREAD	0
#define TWIN_IOCB_CMD_PREADV	7

/* aio_read(kiocb, iocb, vectored, compat): an iocb of io_submit(). */
SEC("fentry/aio_read")
int BPF_PROG(twin_aio_read, struct kiocb *kiocb, const struct iocb *iocb, bool vectored)
{
	struct twin_req q = {};
	__u64 key = (__u64)kiocb;

	if (empty || !twin_followed())
		return 0;
	q.seq = twin_next_seq();
	q.tid = (__u32)bpf_get_current_pid_tgid();
	q.nr = TWIN_NR_AIO + (vectored ? TWIN_IOCB_CMD_PREADV : TWIN_IOCB_CMD_PREAD);
	q.fd = iocb->aio_fildes;
	q.pos = iocb->aio_offset;
	q.len = vectored ? twin_iov_bytes((const struct iovec *)iocb->aio_buf, iocb->aio_nbytes) :
			   iocb->aio_nbytes;
	bpf_get_current_comm(q.comm, sizeof(q.comm));
	q.start_ns = bpf_ktime_get_ns();
	twin_req_put(key, &q);
	return 0;
}

/*
 * aio_read() returns 0 once the read completed or was queued (its
 * completion absorbs -EIOCBQUEUED), an error when it refused the read
 * before issuing it: no completion comes, and the refusal is the read's
 * end and its result (as the module records it).
 */
SEC("fexit/aio_read")
int BPF_PROG(twin_aio_read_exit, struct kiocb *kiocb, const struct iocb *iocb, bool vectored,
	     bool compat, int ret)
{
	struct twin_req *q;
	__u64 key = (__u64)kiocb;

	if (empty || !ret || !twin_followed())
		return 0;
	q = bpf_map_lookup_elem(&reqs, &key);
	if (!q)
		return 0;
	twin_count(TWIN_N_AIO_REFUSED);
	twin_req_finish(key, q, ret, 0, TWIN_L_AIO);
	return 0;
}

/* aio_complete_rw(kiocb, res, ...): in io_submit() or in an interrupt. */
SEC("fentry/aio_complete_rw")
int BPF_PROG(twin_aio_done, struct kiocb *kiocb, long res)
{
	struct twin_req *q;
	__u64 key = (__u64)kiocb;

	if (empty)
		return 0;
	q = bpf_map_lookup_elem(&reqs, &key);
	if (q && q->nr >= TWIN_NR_AIO && q->nr < TWIN_NR_FAULT)
		twin_req_finish(key, q, res, kiocb->ki_filp, TWIN_L_AIO);
	return 0;
}
