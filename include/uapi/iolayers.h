/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/* What userspace may rely on in /sys/kernel/debug/iolayers/. */
#ifndef _UAPI_IOLAYERS_H
#define _UAPI_IOLAYERS_H

#include <linux/types.h>

/*
 * The debugfs directory is not a stable ABI (see Documentation/design.rst);
 * the format version below changes whenever a file's layout does, and the
 * reader refuses versions it does not know.
 */
#define IOLAYERS_DEBUGFS_DIR	"iolayers"
#define IOLAYERS_FORMAT_VERSION	9
#define IOLAYERS_VERSION_STRING	"0.1.0"

/* Number of log2 buckets in every histogram: bucket i holds [2^i, 2^(i+1)). */
#define IOLAYERS_HIST_BUCKETS	64

/**
 * enum iolayers_layer - Layers that have a latency histogram.
 * @IOLAYERS_L_SYSCALL: sys_enter to sys_exit of a read-family syscall
 * @IOLAYERS_L_VFS: vfs_read (or vfs_readv) entry to the syscall's exit
 * @IOLAYERS_L_FS: the outermost FS call's entry (filemap_read,
 *	iomap_dio_rw, dax_iomap_rw or shmem_file_read_iter) to the syscall's exit
 * @IOLAYERS_L_QUEUE: BLOCK queue latency, insert (or bio queued) to issue;
 *	per read, the longest of its requests'
 * @IOLAYERS_L_SERVICE: BLOCK service latency, issue to completion (longest)
 * @IOLAYERS_L_DEVICE: DEVICE latency, nvme_setup_cmd to nvme_complete_rq,
 *	or scsi_dispatch_cmd_start to scsi_dispatch_cmd_done (longest)
 * @IOLAYERS_L_SOCK: a socket read's SOCK layer, sock_recvmsg's entry to the
 *	syscall's exit (format 7)
 * @IOLAYERS_L_TCP: a TCP read's, tcp_recvmsg's entry to the syscall's
 *	exit, waiting for data included
 * @IOLAYERS_L_WAIT: the time a socket read waited for data, from the
 *	socket's wait for data to the copy that followed it (summed when it
 *	waited more than once); WAITED reads only
 * @IOLAYERS_L_URING: an io_uring request, from its submission to its
 *	completion's CQE, wherever it ran (format 8)
 * @IOLAYERS_L_AIO: a Linux AIO read (io_submit()'s IOCB_CMD_PREAD or
 *	PREADV), from its submission to its completion's event (format 9)
 * @IOLAYERS_L_FAULT: a page fault on a file's mapping, from its entry
 *	(handle_mm_fault()) to its return, retries included (format 9)
 * @IOLAYERS_NR_LAYERS: number of layers
 */
enum iolayers_layer {
	IOLAYERS_L_SYSCALL,
	IOLAYERS_L_VFS,
	IOLAYERS_L_FS,
	IOLAYERS_L_QUEUE,
	IOLAYERS_L_SERVICE,
	IOLAYERS_L_DEVICE,
	IOLAYERS_L_SOCK,
	IOLAYERS_L_TCP,
	IOLAYERS_L_WAIT,
	IOLAYERS_L_URING,
	IOLAYERS_L_AIO,
	IOLAYERS_L_FAULT,
	IOLAYERS_NR_LAYERS,
};

/**
 * enum iolayers_cache - How the page cache served one read().
 * @IOLAYERS_C_HIT: no page of the range was added and the read did not wait
 *	on I/O
 * @IOLAYERS_C_MISS: every page of the range was added during the read
 * @IOLAYERS_C_PARTIAL: some pages were added, or none but the read waited
 *	on I/O already in flight (e.g. async readahead)
 * @IOLAYERS_C_DIRECT: O_DIRECT, the page cache was bypassed
 * @IOLAYERS_C_OTHER: not a file system read (pipe, socket, procfs, 9p...)
 * @IOLAYERS_C_UNK: undecidable because the FS layer could not be attached,
 *	or one of its function entries was refused during the read (the
 *	flow's missed column says "fs"), or the read waited on I/O and added
 *	no page, while it queued another file's or swap's I/O (a fault on its
 *	buffer): the wait may not have been its file's
 * @IOLAYERS_C_ERROR: a file system read that failed (it returned an error,
 *	e.g. -EFAULT for a bad buffer, -EAGAIN for RWF_NOWAIT on pages not
 *	cached, -EIO): whatever it found in the page cache, it served nothing
 *	(added in format 5); also a regular file's read on a block device's
 *	file system that failed with -EIO before reaching the FS layer (a
 *	file system shut down)
 * @IOLAYERS_C_READY: a socket read that found data queued and did not wait
 *	for it (format 7; the socket states share the cache state's column)
 * @IOLAYERS_C_WAITED: a socket read that waited for data (entered its
 *	socket's wait for data)
 * @IOLAYERS_C_EMPTY: a socket read that neither found data nor waited: it
 *	returned 0 (end of stream) or an error (-EAGAIN for a non-blocking one)
 * @IOLAYERS_NR_CACHE: number of states
 */
