// SPDX-License-Identifier: GPL-2.0
/* The /sys/kernel/debug/iolayers/ files. */

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <iolayers/iolayers.h>
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

	seq_printf(m, "%-16s %-8s %-11s %s\n", "probe", "layer", "kind", "state");
	for (i = 0; i < IOLAYERS_NR_PROBES; i++) {
		const struct iolayers_probe *p = &iolayers_probes[i];

		seq_printf(m, "%-16s %-8s %-11s %s", p->name, p->layer, p->kind,
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
	int i;

	seq_printf(m, "%-16s %12s %10s\n", "probe", "hits", "nmissed");
	for (i = 0; i < IOLAYERS_NR_PROBES; i++) {
		const struct iolayers_probe *p = &iolayers_probes[i];

		seq_printf(m, "%-16s %12llu ", p->name, iolayers_hits_sum(i));
		if (p->nmissed)
			seq_printf(m, "%10lu\n", READ_ONCE(*p->nmissed));
		else
			seq_printf(m, "%10s\n", "-");
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

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
