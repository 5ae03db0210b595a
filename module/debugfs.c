// SPDX-License-Identifier: GPL-2.0
/* The /sys/kernel/debug/iolayers/ files. */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kstrtox.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/math64.h>
#include <linux/seq_file.h>
#include <iolayers/cache.h>
#include <iolayers/clock.h>
#include <iolayers/debugfs.h>
#include <iolayers/disk.h>
#include <iolayers/fault.h>
#include <iolayers/file.h>
#include <iolayers/filter.h>
#include <iolayers/flow.h>
#include <iolayers/hist.h>
#include <iolayers/probe.h>
#include <iolayers/request.h>
#include <iolayers/settings.h>
#include <iolayers/sock.h>
#include <iolayers/stream.h>
#include <iolayers/syscall.h>
#include <iolayers/table.h>
#include <iolayers/uring.h>
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
	iolayers_probes_show_layers(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(layers);

static int stats_show(struct seq_file *m, void *v)
{
	size_t tables, hist, paths, reuse, reuse_max;
	int i, t, d, occupancy, high;

	iolayers_probes_show_stats(m);
	seq_printf(m, "\n%-8s %10s %10s %10s", "table", "entries", "high", "bound");
	for (d = 0; d < IOLAYERS_NR_DROPS; d++)
		seq_printf(m, " %10s", iolayers_drop_name(d));
	seq_putc(m, '\n');
	for (t = 0; t < IOLAYERS_NR_TABLES; t++) {
		occupancy = iolayers_table_occupancy(t, &high);
		seq_printf(m, "%-8s %10d %10d %10u", iolayers_table_name(t), occupancy, high,
			   iolayers_table_bound(t));
		for (d = 0; d < IOLAYERS_NR_DROPS; d++)
			seq_printf(m, " %10llu", iolayers_table_drops(t, d));
		seq_putc(m, '\n');
	}
	seq_putc(m, '\n');
	iolayers_disks_show(m);
	seq_putc(m, '\n');
	/* Followed read() calls between sys_enter and sys_exit right now. */
	seq_printf(m, "%-20s %12d\n", "flows_in_flight", iolayers_flows_in_flight());
	/* io_uring and AIO reads submitted whose completion was not posted yet. */
	seq_printf(m, "%-20s %12d\n", "uring_in_flight", iolayers_reqs_in_flight());
	/* io_uring reads of followed tasks that make no flow (RECV, ...). */
	seq_printf(m, "%-20s %12llu\n", "uring_unfollowed", iolayers_uring_unfollowed());
	/* Faults of followed tasks mapping no file; faults inside their reads. */
	seq_printf(m, "%-20s %12llu\n", "faults_no_file", iolayers_faults_no_file());
	seq_printf(m, "%-20s %12llu\n", "faults_in_reads", iolayers_faults_in_reads());
	/* Write faults (not recorded); faults given up (a signal: no record). */
	seq_printf(m, "%-20s %12llu\n", "faults_write", iolayers_faults_write());
	seq_printf(m, "%-20s %12llu\n", "faults_given_up", iolayers_faults_given_up());
	/* Requests that completed in interrupt context, recorded by a worker. */
	seq_printf(m, "%-20s %12llu\n", "reqs_irq_done", iolayers_reqs_irq_done());
	/* Reads that lost a function entry to the recursion guard. */
	seq_printf(m, "%-20s %12llu\n", "reads_missed", iolayers_reads_missed());
	/* Grouped function entries' calls no probe of the group matched. */
	seq_printf(m, "%-20s %12llu\n", "fentry_unmatched", iolayers_fentry_unmatched_count());
	/* Function entries attached through one ftrace_ops per layer. */
	seq_printf(m, "%-20s %12u\n", "fentry_grouped", iolayers_fentry_grouped());
	seq_printf(m, "%-20s %12llu\n", "readahead_pages", iolayers_ra_pages_sum());
	/* recvmmsg() calls of followed tasks: counted, not flows. */
	seq_printf(m, "%-20s %12llu\n", "recvmmsg_calls", iolayers_recvmmsg_calls());
	/* The process pid= named exited: pid= was cleared (it reads 0). */
	seq_printf(m, "%-20s %12llu\n", "pid_exited", iolayers_filter_target_exits());
	/* What one clock read costs: each timed handler run includes about one. */
	seq_printf(m, "%-20s %12llu\n", "clock_ns", iolayers_clock_cost_ns());
	/* 1: the handlers' self-accounting (calls, timed) is on (cost=1). */
	seq_printf(m, "%-20s %12d\n", "cost", READ_ONCE(iolayers_cost));
	/* 1: new reads' layer times are TSC differences (clock.h). */
	seq_printf(m, "%-20s %12d\n", "clock_tsc", READ_ONCE(iolayers_clock_tsc));
	/* Reads whose end found no anchor (clock.c). */
	seq_printf(m, "%-20s %12llu\n", "clock_gaps", iolayers_clock_gaps());
	for (i = 0; iolayers_blk_counter_name(i); i++)
		seq_printf(m, "%-20s %12llu\n", iolayers_blk_counter_name(i),
			   iolayers_blk_counter(i));
	/* Records and their losses: stream.c's table, then its counters. */
	seq_putc(m, '\n');
	iolayers_stream_show_stats(m);
	/* The module's memory, apart from its code and static data. */
	tables = iolayers_tables_bytes(&reuse, &reuse_max);
	hist = iolayers_hist_bytes();
	paths = iolayers_files_bytes();
	seq_printf(m, "%-20s %12zu\n", "memory_tables", tables);
	/* Of memory_tables: removed entries kept to reuse, and their bound. */
	seq_printf(m, "%-20s %12zu\n", "memory_reuse", reuse);
	seq_printf(m, "%-20s %12zu\n", "memory_reuse_max", reuse_max);
	seq_printf(m, "%-20s %12zu\n", "memory_hist", hist);
	seq_printf(m, "%-20s %12zu\n", "memory_paths", paths);
	seq_printf(m, "%-20s %12zu\n", "memory_total",
		   tables + hist + paths + iolayers_stream_bytes());
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
static int files_show(struct seq_file *m, void *v)
{
	iolayers_files_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(files);

/* The receive path's time per segment of followed TCP sockets (sock.c). */
static int rcv_show(struct seq_file *m, void *v)
{
	iolayers_rcv_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rcv);

static int summary_show(struct seq_file *m, void *v)
{
	u64 reads[IOLAYERS_NR_CACHE], files = 0, socks = 0, of;
	struct iolayers_hist h;
	int l, c;

	seq_printf(m, "%-8s %10s %14s %10s %10s %10s %10s %10s %10s\n", "layer", "count",
		   "bytes", "min_ns", "avg_ns", "max_ns", "p50_ns", "p90_ns", "p99_ns");
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++) {
		iolayers_hist_sum(l, -1, &h);
		summary_line(m, iolayers_layer_name(l), &h);
	}
	for (c = 0; c < IOLAYERS_NR_CACHE; c++) {
		/* Reads: the read-family syscalls, requests and faults. */
		iolayers_hist_sum(IOLAYERS_L_SYSCALL, c, &h);
		reads[c] = h.count;
		for (l = IOLAYERS_L_URING; l <= IOLAYERS_L_FAULT; l++) {
			iolayers_hist_sum(l, c, &h);
			reads[c] += h.count;
		}
		if (c >= IOLAYERS_C_FIRST_SOCK)
			socks += reads[c];
		else if (c != IOLAYERS_C_OTHER)
			files += reads[c];
	}
	seq_printf(m, "\n%-8s %10s %8s\n", "cache", "reads", "percent");
	for (c = 0; c < IOLAYERS_NR_CACHE; c++) {
		/* File states: of the file reads; socket states: of those. */
		of = c >= IOLAYERS_C_FIRST_SOCK ? socks : files;
		seq_printf(m, "%-8s %10llu ", iolayers_cache_name(c), reads[c]);
		if (c == IOLAYERS_C_OTHER || !of)
			seq_printf(m, "%8s\n", "-");
		else
			seq_printf(m, "%8llu.%01llu\n", div64_u64(reads[c] * 100, of),
				   div64_u64(reads[c] * 1000, of) % 10);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(summary);

/*
 * Per layer and cache state with samples: a header line with the totals
 * (count, sum, min, max, bytes), then `low high count` per non-empty bucket.
 */
static int hist_show(struct seq_file *m, void *v)
{
	struct iolayers_hist h;
	int l, c;

	for (l = 0; l < IOLAYERS_NR_LAYERS; l++) {
		for (c = 0; c < IOLAYERS_NR_CACHE; c++) {
			iolayers_hist_sum(l, c, &h);
			if (!h.count)
				continue;
			seq_printf(m, "layer %s cache %s count %llu", iolayers_layer_name(l),
				   iolayers_cache_name(c), h.count);
			seq_printf(m, " sum_ns %llu min_ns %llu max_ns %llu bytes %llu\n",
				   h.sum_ns, h.min_ns, h.max_ns, h.bytes);
			iolayers_hist_show_buckets(m, &h);
		}
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hist);

struct iolayers_snap {
	struct iolayers_flow_rec *recs;
	unsigned int n;
	char line[IOLAYERS_FLOW_LINE_MAX];
};

static int flows_show(struct seq_file *m, void *v)
{
	struct iolayers_snap *snap = m->private;
	unsigned int i;
	int n;

	seq_puts(m, IOLAYERS_FLOWS_HEADER "\n");
	for (i = 0; i < snap->n; i++) {
		n = iolayers_flow_format(snap->line, sizeof(snap->line), &snap->recs[i]);
		seq_write(m, snap->line, n);
	}
	return 0;
}

static int flows_open_kind(struct inode *inode, struct file *file, bool slow)
{
	struct iolayers_snap *snap = kzalloc(sizeof(*snap), GFP_KERNEL);
	int ret;

	if (!snap)
		return -ENOMEM;
	snap->recs = iolayers_stream_snapshot(slow, &snap->n);
	ret = single_open_size(file, flows_show, snap, 256 + 320 * (size_t)snap->n);
	if (ret) {
		kvfree(snap->recs);
		kfree(snap);
	}
	return ret;
}

static int flows_open(struct inode *inode, struct file *file)
{
	return flows_open_kind(inode, file, false);
}

static int slow_open(struct inode *inode, struct file *file)
{
	return flows_open_kind(inode, file, true);
}

static int flows_release(struct inode *inode, struct file *file)
{
	struct iolayers_snap *snap = ((struct seq_file *)file->private_data)->private;

	kvfree(snap->recs);
	kfree(snap);
	return single_release(inode, file);
}

static const struct file_operations flows_fops = {
	.owner = THIS_MODULE,
	.open = flows_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = flows_release,
};

static const struct file_operations slow_fops = {
	.owner = THIS_MODULE,
	.open = slow_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = flows_release,
};

/*
 * A runtime setting's file (settings.c): its value, read-only. It is
 * changed through its module parameter: a locked-down kernel opens no
 * debugfs file with a write bit.
 */
static ssize_t setting_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	const struct iolayers_setting *st = file->private_data;
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	ssize_t ret;
	int len;

	if (!buf)
		return -ENOMEM;
	len = iolayers_setting_show(st, buf, PAGE_SIZE);
	ret = simple_read_from_buffer(ubuf, count, ppos, buf, min_t(int, len, PAGE_SIZE - 1));
	kfree(buf);
	return ret;
}

static const struct file_operations setting_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = setting_read,
	.llseek = default_llseek,
};

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
	unsigned int i;

	iolayers_dir = debugfs_create_dir(IOLAYERS_DEBUGFS_DIR, NULL);
	debugfs_create_file(IOLAYERS_FILE_VERSION, 0400, iolayers_dir, NULL, &version_fops);
	debugfs_create_file(IOLAYERS_FILE_LAYERS, 0400, iolayers_dir, NULL, &layers_fops);
	debugfs_create_file(IOLAYERS_FILE_STATS, 0400, iolayers_dir, NULL, &stats_fops);
	debugfs_create_file(IOLAYERS_FILE_SUMMARY, 0400, iolayers_dir, NULL, &summary_fops);
	debugfs_create_file(IOLAYERS_FILE_HIST, 0400, iolayers_dir, NULL, &hist_fops);
	debugfs_create_file(IOLAYERS_FILE_FLOWS, 0400, iolayers_dir, NULL, &flows_fops);
	debugfs_create_file(IOLAYERS_FILE_SLOW, 0400, iolayers_dir, NULL, &slow_fops);
	debugfs_create_file(IOLAYERS_FILE_FILES, 0400, iolayers_dir, NULL, &files_fops);
	debugfs_create_file(IOLAYERS_FILE_RCV, 0400, iolayers_dir, NULL, &rcv_fops);
	iolayers_stream_debugfs(iolayers_dir);
	for (i = 0; i < iolayers_nr_settings; i++)
		if (iolayers_settings[i].runtime)
			debugfs_create_file(iolayers_settings[i].name, 0400, iolayers_dir,
					    (void *)&iolayers_settings[i], &setting_fops);
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