enum iolayers_cache {
	IOLAYERS_C_HIT,
	IOLAYERS_C_MISS,
	IOLAYERS_C_PARTIAL,
	IOLAYERS_C_DIRECT,
	IOLAYERS_C_OTHER,
	IOLAYERS_C_UNK,
	IOLAYERS_C_ERROR,
	IOLAYERS_C_READY,
	IOLAYERS_C_WAITED,
	IOLAYERS_C_EMPTY,
	IOLAYERS_NR_CACHE,
};

/*
 * Their names in `summary`, `hist` and `flows`, in enum order; and the
 * read-family syscalls' in the syscall column of `flows` (read, pread64,
 * readv, preadv, preadv2).
 */
#define IOLAYERS_LAYER_NAMES \
	{ "syscall", "vfs", "fs", "queue", "service", "device", "sock", "tcp", "wait", "uring", \
	  "aio", "fault" }
#define IOLAYERS_CACHE_NAMES \
	{ "HIT", "MISS", "PARTIAL", "DIRECT", "other", "UNK", "ERROR", "READY", "WAITED", "EMPTY" }
#define IOLAYERS_SYSCALL_NAMES \
	{ "read", "pread64", "readv", "preadv", "preadv2", "recvfrom", "recvmsg" }

/**
 * enum iolayers_via - How a read was issued (format 8).
 * @IOLAYERS_VIA_SYSCALL: a read-family syscall (its number in the
 *	syscall column)
 * @IOLAYERS_VIA_URING: an io_uring request (its IORING_OP_* there): a line
 *	of `flows` names it "io_uring:" and the opcode's name
 *	(iolayers_req_op_name())
 * @IOLAYERS_VIA_AIO: a Linux AIO request, an iocb of io_submit() (its
 *	IOCB_CMD_* there): "aio:PREAD" or "aio:PREADV" (format 9)
 * @IOLAYERS_VIA_FAULT: a page fault on a file's mapping: "fault", its
 *	fd -1, its pos the faulting page's file offset (format 9)
 */
enum iolayers_via {
	IOLAYERS_VIA_SYSCALL,
	IOLAYERS_VIA_URING,
	IOLAYERS_VIA_AIO,
	IOLAYERS_VIA_FAULT,
};

/*
 * Where a request's attempts ran, the where column's names: an AIO
 * request's one attempt runs inline in io_submit().
 */
#define IOLAYERS_URING_WHERE_NAMES \
	{ "inline", "taskwork", "iowq", "sqpoll" }

/**
 * iolayers_req_op_name() - The name of a request's read opcode.
 * @via: enum iolayers_via, IOLAYERS_VIA_URING or IOLAYERS_VIA_AIO
 * @op: its IORING_OP_* or IOCB_CMD_* value
 *
 * Return: "READV", "READ_FIXED", "READ" or "READV_FIXED" for io_uring,
 * "PREAD" or "PREADV" for AIO, NULL for another.
 */
static inline const char *iolayers_req_op_name(unsigned int via, unsigned int op)
{
	if (via == IOLAYERS_VIA_AIO) {
		switch (op) {
		case 0:		/* IOCB_CMD_PREAD */
			return "PREAD";
		case 7:		/* IOCB_CMD_PREADV */
			return "PREADV";
		default:
			return (const char *)0;
		}
	}
	switch (op) {
	case 1:		/* IORING_OP_READV */
		return "READV";
	case 4:		/* IORING_OP_READ_FIXED */
		return "READ_FIXED";
	case 22:	/* IORING_OP_READ */
		return "READ";
	case 60:	/* IORING_OP_READV_FIXED, 6.15 on */
		return "READV_FIXED";
	default:
		return (const char *)0;
	}
}

