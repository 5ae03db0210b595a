// SPDX-License-Identifier: GPL-2.0
/* Per-CPU log2 latency histograms, summed only when read. */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/percpu.h>
#include <linux/cpumask.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/limits.h>
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <iolayers/compat.h>
#include <iolayers/hist.h>

/* Per layer, per CPU, per cache state (iolayers_hist_note()). */
struct iolayers_hist_cpu __percpu *iolayers_hists[IOLAYERS_NR_LAYERS];

static const char * const iolayers_layer_names[IOLAYERS_NR_LAYERS] = IOLAYERS_LAYER_NAMES;
static const char * const iolayers_cache_names[IOLAYERS_NR_CACHE] = IOLAYERS_CACHE_NAMES;

/**
 * iolayers_cache_name() - Name of a cache state as shown in debugfs.
 * @cache: the state
 *
 * Return: a static string.
 */
const char *iolayers_cache_name(enum iolayers_cache cache)
{
	return iolayers_cache_names[cache];
}

/**
 * iolayers_layer_name() - Name of a layer as shown in debugfs.
 * @layer: the layer
 *
 * Return: a static string.
 */
const char *iolayers_layer_name(enum iolayers_layer layer)
{
	return iolayers_layer_names[layer];
}

/**
 * iolayers_hist_sum() - Sum a layer's histograms over all CPUs.
 * @layer: the layer
 * @cache: one cache state, or -1 for all of them
 * @out: the sum
 *
 * Context: any; not atomic with respect to probes that are recording.
 */
void iolayers_hist_sum(enum iolayers_layer layer, int cache, struct iolayers_hist *out)
{
	int cpu, c;

	iolayers_hist_clear(out);
	for_each_possible_cpu(cpu) {
		const struct iolayers_hist_cpu *hc = per_cpu_ptr(iolayers_hists[layer], cpu);

		for (c = 0; c < IOLAYERS_NR_CACHE; c++)
			if (cache < 0 || c == cache)
				iolayers_hist_merge(out, &hc->h[c]);
	}
}

/**
 * iolayers_hist_clear() - Empty a histogram.
 * @h: the histogram
 *
 * Context: any; not atomic with respect to a writer.
 */
void iolayers_hist_clear(struct iolayers_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min_ns = U64_MAX;
}

/**
 * iolayers_hist_merge() - Add one histogram into a sum.
 * @out: the sum
 * @h: a histogram that may be written meanwhile (each field read once)
 *
 * Context: any.
 */
void iolayers_hist_merge(struct iolayers_hist *out, const struct iolayers_hist *h)
{
	int i;

	for (i = 0; i < IOLAYERS_HIST_BUCKETS; i++)
		out->buckets[i] += READ_ONCE(h->buckets[i]);
	out->count += READ_ONCE(h->count);
	out->sum_ns += READ_ONCE(h->sum_ns);
	out->bytes += READ_ONCE(h->bytes);
	out->min_ns = min(out->min_ns, READ_ONCE(h->min_ns));
	out->max_ns = max(out->max_ns, READ_ONCE(h->max_ns));
}

/**
 * iolayers_hist_show_buckets() - Print a histogram's non-empty buckets.
 * @m: the seq_file
 * @h: the histogram
 *
 * One line "low high count" per bucket (ns, both edges included), as the
 * `hist` and `rcv` files print them.
 *
 * Context: process context.
 */
void iolayers_hist_show_buckets(struct seq_file *m, const struct iolayers_hist *h)
{
	int i;

	for (i = 0; i < IOLAYERS_HIST_BUCKETS; i++) {
		u64 hi = i == IOLAYERS_HIST_BUCKETS - 1 ? U64_MAX : (2ULL << i) - 1;

		if (h->buckets[i])
			seq_printf(m, "%20llu %20llu %12llu\n", i ? 1ULL << i : 0, hi,
				   h->buckets[i]);
	}
}

/**
 * iolayers_hist_bytes() - Memory the histograms take.
 *
 * Return: bytes, over every possible CPU.
 */
size_t iolayers_hist_bytes(void)
{
	return num_possible_cpus() * sizeof(struct iolayers_hist_cpu) * IOLAYERS_NR_LAYERS;
}

/**
 * iolayers_hist_init() - Allocate the per-CPU histograms, empty.
 *
 * Context: process context (load), may sleep.
 * Return: 0, or -ENOMEM.
 */
int iolayers_hist_init(void)
{
	int l;

	for (l = 0; l < IOLAYERS_NR_LAYERS; l++) {
		iolayers_hists[l] = alloc_percpu(struct iolayers_hist_cpu);
		if (!iolayers_hists[l]) {
			iolayers_hist_exit();
			return -ENOMEM;
		}
	}
	iolayers_hist_reset();
	return 0;
}

/**
 * iolayers_hist_reset() - Empty every histogram.
 *
 * Samples recorded on another CPU while this runs may survive it or be
 * torn (a count without its bucket); `reset` is for between measurements.
 *
 * Context: process context.
 */
void iolayers_hist_reset(void)
{
	int cpu, l, c;

	for_each_possible_cpu(cpu)
		for (l = 0; l < IOLAYERS_NR_LAYERS; l++)
			for (c = 0; c < IOLAYERS_NR_CACHE; c++)
				iolayers_hist_clear(&per_cpu_ptr(iolayers_hists[l], cpu)->h[c]);
}

/**
 * iolayers_hist_exit() - Free the per-CPU histograms.
 *
 * Context: process context (unload), with no probe attached.
 */
void iolayers_hist_exit(void)
{
	int l;

	for (l = 0; l < IOLAYERS_NR_LAYERS; l++) {
		free_percpu(iolayers_hists[l]);
		iolayers_hists[l] = NULL;
	}
}

/**
 * iolayers_hist_percentile() - Interpolated percentile of a log2 histogram.
 * @h: the histogram (summed over CPUs)
 * @pct: the percentile, 0..100
 *
 * Finds the bucket holding the sample of rank ceil(count * pct / 100) and
 * interpolates linearly inside it, assuming its samples are spread evenly
 * over [2^i, 2^(i+1)) ([0, 2) for bucket 0). The answer is clamped to the
 * histogram's exact min and max (so p100 is the max, and a histogram of one
 * value gives that value for every percentile).
 *
 * Context: any.
 * Return: the percentile in the histogram's unit, 0 when it is empty.
 */
u64 iolayers_hist_percentile(const struct iolayers_hist *h, unsigned int pct)
{
	u64 rank, cum = 0, lo, width, v;
	unsigned int i;

	if (!h->count)
		return 0;
	pct = min(pct, 100U);
	rank = max_t(u64, 1, div_u64(h->count * pct + 99, 100));
	for (i = 0; i < IOLAYERS_HIST_BUCKETS; i++) {
		u64 c = h->buckets[i];

		if (!c || cum + c < rank) {
			cum += c;
			continue;
		}
		lo = i ? 1ULL << i : 0;
		width = i ? 1ULL << i : 2;
		v = lo + mul_u64_u64_div_u64(width, rank - cum, c);
		if (v < lo)	/* the last bucket's end: 2^64 */
			v = U64_MAX;
		return clamp(v, h->min_ns, h->max_ns);
	}
	return h->max_ns;
}
EXPORT_SYMBOL_IF_KUNIT(iolayers_hist_percentile);
