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
#define IOLAYERS_FORMAT_VERSION	4
#define IOLAYERS_VERSION_STRING	"0.1.0"

/* Number of log2 buckets in every histogram: bucket i holds [2^i, 2^(i+1)). */
#define IOLAYERS_HIST_BUCKETS	64

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
 * Columns of `flows` and `slow`, one read() per line, oldest first. Times
 * in ns; start_ns is sys_enter's CLOCK_MONOTONIC time, *_off are offsets
 * from it; "-" where a layer was not reached. queue/service/device are the
 * longest of the read's requests.
 */
#define IOLAYERS_FLOWS_HEADER \
	"seq start_ns tid tgid comm syscall fd pos req ret cache syscall_ns vfs_ns fs_ns " \
	"queue_ns service_ns device_ns bios rqs bio_bytes rq_bytes ra_bytes " \
	"requeues errors vfs_off fs_off queue_off issue_off device_off done_off"

#endif /* _UAPI_IOLAYERS_H */