/**
 * iolayers_via_prefix() - The syscall column's prefix of a request.
 * @via: enum iolayers_via
 *
 * Return: "io_uring", "aio" or "fault" (the whole column of a fault),
 * NULL for a syscall.
 */
static inline const char *iolayers_via_prefix(unsigned int via)
{
	return via == IOLAYERS_VIA_URING ? "io_uring" :
	       via == IOLAYERS_VIA_AIO ? "aio" :
	       via == IOLAYERS_VIA_FAULT ? "fault" : (const char *)0;
}

/**
 * iolayers_via_request() - Is a read of this kind a request (its own
 *	flow, issued by attempts: the ur_* columns)?
 * @via: enum iolayers_via
 *
 * Return: true for io_uring and AIO.
 */
static inline int iolayers_via_request(unsigned int via)
{
	return via == IOLAYERS_VIA_URING || via == IOLAYERS_VIA_AIO;
}

/**
 * iolayers_via_layer() - The layer a read's latency from its start to its
 *	end is in.
 * @via: enum iolayers_via
 *
 * Return: IOLAYERS_L_SYSCALL, IOLAYERS_L_URING, IOLAYERS_L_AIO or
 * IOLAYERS_L_FAULT.
 */
static inline int iolayers_via_layer(unsigned int via)
{
	return via == IOLAYERS_VIA_URING ? IOLAYERS_L_URING :
	       via == IOLAYERS_VIA_AIO ? IOLAYERS_L_AIO :
	       via == IOLAYERS_VIA_FAULT ? IOLAYERS_L_FAULT : IOLAYERS_L_SYSCALL;
}

/* The first socket state: the states from here on are socket reads'. */
#define IOLAYERS_C_FIRST_SOCK	IOLAYERS_C_READY

/*
 * The kind of socket a read is from (format 7), the sock column of `flows`:
 * "-" for no socket.
 */
enum iolayers_sock_kind {
	IOLAYERS_SK_NONE,
	IOLAYERS_SK_TCP,
	IOLAYERS_SK_TCP6,
	IOLAYERS_SK_UDP,
	IOLAYERS_SK_UDP6,
	IOLAYERS_SK_UNIX_STREAM,
	IOLAYERS_SK_UNIX_DGRAM,
	IOLAYERS_SK_OTHER,
	IOLAYERS_NR_SOCK_KINDS,
};

#define IOLAYERS_SOCK_NAMES \
	{ "-", "tcp", "tcp6", "udp", "udp6", "unix", "unix-dgram", "socket" }

/*
 * The module's parameters: the runtime settings (pid, comm, children,
 * cgroup, slow_us, batch_us, reset) are written here; debugfs only shows
 * them.
 */
#define IOLAYERS_PARAMS_DIR	"/sys/module/iolayers/parameters"

#define IOLAYERS_FILE_VERSION	"version"
#define IOLAYERS_FILE_LAYERS	"layers"
#define IOLAYERS_FILE_STATS	"stats"
#define IOLAYERS_FILE_PID	"pid"
#define IOLAYERS_FILE_SUMMARY	"summary"
#define IOLAYERS_FILE_HIST	"hist"
#define IOLAYERS_FILE_FLOWS	"flows"
#define IOLAYERS_FILE_SLOW	"slow"
#define IOLAYERS_FILE_COMM	"comm"
#define IOLAYERS_FILE_CHILDREN	"children"
#define IOLAYERS_FILE_CGROUP	"cgroup"
#define IOLAYERS_FILE_SLOW_US	"slow_us"
#define IOLAYERS_FILE_BATCH_US	"batch_us"
#define IOLAYERS_FILE_RESET	"reset"
/*
 * The files followed reads read (format 6): "fs_dev ino path", then per
 * file its file system's major:minor, inode number and path (the rest of
 * the line, which may hold blanks; its end after "..." when longer than
 * 255 bytes).
 */
