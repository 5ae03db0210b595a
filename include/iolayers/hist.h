/* SPDX-License-Identifier: GPL-2.0 */
/* Per-CPU log2 latency histograms, one per layer. */
#ifndef _IOLAYERS_HIST_H
#define _IOLAYERS_HIST_H

#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/types.h>
#include <uapi/iolayers.h>

/**
 * enum iolayers_layer - Layers that have a latency histogram.
 * @IOLAYERS_L_SYSCALL: sys_enter to sys_exit of a read-family syscall
 * @IOLAYERS_L_VFS: vfs_read entry to return
 * @IOLAYERS_L_FS: the file system's read_iter (ext4) or filemap_read
 * @IOLAYERS_L_QUEUE: BLOCK queue latency, insert (or bio queued) to issue;
 *	per read, the longest of its requests'
 * @IOLAYERS_L_SERVICE: BLOCK service latency, issue to completion (longest)
 * @IOLAYERS_L_DEVICE: DEVICE latency, nvme_setup_cmd to nvme_complete_rq
 *	(longest)
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
 * @IOLAYERS_C_UNK: undecidable because the FS layer could not be attached
 * @IOLAYERS_NR_CACHE: number of states
 */
enum iolayers_cache {
	IOLAYERS_C_HIT,
	IOLAYERS_C_MISS,
	IOLAYERS_C_PARTIAL,
	IOLAYERS_C_DIRECT,
	IOLAYERS_C_OTHER,
	IOLAYERS_C_UNK,
	IOLAYERS_NR_CACHE,
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

/**
 * struct iolayers_sample - One layer's latency in one read.
 * @layer: the layer
 * @ns: its latency
 * @bytes: bytes it moved
 */
struct iolayers_sample {
	enum iolayers_layer layer;
	u64 ns;
	u64 bytes;
};

/**
 * iolayers_log2_bucket() - Histogram bucket of a value.
 * @value: a latency in ns or a size in bytes
 *
 * Bucket 0 holds 0 and 1; bucket i (i >= 1) holds [2^i, 2^(i+1)). Inline:
 * it runs for every layer of every read.
 *
 * Context: any.
 * Return: bucket index in 0..IOLAYERS_HIST_BUCKETS-1.
 */
static inline unsigned int iolayers_log2_bucket(u64 value)
{
	if (value < 2)
		return 0;
	return min_t(unsigned int, ilog2(value), IOLAYERS_HIST_BUCKETS - 1);
}

void iolayers_hist_record(enum iolayers_cache cache, const struct iolayers_sample *s,
			  unsigned int n);
void iolayers_hist_reset(void);
void iolayers_hist_sum(enum iolayers_layer layer, int cache, struct iolayers_hist *out);
int iolayers_hist_init(void);
void iolayers_hist_exit(void);
const char *iolayers_layer_name(enum iolayers_layer layer);
const char *iolayers_cache_name(enum iolayers_cache cache);
u64 iolayers_hist_percentile(const struct iolayers_hist *h, unsigned int pct);
enum iolayers_cache iolayers_cache_decide(bool fs_reached, bool fs_available, bool direct,
					  u64 range_pages, u64 added_pages, bool iowait);

#endif /* _IOLAYERS_HIST_H */
