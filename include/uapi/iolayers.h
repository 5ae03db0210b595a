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
#define IOLAYERS_FORMAT_VERSION	3
#define IOLAYERS_VERSION_STRING	"0.1.0"

/* Number of log2 buckets in every histogram: bucket i holds [2^i, 2^(i+1)). */
#define IOLAYERS_HIST_BUCKETS	64

#define IOLAYERS_FILE_VERSION	"version"
#define IOLAYERS_FILE_LAYERS	"layers"
#define IOLAYERS_FILE_STATS	"stats"
#define IOLAYERS_FILE_PID	"pid"
#define IOLAYERS_FILE_SUMMARY	"summary"
#define IOLAYERS_FILE_HIST	"hist"

#endif /* _UAPI_IOLAYERS_H */