#define IOLAYERS_FILE_FILES	"files"
/*
 * The TCP receive path (format 7): tcp_v4_do_rcv/tcp_v6_do_rcv time per
 * segment of the TCP sockets followed reads read (from their first read
 * to their close), "layer tcp_rcv count N sum_ns S min_ns M max_ns X",
 * then `hist`'s bucket lines.
 */
#define IOLAYERS_FILE_RCV	"rcv"

/*
 * The stream of completed reads: a subdirectory, so that
 * a `cat` of every file of the directory never blocks in it. `events` is
 * consumed as it is read (one reader at a time), as ftrace's trace_pipe:
 * the header line of `flows`, then one line per read as reads complete,
 * in completion order across CPUs, and a line
 * "# lost N cpu C" where N records of that CPU were lost before the next
 * line (format 6).
 */
#define IOLAYERS_STREAM_DIR	"stream"
#define IOLAYERS_FILE_EVENTS	"events"
#define IOLAYERS_FILE_RAW	"raw"

/*
 * stream/raw: the same stream (sharing its one reader) in binary form.
 * Each read() returns whole records (-EINVAL for a buffer smaller than
 * the largest record); a record starts with struct iolayers_rec_hdr, whose
 * size lets a reader skip types it does not know. The first record is
 * IOLAYERS_REC_START (the stream's format version); struct layouts only
 * ever grow at their end, and the version changes when a field's meaning
 * does. Little-endian, naturally aligned; times are CLOCK_MONOTONIC ns.
 */
#define IOLAYERS_STREAM_VERSION	4

/* Layers with a slot in struct iolayers_rec_read's ns (the file path's). */
#define IOLAYERS_REC_LAYERS	6

enum iolayers_rec_type {
	IOLAYERS_REC_START = 1,	/* struct iolayers_rec_start */
	IOLAYERS_REC_READ = 2,	/* struct iolayers_rec_read */
	IOLAYERS_REC_LOST = 3,	/* struct iolayers_rec_lost */
	IOLAYERS_REC_BRIEF = 4,	/* struct iolayers_rec_brief (version 4 on) */
};

/**
 * struct iolayers_rec_hdr - The head of every binary record.
 * @type: enum iolayers_rec_type
 * @size: bytes of the whole record, this header included
 * @cpu: the CPU whose buffer held it
 */
struct iolayers_rec_hdr {
	__u16 type;
	__u16 size;
	__u32 cpu;
};

/**
 * struct iolayers_rec_start - First record of a binary stream.
 * @hdr: IOLAYERS_REC_START
 * @version: IOLAYERS_STREAM_VERSION
 * @format: IOLAYERS_FORMAT_VERSION of the module
 * @open_ns: when the stream was opened
 */
struct iolayers_rec_start {
	struct iolayers_rec_hdr hdr;
	__u32 version;
	__u32 format;
	__u64 open_ns;
};

/**
 * struct iolayers_rec_lost - Records of one CPU lost before the next one.
 * @hdr: IOLAYERS_REC_LOST (@hdr.cpu: the CPU that lost them)
 * @count: how many
 */
struct iolayers_rec_lost {
	struct iolayers_rec_hdr hdr;
	__u64 count;
};

