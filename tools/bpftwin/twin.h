/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the libbpf twin's BPF side and its loader share: the record of a
 * read (the module's struct iolayers_flow_rec, field for field and byte for
 * byte: the stream's cost per read depends on its size) and a histogram
 * (struct iolayers_hist's contents). Included after vmlinux.h on the BPF
 * side, after <linux/types.h> in the loader.
 */
#ifndef IOLAYERS_TWIN_H
#define IOLAYERS_TWIN_H

/* As include/uapi/iolayers.h (the loader checks that they agree). */
#define TWIN_HIST_BUCKETS	64
#define TWIN_NR_LAYERS		12
#define TWIN_NR_STATES		10
#define TWIN_L_SYSCALL		0
#define TWIN_L_VFS		1
#define TWIN_L_FS		2
#define TWIN_L_QUEUE		3
#define TWIN_L_SERVICE		4
#define TWIN_L_DEVICE		5
#define TWIN_L_SOCK		6
#define TWIN_L_TCP		7
#define TWIN_L_WAIT		8
#define TWIN_L_URING		9
#define TWIN_L_AIO		10
#define TWIN_L_FAULT		11
#define TWIN_C_HIT		0
#define TWIN_C_MISS		1
#define TWIN_C_PARTIAL		2
#define TWIN_C_DIRECT		3
#define TWIN_C_OTHER		4
#define TWIN_C_ERROR		6
#define TWIN_C_READY		7
#define TWIN_C_WAITED		8
#define TWIN_C_EMPTY		9
#define TWIN_EV_READ		1

/*
 * A record's nr for the reads that are not syscalls: an io_uring request
 * (plus its IORING_OP_*), a Linux AIO one (plus its IOCB_CMD_*), a page
 * fault on a file's mapping.
 */
#define TWIN_NR_URING		1000
#define TWIN_NR_AIO		2000
#define TWIN_NR_FAULT		3000

/* One layer x state histogram, per CPU. */
struct twin_hist {
	__u64 buckets[TWIN_HIST_BUCKETS];
	__u64 count;
	__u64 sum_ns;
	__u64 min_ns;		/* valid when count > 0 */
	__u64 max_ns;
	__u64 bytes;
};

/* struct iolayers_blk_acc's layout. */
struct twin_blk {
	__u32 nr_bios;
	__u64 bio_bytes;
	__u32 nr_rqs;
	__u64 rq_bytes;
	__u32 requeues;
	__u64 queue_ns;
	__u64 service_ns;
	__u64 device_ns;
	__u64 queue_at;
	__u64 issue_at;
	__u64 device_at;
	__u64 done_at;
	__u32 errors;
	__u8 disk;
	__u16 disk_mask;
};

/* struct iolayers_flow_rec's layout (264 bytes on 64-bit). */
struct twin_rec {
	__u32 kind;
	__u32 wseq;
	__u64 end_ns;
	__u64 seq;
	__s32 tid;
	__s32 tgid;
	char comm[16];
	__s32 nr;
	__s32 fd;
	__s64 pos;
	__u64 ino;
	__u32 fs_dev;
	__u64 req;
	__s64 ret;
	__s32 cache;
	__u64 sys_ns;
	__s64 vfs_off;
	__u64 vfs_ns;
	union {
		struct {		/* file reads */
			__s64 fs_off;
			__u64 fs_ns;
			__u64 ra_bytes;
		};
		struct {		/* socket reads */
			__s64 sock_off;
			__s64 tcp_off;
			__u64 wait_ns;
		};
	};
	__u8 missed;
	__u8 sock;
	struct twin_blk blk;
};

/* Counters the BPF side keeps per CPU (index in the counters map). */
enum twin_counter {
	TWIN_N_LOST,		/* records the ring buffer had no room for */
	TWIN_N_NO_STORAGE,	/* reads whose task storage could not be made */
	TWIN_N_NO_ENTRY,	/* bios, requests, sockets, segments whose map entry could not be made */
	TWIN_N_RQ_LATE,		/* (request, read) pairs completed after the read returned */
	TWIN_N_RQ_OVERFLOW,	/* bios of more reads than a request entry holds */
	TWIN_N_RQ_PARTIAL,	/* partial completions */
	TWIN_N_REQ_STALE,	/* io_uring requests whose entry was another's (no CQE seen) */
	TWIN_N_AIO_REFUSED,	/* AIO reads aio_read() refused (no completion comes) */
	TWIN_N_FAULT_OTHER,	/* no file, a file of memory, a minor write */
	TWIN_N_FAULT_NESTED,	/* faults inside a followed read (the read's) */
	TWIN_N_FAULT_GIVEN_UP,	/* faults whose retry did not come (a signal) */
	TWIN_N_COUNTERS,
};

#endif /* IOLAYERS_TWIN_H */
