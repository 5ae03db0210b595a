/* SPDX-License-Identifier: GPL-2.0 */
/* Per-CPU log2 latency histograms, one per layer. */
#ifndef _IOLAYERS_HIST_H
#define _IOLAYERS_HIST_H

#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/types.h>
#include <uapi/iolayers.h>

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

/**
 * iolayers_hist_add() - Add one sample to a histogram.
 * @h: the histogram (its writer's own: no other writer at the same time)
 * @ns: the latency
 * @bytes: the bytes its operation moved
 *
 * Context: any; the caller keeps other writers of @h out.
 */
static __always_inline void iolayers_hist_add(struct iolayers_hist *h, u64 ns, u64 bytes)
{
	h->buckets[iolayers_log2_bucket(ns)]++;
	h->count++;
	h->sum_ns += ns;
	h->bytes += bytes;
	if (ns > h->max_ns)
		h->max_ns = ns;
	if (ns < h->min_ns)
		h->min_ns = ns;
}

/**
 * struct iolayers_hist_cpu - One layer's histograms on one CPU.
 * @h: one per cache state
 *
 * Too big for a module's static per-CPU area: allocated at load, one
 * layer at a time (the whole matrix is more than one per-CPU allocation
 * may take, 32 KiB).
 */
struct iolayers_hist_cpu {
	struct iolayers_hist h[IOLAYERS_NR_CACHE];
};

extern struct iolayers_hist_cpu __percpu *iolayers_hists[IOLAYERS_NR_LAYERS];

/**
 * iolayers_hist_note() - Add a read's latency at one layer to this CPU's
 *	histogram of its cache state.
 * @layer: the layer (a constant at every call site)
 * @cache: the read's cache state
 * @ns: its latency at @layer
 * @bytes: bytes it moved there
 *
 * Plain additions, inline: the only writers are reads ending in their own
 * task (sys_exit) with preemption disabled, so nothing else writes this
 * CPU's histograms meanwhile (no interrupt records); readers sum them
 * unlocked. No array of samples is built first: on Debian's kernels every
 * local array is zeroed on entry (CONFIG_INIT_STACK_ALL_ZERO) and every
 * index checked (UBSAN_BOUNDS on 7.2), some 60 instructions a read.
 *
 * Context: preemption disabled, the read's own task.
 */
static __always_inline void iolayers_hist_note(enum iolayers_layer layer,
					       enum iolayers_cache cache, u64 ns, u64 bytes)
{
	iolayers_hist_add(&this_cpu_ptr(iolayers_hists[layer])->h[cache], ns, bytes);
}

struct seq_file;

void iolayers_hist_reset(void);
void iolayers_hist_clear(struct iolayers_hist *h);
void iolayers_hist_merge(struct iolayers_hist *out, const struct iolayers_hist *h);
void iolayers_hist_show_buckets(struct seq_file *m, const struct iolayers_hist *h);
void iolayers_hist_sum(enum iolayers_layer layer, int cache, struct iolayers_hist *out);
int iolayers_hist_init(void);
size_t iolayers_hist_bytes(void);
void iolayers_hist_exit(void);
const char *iolayers_layer_name(enum iolayers_layer layer);
const char *iolayers_cache_name(enum iolayers_cache cache);
u64 iolayers_hist_percentile(const struct iolayers_hist *h, unsigned int pct);

#endif /* _IOLAYERS_HIST_H */