/**
 * struct iolayers_rec_read - One completed read(): a line of `flows`.
 * @hdr: IOLAYERS_REC_READ
 * @seq: the flow's id
 * @start_ns: sys_enter
 * @pos: file offset (-1: none)
 * @req: bytes requested
 * @ret: what the syscall returned
 * @ino: the file's inode number (0: not seen)
 * @ns: latency of the first six layers of enum iolayers_layer (syscall to
 *	device; -1: not reached)
 * @vfs_off: VFS entry, ns after sys_enter (-1: not reached)
 * @fs_off: FS entry (-1: not reached)
 * @queue_off: first bio queued (-1: none)
 * @issue_off: first request issued (-1: none)
 * @device_off: last device completion (-1: none)
 * @done_off: last request completion (-1: none)
 * @bio_bytes: bytes of its bios
 * @rq_bytes: bytes of its requests
 * @ra_bytes: readahead bytes added during the read
 * @tid: thread id
 * @tgid: process id
 * @fd: file descriptor
 * @bios: its bios
 * @rqs: its requests
 * @requeues: their requeues
 * @errors: requests that failed
 * @fs_major: the file system's device, major
 * @fs_minor: and minor
 * @dev_major: the first request's disk, major (0: none)
 * @dev_minor: and minor
 * @syscall: index in IOLAYERS_SYSCALL_NAMES
 * @cache: enum iolayers_cache
 * @missed: layers whose function entry was refused (bit 0 vfs, 1 fs,
 *	2 block)
 * @ndisks: disks its requests went to
 * @comm: task name, NUL-terminated
 * @disk: the first request's disk name, NUL-terminated ("" none, "?" not
 *	in the module's table of disks)
 * @sock_ns: a socket read's SOCK latency (-1: not a socket read; format 7
 *	on, as the three below)
 * @tcp_ns: its TCP latency (-1: not reached)
 * @wait_ns: the time it waited for data (-1: did not wait)
 * @sock_off: sock_recvmsg's entry, ns after sys_enter (-1: not reached)
 * @tcp_off: tcp_recvmsg's entry (-1: not reached)
 * @sock: enum iolayers_sock_kind
 * @via: enum iolayers_via (stream version 2 on, as the fields below): for
 *	an io_uring request @syscall is its IORING_OP_*, @start_ns its
 *	submission, @ns[0] its latency to the CQE, @ret the CQE's result;
 *	for an AIO request (version 3) its IOCB_CMD_*, its submission, its
 *	latency to its completion event and the event's result
 * @attempts: a request's attempts to issue it (0 otherwise; 1 for AIO)
 * @where: where they ran, bit i IOLAYERS_URING_WHERE_NAMES[i]
 * @pad: zero
 * @ur_issue_off: a request's first attempt, ns after its
 *	submission (-1: none, or not a request)
 * @ur_issue_ns: the time its attempts took, summed (-1: as above); the
 *	rest of its latency it waited: queued for io-wq or task work, or
 *	for its I/O
 */
struct iolayers_rec_read {
	struct iolayers_rec_hdr hdr;
	__u64 seq;
	__u64 start_ns;
	__s64 pos;
	__u64 req;
	__s64 ret;
	__u64 ino;
	__s64 ns[IOLAYERS_REC_LAYERS];
	__s64 vfs_off;
	__s64 fs_off;
	__s64 queue_off;
	__s64 issue_off;
	__s64 device_off;
	__s64 done_off;
	__u64 bio_bytes;
	__u64 rq_bytes;
	__u64 ra_bytes;
	__s32 tid;
	__s32 tgid;
	__s32 fd;
	__u32 bios;
	__u32 rqs;
	__u32 requeues;
	__u32 errors;
	__u32 fs_major;
	__u32 fs_minor;
	__u32 dev_major;
	__u32 dev_minor;
	__u8 syscall;
	__u8 cache;
	__u8 missed;
	__u8 ndisks;
	char comm[16];
	char disk[32];
	__s64 sock_ns;
	__s64 tcp_ns;
	__s64 wait_ns;
	__s64 sock_off;
	__s64 tcp_off;
	__u8 sock;
	__u8 via;
	__u8 attempts;
	__u8 where;
	__u8 pad[4];
	__s64 ur_issue_off;
	__s64 ur_issue_ns;
};

/**
 * struct iolayers_rec_brief - A read that reached no block layer, in brief.
 * @hdr: IOLAYERS_REC_BRIEF
 * @seq: as struct iolayers_rec_read's, and so every field up to @comm
 * @start_ns: sys_enter
 * @pos: file offset (-1: none)
 * @req: bytes requested
 * @ret: what the syscall returned
 * @ino: the file's inode number (0: not seen)
 * @sys_ns: its SYSCALL latency (@ns[0] of struct iolayers_rec_read)
 * @vfs_ns: VFS latency (-1: not reached)
 * @fs_ns: FS latency (-1: not reached)
 * @vfs_off: VFS entry, ns after sys_enter (-1: not reached)
 * @fs_off: FS entry (-1: not reached)
 * @ra_bytes: readahead bytes added during the read
 * @tid: thread id
 * @tgid: process id
 * @fd: file descriptor
 * @fs_major: the file system's device, major
 * @fs_minor: and minor
 * @syscall: index in IOLAYERS_SYSCALL_NAMES
 * @cache: enum iolayers_cache
 * @missed: as in struct iolayers_rec_read
 * @via: enum iolayers_via: a read-family syscall or a page fault, never
 *	a request
 * @comm: task name, NUL-terminated
 *
 * Stream version 4 on: a read with no bio and no request (every cached
 * one), not a socket read and not an io_uring or AIO request, is this
 * record, 144 bytes instead of struct iolayers_rec_read's 336: the same
 * read, with its block, device, socket and request parts not reached
 * (@ns[3..5], the *_off of the block layer, @sock_ns to @tcp_off,
 * @ur_issue_off and @ur_issue_ns -1; the byte and request counts, the
 * disk's numbers and name, @sock, @attempts and @where zero or empty).
 * Every byte a reader copies and a recording keeps costs, and cached
 * reads are most of what a recording holds.
 */
