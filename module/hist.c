// SPDX-License-Identifier: GPL-2.0
/* Per-CPU log2 latency histograms, summed only when read. */

#include <linux/percpu.h>
#include <linux/cpumask.h>
#include <linux/string.h>
#include <linux/limits.h>
#include <iolayers/iolayers.h>
#include <iolayers/hist.h>

static DEFINE_PER_CPU(struct iolayers_hist [IOLAYERS_NR_LAYERS], iolayers_hists);

static const char * const iolayers_layer_names[IOLAYERS_NR_LAYERS] = {
	[IOLAYERS_L_SYSCALL] = "syscall",
	[IOLAYERS_L_VFS] = "vfs",
};

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
 * iolayers_hist_record() - Add one sample to this CPU's histogram of a layer.
 * @layer: the layer
 * @ns: the latency in ns
 * @bytes: bytes the operation moved
 *
 * Only this_cpu operations: safe against interrupts on this CPU for the
 * counters; min and max use cmpxchg so a nested sample is not lost.
 *
 * Context: any, including hard interrupt.
 */
void iolayers_hist_record(enum iolayers_layer layer, u64 ns, u64 bytes)
{
	u64 old;

	this_cpu_inc(iolayers_hists[layer].buckets[iolayers_log2_bucket(ns)]);
	this_cpu_inc(iolayers_hists[layer].count);
	this_cpu_add(iolayers_hists[layer].sum_ns, ns);
	this_cpu_add(iolayers_hists[layer].bytes, bytes);
	do {
		old = this_cpu_read(iolayers_hists[layer].max_ns);
	} while (ns > old && this_cpu_cmpxchg(iolayers_hists[layer].max_ns, old, ns) != old);
	do {
		old = this_cpu_read(iolayers_hists[layer].min_ns);
	} while (ns < old && this_cpu_cmpxchg(iolayers_hists[layer].min_ns, old, ns) != old);
}

/**
 * iolayers_hist_sum() - Sum a layer's histograms over all CPUs.
 * @layer: the layer
 * @out: the sum
 *
 * Context: any; not atomic with respect to probes that are recording.
 */
void iolayers_hist_sum(enum iolayers_layer layer, struct iolayers_hist *out)
{
	int cpu, i;

	memset(out, 0, sizeof(*out));
	out->min_ns = U64_MAX;
	for_each_possible_cpu(cpu) {
		const struct iolayers_hist *h = &per_cpu(iolayers_hists, cpu)[layer];

		for (i = 0; i < IOLAYERS_HIST_BUCKETS; i++)
			out->buckets[i] += READ_ONCE(h->buckets[i]);
		out->count += READ_ONCE(h->count);
		out->sum_ns += READ_ONCE(h->sum_ns);
		out->bytes += READ_ONCE(h->bytes);
		out->min_ns = min(out->min_ns, READ_ONCE(h->min_ns));
		out->max_ns = max(out->max_ns, READ_ONCE(h->max_ns));
	}
}

/**
 * iolayers_hist_reset() - Empty every histogram.
 *
 * Context: process context, with no probe attached (load time).
 */
void iolayers_hist_reset(void)
{
	int cpu, l;

	for_each_possible_cpu(cpu) {
		struct iolayers_hist *h = per_cpu(iolayers_hists, cpu);

		memset(h, 0, sizeof(struct iolayers_hist) * IOLAYERS_NR_LAYERS);
		for (l = 0; l < IOLAYERS_NR_LAYERS; l++)
			h[l].min_ns = U64_MAX;
	}
}
