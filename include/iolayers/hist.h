/* SPDX-License-Identifier: GPL-2.0 */
/* Per-CPU log2 latency histograms, one per layer. */
#ifndef _IOLAYERS_HIST_H
#define _IOLAYERS_HIST_H

#include <linux/types.h>
#include <uapi/iolayers.h>

/**
 * enum iolayers_layer - Layers that have a latency histogram.
 * @IOLAYERS_L_SYSCALL: sys_enter to sys_exit of a read-family syscall
 * @IOLAYERS_L_VFS: vfs_read entry to return
 * @IOLAYERS_NR_LAYERS: number of layers
 */
enum iolayers_layer {
	IOLAYERS_L_SYSCALL,
	IOLAYERS_L_VFS,
	IOLAYERS_NR_LAYERS,
};

/**
 * struct iolayers_hist - One layer's histogram (per CPU, or a sum of them).
 * @buckets: counts per log2 bucket of latency in ns (see iolayers_log2_bucket())
 * @count: number of samples
 * @sum_ns: sum of the samples
 * @min_ns: smallest sample (U64_MAX when none)
 * @max_ns: largest sample
 * @bytes: bytes moved by the samples' operations
 */
struct iolayers_hist {
	u64 buckets[IOLAYERS_HIST_BUCKETS];
	u64 count;
	u64 sum_ns;
	u64 min_ns;
	u64 max_ns;
	u64 bytes;
};

void iolayers_hist_record(enum iolayers_layer layer, u64 ns, u64 bytes);
void iolayers_hist_sum(enum iolayers_layer layer, struct iolayers_hist *out);
void iolayers_hist_reset(void);
const char *iolayers_layer_name(enum iolayers_layer layer);
u64 iolayers_hist_percentile(const struct iolayers_hist *h, unsigned int pct);

#endif /* _IOLAYERS_HIST_H */