struct iolayers_rec_brief {
	struct iolayers_rec_hdr hdr;
	__u64 seq;
	__u64 start_ns;
	__s64 pos;
	__u64 req;
	__s64 ret;
	__u64 ino;
	__s64 sys_ns;
	__s64 vfs_ns;
	__s64 fs_ns;
	__s64 vfs_off;
	__s64 fs_off;
	__u64 ra_bytes;
	__s32 tid;
	__s32 tgid;
	__s32 fd;
	__u32 fs_major;
	__u32 fs_minor;
	__u8 syscall;
	__u8 cache;
	__u8 missed;
	__u8 via;
	char comm[16];
};

/*
 * Columns of `flows` and `slow`, one read() per line, oldest first. Times
 * in ns; start_ns is sys_enter's CLOCK_MONOTONIC time, *_off are offsets
 * from it; "-" where a layer was not reached. queue/service/device are the
 * longest of the read's requests; disk is the disk of its first request
 * ("+" after it: some went to other disks; "?": one not in the table of
 * disks; "-": no request), and missed the layers whose function entry
 * the recursion guard refused during the read ("vfs,fs,block" or
 * some of them; "-": none), both added in format 5. Format 6 made pos the
 * file offset of every read (read and readv: the file position they
 * started at; -1 only for streams such as pipes) and added the file
 * (ino, and fs_dev its file system's major:minor; "-": no VFS or FS entry
 * seen), dev (major:minor of the first request's disk, "-": none) and
 * ndisks (how many disks its requests went to). Format 7 added the
 * socket reads' columns: sock (enum iolayers_sock_kind's name), sock_ns,
 * tcp_ns, wait_ns (the time it waited for data), sock_off and tcp_off ("-"
 * where not reached); a socket read's cache column holds READY, WAITED
 * or EMPTY (or UNK, other: see enum iolayers_cache). Format 8 added
 * io_uring requests: syscall "io_uring:READ" (or READV, READ_FIXED),
 * start_ns the submission, syscall_ns the time to the CQE, ret its
 * result; and the columns ur_attempts (attempts to issue it),
 * ur_issue_ns (their time, summed; the rest it waited), ur_issue_off (the
 * first one's start after the submission) and ur_where (the contexts
 * they ran in, comma-separated IOLAYERS_URING_WHERE_NAMES), all "-" for
 * a syscall. Format 9 added Linux AIO requests: syscall "aio:PREAD" (or
 * PREADV), start_ns its submission, syscall_ns the time to its
 * completion event, ret its result, ur_attempts 1 (its issue in
 * io_submit(), ur_where "inline"); an error io_submit() returns for it
 * is its ret, with no event. And page faults on a file's mapping:
 * syscall "fault", fd -1, pos the faulting page's file offset, req its
 * size (a page), ret the bytes it mapped (-EFAULT: the fault failed),
 * syscall_ns the fault's time, retries included; vfs, fs and ur_* "-".
 */
#define IOLAYERS_FLOWS_HEADER \
	"seq start_ns tid tgid comm syscall fd pos req ret cache syscall_ns vfs_ns fs_ns " \
	"queue_ns service_ns device_ns bios rqs bio_bytes rq_bytes ra_bytes " \
	"requeues errors vfs_off fs_off queue_off issue_off device_off done_off disk missed " \
	"ino fs_dev dev ndisks sock sock_ns tcp_ns wait_ns sock_off tcp_off " \
	"ur_attempts ur_issue_ns ur_issue_off ur_where"

#endif /* _UAPI_IOLAYERS_H */
