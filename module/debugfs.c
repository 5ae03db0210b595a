// SPDX-License-Identifier: GPL-2.0
/* The /sys/kernel/debug/iolayers/ files. */

#include <linux/debugfs.h>
#include <linux/kprobes.h>
#include <linux/math64.h>
#include <linux/seq_file.h>
#include <iolayers/iolayers.h>
#include <iolayers/flow.h>
#include <iolayers/hist.h>
#include <uapi/iolayers.h>

static struct dentry *iolayers_dir;

static int version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "iolayers %s\nformat %d\n", IOLAYERS_VERSION_STRING,
		   IOLAYERS_FORMAT_VERSION);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(version);

static int layers_show(struct seq_file *m, void *v)
{
	int i;

	seq_printf(m, "%-28s %-8s %-11s %s\n", "probe", "layer", "kind", "state");
	for (i = 0; i < IOLAYERS_NR_PROBES; i++) {
		const struct iolayers_probe *p = &iolayers_probes[i];

		seq_printf(m, "%-28s %-8s %-11s %s", p->name, p->layer, p->kind,
			   iolayers_probe_state_name(p->state));
		if (p->state == IOLAYERS_PROBE_FAILED || p->err)
			seq_printf(m, ": %d", p->err);
		seq_putc(m, '\n');
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(layers);

static int stats_show(struct seq_file *m, void *v)
{
	int i, occupancy, high;

	seq_printf(m, "%-28s %12s %10s\n", "probe", "hits", "nmissed");
	for (i = 0; i < IOLAYERS_NR_PROBES; i++) {
		const struct iolayers_probe *p = &iolayers_probes[i];

		seq_printf(m, "%-28s %12llu ", p->name, iolayers_hits_sum(i));
		/* Instances missed for lack of a free one, plus reentrancy. */
		if (p->krp)
			seq_printf(m, "%10lu\n", READ_ONCE(p->krp->nmissed) +
				   READ_ONCE(p->krp->kp.nmissed));
		else
			seq_printf(m, "%10s\n", "-");
	}
	seq_puts(m, "\n");
	for (i = 0; i < IOLAYERS_NR_DROPS; i++)
		seq_printf(m, "drop_%-11s %12llu\n", iolayers_drop_name(i), iolayers_drops_sum(i));
	occupancy = iolayers_flow_occupancy(&high);
	seq_printf(m, "%-16s %12d\n%-16s %12d\n%-16s %12u\n", "flows_in_flight", occupancy,
		   "flows_high_water", high, "max_flows", READ_ONCE(iolayers_max_flows));
	seq_printf(m, "%-16s %12llu\n", "readahead_pages", iolayers_ra_pages_sum());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static void summary_line(struct seq_file *m, const char *name, const struct iolayers_hist *h)
{
	seq_printf(m, "%-8s %10llu %14llu", name, h->count, h->bytes);
	if (!h->count) {
		seq_printf(m, " %10s %10s %10s %10s %10s %10s\n", "-", "-", "-", "-", "-", "-");
		return;
	}
	seq_printf(m, " %10llu %10llu %10llu %10llu %10llu %10llu\n", h->min_ns,
		   div64_u64(h->sum_ns, h->count), h->max_ns, iolayers_hist_percentile(h, 50),
		   iolayers_hist_percentile(h, 90), iolayers_hist_percentile(h, 99));
}

/*
 * Per layer over all reads, then the cache states: reads per state and
 * their share of the file reads (all but "other").
 */
static int summary_show(struct seq_file *m, void *v)
{
	u64 reads[IOLAYERS_NR_CACHE], files = 0;
	struct iolayers_hist h;
	int l, c;

	seq_printf(m, "%-8s %10s %14s %10s %10s %10s %10s %10s %10s\n", "layer", "count",
		   "bytes", "min_ns", "avg_ns", "max_ns", "p50_ns", "p90_ns", "p99_ns");
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++) {
		iolayers_hist_sum(l, -1, &h);
		summary_line(m, iolayers_layer_name(l), &h);
	}
	for (c = 0; c < IOLAYERS_NR_CACHE; c++) {
		iolayers_hist_sum(IOLAYERS_L_SYSCALL, c, &h);
		reads[c] = h.count;
		if (c != IOLAYERS_C_OTHER)
			files += h.count;
	}
	seq_printf(m, "\n%-8s %10s %8s\n", "cache", "reads", "percent");
	for (c = 0; c < IOLAYERS_NR_CACHE; c++) {
		seq_printf(m, "%-8s %10llu ", iolayers_cache_name(c), reads[c]);
		if (c == IOLAYERS_C_OTHER || !files)
			seq_printf(m, "%8s\n", "-");
		else
			seq_printf(m, "%8llu.%01llu\n", div64_u64(reads[c] * 100, files),
				   div64_u64(reads[c] * 1000, files) % 10);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(summary);

/* Per layer and cache state: a header line, then each non-empty bucket. */
static int hist_show(struct seq_file *m, void *v)
{
	struct iolayers_hist h;
	int l, c, i;

	for (l = 0; l < IOLAYERS_NR_LAYERS; l++) {
		for (c = 0; c < IOLAYERS_NR_CACHE; c++) {
			iolayers_hist_sum(l, c, &h);
			if (!h.count)
				continue;
			seq_printf(m, "layer %s cache %s count %llu\n", iolayers_layer_name(l),
				   iolayers_cache_name(c), h.count);
			for (i = 0; i < IOLAYERS_HIST_BUCKETS; i++) {
				if (!h.buckets[i])
					continue;
				u64 hi = i == IOLAYERS_HIST_BUCKETS - 1 ? U64_MAX : (2ULL << i) - 1;

				seq_printf(m, "%20llu %20llu %12llu\n", i ? 1ULL << i : 0, hi,
					   h.buckets[i]);
			}
		}
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hist);

static int pid_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", READ_ONCE(iolayers_target_tgid));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pid);

/**
 * iolayers_debugfs_init() - Create the debugfs directory and its files.
 *
 * Creates /sys/kernel/debug/iolayers. What debugfs calls return is not
 * checked, as debugfs asks.
 *
 * Context: process context, may sleep.
 */
void iolayers_debugfs_init(void)
{
	iolayers_dir = debugfs_create_dir(IOLAYERS_DEBUGFS_DIR, NULL);
	debugfs_create_file(IOLAYERS_FILE_VERSION, 0400, iolayers_dir, NULL, &version_fops);
	debugfs_create_file(IOLAYERS_FILE_LAYERS, 0400, iolayers_dir, NULL, &layers_fops);
	debugfs_create_file(IOLAYERS_FILE_STATS, 0400, iolayers_dir, NULL, &stats_fops);
	debugfs_create_file(IOLAYERS_FILE_PID, 0400, iolayers_dir, NULL, &pid_fops);
	debugfs_create_file(IOLAYERS_FILE_SUMMARY, 0400, iolayers_dir, NULL, &summary_fops);
	debugfs_create_file(IOLAYERS_FILE_HIST, 0400, iolayers_dir, NULL, &hist_fops);
}

/**
 * iolayers_debugfs_exit() - Remove the debugfs directory.
 *
 * Waits for readers of the files to leave them.
 *
 * Context: process context, may sleep.
 */
void iolayers_debugfs_exit(void)
{
	debugfs_remove_recursive(iolayers_dir);
	iolayers_dir = NULL;
}
