// SPDX-License-Identifier: GPL-2.0
/*
 * The libbpf twin of iolayers: the module's measurement of a followed
 * process's file reads written as a careful eBPF engineer would, for make
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
 *    pages a read added and whether it waited for I/O: its cache state).
 * Per-read state lives in task local storage; histograms of layer x state
 * x log2 bucket (count, sum, min, max, bytes, as the module's) in a per-CPU
 * array, one entry per state holding every layer's; every read's record
 * (the module's struct iolayers_flow_rec, byte for byte) goes to a BPF ring
 * buffer without a wakeup (the module's short record: no BLOCK part),
 * drained by the loader every 10 ms; records the buffer had no room for
 * are counted.
 *
 * The floor (empty=1): the same programs, attached the same way, each
 * returning at once.
 *
 * Not yet here (the module has them): BLOCK and DEVICE (bios, requests,
 * the drivers' commands), socket reads, the file table of paths.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "twin.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by the loader before the load: the verifier prunes on them. */
const volatile __u32 targ_tgid;
const volatile bool empty;

/* The read family of x86-64 (asm/unistd_64.h). */
#define NR_read		0
#define NR_pread64	17
#define NR_readv	19
#define NR_recvfrom	45
#define NR_recvmsg	47
#define NR_preadv	295
#define NR_preadv2	327

#define TWIN_PAGE_SHIFT	12
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
	__u32 dev;
	__s32 nr;
	__s32 fd;
	__u8 active;
	__u8 fs_reached;
	__u8 direct;
	__u8 iowait;
};

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

/* Per CPU: records written (a record's wseq), and the counters. */
struct twin_cpu {
	__u64 wseq;
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
	r->seq++;
	r->nr = id;
	r->fd = regs->di;
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

SEC("tp_btf/sys_exit")
int BPF_PROG(twin_sys_exit, struct pt_regs *regs, long ret)
{
	struct twin_state_hists *h;
	struct twin_read *r;
	struct twin_rec *e;
	struct twin_cpu *c;
	__u32 zero = 0;
	__u32 state;
	__u64 now, bytes = ret > 0 ? ret : 0;

	if (empty || !twin_followed())
		return 0;
	r = twin_read_of_current();
	if (!r)
		return 0;
	now = bpf_ktime_get_ns();
	r->active = 0;
	state = twin_cache_state(r, ret);
	h = bpf_map_lookup_elem(&hists, &state);
	if (h) {
		twin_hist_add(&h->layer[TWIN_L_SYSCALL], now - r->start_ns, bytes);
		if (r->vfs_start)
			twin_hist_add(&h->layer[TWIN_L_VFS], now - r->vfs_start, bytes);
		if (r->fs_reached)
			twin_hist_add(&h->layer[TWIN_L_FS], now - r->fs_start, bytes);
	}
	c = bpf_map_lookup_elem(&cpus, &zero);
	if (!c)
		return 0;
	/* No BLOCK part yet: the module's short record (IOLAYERS_REC_SHORT). */
	e = bpf_ringbuf_reserve(&events, offsetof(struct twin_rec, blk), 0);
	if (!e) {
		c->n[TWIN_N_LOST]++;
		return 0;
	}
	e->kind = TWIN_EV_READ;
	e->wseq = c->wseq++;
	e->end_ns = now;
	e->seq = r->seq;
	e->tid = (__u32)bpf_get_current_pid_tgid();
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
	e->fs_off = r->fs_reached ? (__s64)(r->fs_start - r->start_ns) : -1;
	e->fs_ns = r->fs_reached ? now - r->fs_start : 0;
	e->ra_bytes = r->ra_pages << TWIN_PAGE_SHIFT;
	e->missed = 0;
	e->sock = 0;
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	return 0;
}
