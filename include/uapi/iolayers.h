/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/* What userspace may rely on in /sys/kernel/debug/iolayers/. */
#ifndef _UAPI_IOLAYERS_H
#define _UAPI_IOLAYERS_H

/*
 * The debugfs directory is not a stable ABI (see Documentation/design.rst);
 * the format version below changes whenever a file's layout does, and the
 * reader refuses versions it does not know.
 */
#define IOLAYERS_DEBUGFS_DIR	"iolayers"
#define IOLAYERS_FORMAT_VERSION	6
#define IOLAYERS_VERSION_STRING	"0.1.0"

/* Number of log2 buckets in every histogram: bucket i holds [2^i, 2^(i+1)). */
#define IOLAYERS_HIST_BUCKETS	64

/**
 * enum iolayers_layer - Layers that have a latency histogram.
 * @IOLAYERS_L_SYSCALL: sys_enter to sys_exit of a read-family syscall
 * @IOLAYERS_L_VFS: vfs_read (or vfs_readv) entry to the syscall's exit
 * @IOLAYERS_L_FS: the outermost FS call's entry (ext4_file_read_iter or
 *	filemap_read) to the syscall's exit
 * @IOLAYERS_L_QUEUE: BLOCK queue latency, insert (or bio queued) to issue;
 *	per read, the longest of its requests'
 * @IOLAYERS_L_SERVICE: BLOCK service latency, issue to completion (longest)
 * @IOLAYERS_L_DEVICE: DEVICE latency, nvme_setup_cmd to nvme_complete_rq,
 *	or scsi_dispatch_cmd_start to scsi_dispatch_cmd_done (longest)
 * @IOLAYERS_NR_LAYERS: number of layers
 */
enum iolayers_layer {
	IOLAYERS_L_SYSCALL,
	IOLAYERS_L_VFS,
	IOLAYERS_L_FS,
	IOLAYERS_L_QUEUE,
	IOLAYERS_L_SERVICE,
	IOLAYERS_L_DEVICE,
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
 *	(added in format 5)
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
	IOLAYERS_NR_CACHE,
};

/*
 * Their names in `summary`, `hist` and `flows`, in enum order; and the
 * read-family syscalls' in the syscall column of `flows` (read, pread64,
 * readv, preadv, preadv2).
 */
#define IOLAYERS_LAYER_NAMES	{ "syscall", "vfs", "fs", "queue", "service", "device" }
#define IOLAYERS_CACHE_NAMES	{ "HIT", "MISS", "PARTIAL", "DIRECT", "other", "UNK", "ERROR" }
#define IOLAYERS_SYSCALL_NAMES	{ "read", "pread64", "readv", "preadv", "preadv2" }

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
#define IOLAYERS_FILE_SLOW_US	"slow_us"
#define IOLAYERS_FILE_RESET	"reset"

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

/*
 * Columns of `flows` and `slow`, one read() per line, oldest first. Times
 * in ns; start_ns is sys_enter's CLOCK_MONOTONIC time, *_off are offsets
 * from it; "-" where a layer was not reached. queue/service/device are the
 * longest of the read's requests; disk is the disk of its first request
 * ("+" after it: some went to other disks; "?": one not in the table of
 * disks; "-": no request), and missed the layers whose function entry
 * ftrace's recursion guard refused during the read ("vfs,fs,block" or
 * some of them; "-": none), both added in format 5. Format 6 made pos the
 * file offset of every read (read and readv: the file position they
 * started at; -1 only for streams such as pipes) and added the file
 * (ino, and fs_dev its file system's major:minor; "-": no VFS or FS entry
 * seen), dev (major:minor of the first request's disk, "-": none) and
 * ndisks (how many disks its requests went to).
 */
#define IOLAYERS_FLOWS_HEADER \
	"seq start_ns tid tgid comm syscall fd pos req ret cache syscall_ns vfs_ns fs_ns " \
	"queue_ns service_ns device_ns bios rqs bio_bytes rq_bytes ra_bytes " \
	"requeues errors vfs_off fs_off queue_off issue_off device_off done_off disk missed " \
	"ino fs_dev dev ndisks"

#endif /* _UAPI_IOLAYERS_H */
