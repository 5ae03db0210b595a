// SPDX-License-Identifier: GPL-2.0
/* iolayers: module parameters, load and unload. */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/module.h>
#include <iolayers/clock.h>
#include <iolayers/debugfs.h>
#include <iolayers/file.h>
#include <iolayers/filter.h>
#include <iolayers/flow.h>
#include <iolayers/hist.h>
#include <iolayers/layers.h>
#include <iolayers/probe.h>
#include <iolayers/settings.h>
#include <iolayers/sock.h>
#include <iolayers/stream.h>
#include <iolayers/table.h>
#include <uapi/iolayers.h>

/*
 * Every layer, in the order a read goes down them (and `layers` shows
 * them); the registry attaches them bottom-up, so a flow starts only once
 * every layer below can see it.
 */
/* sockets=: the SOCK layer is attached (settings.c). */
bool iolayers_sockets = true;
/* rcv=: the TCP receive path is timed (with the SOCK layer). */
bool iolayers_rcv;
/* faults=: the FAULT layer is attached (settings.c). */
bool iolayers_faults;

static struct iolayers_layer_probes *iolayers_all_layers[] = {
	&iolayers_syscall_layer,
	&iolayers_uring_layer,
	&iolayers_aio_layer,
	&iolayers_fault_layer,
	&iolayers_vfs_layer,
	&iolayers_fs_layer,
	&iolayers_cache_layer,
	&iolayers_sock_layer,
	&iolayers_rcv_layer,
	&iolayers_block_layer,
	&iolayers_device_layer,
	&iolayers_filter_layer,
};

/*
 * The layers to attach: all, less SOCK and the receive path with
 * sockets=0, less the receive path unless rcv=1, less FAULT unless
 * faults=1.
 */
static unsigned int iolayers_layers_wanted(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(iolayers_all_layers); i++) {
		const struct iolayers_layer_probes *l = iolayers_all_layers[i];

		if ((l == &iolayers_sock_layer || l == &iolayers_rcv_layer) && !iolayers_sockets)
			continue;
		if (l == &iolayers_rcv_layer && !iolayers_rcv)
			continue;
		if (l == &iolayers_fault_layer && !iolayers_faults)
			continue;
		iolayers_all_layers[n++] = iolayers_all_layers[i];
	}
	return n;
}

static int iolayers_check_target(void)
{
	if (!iolayers_filter_any()) {
		pr_err("pid=, comm= or cgroup= is required (what to follow), e.g. insmod iolayers.ko pid=1234\n");
		return -EINVAL;
	}
	return 0;
}

static int __init iolayers_init(void)
{
	int ret;

	iolayers_settings_starting();
	ret = iolayers_check_target();
	if (ret)
		return ret;

	iolayers_clock_init();
	ret = iolayers_tables_init();
	if (ret)
		return ret;
	ret = iolayers_hist_init();
	if (ret)
		goto out_tables;
	iolayers_rcv_reset();	/* empty: its minimum U64_MAX */
	ret = iolayers_files_init();
	if (ret)
		goto out_hist;
	ret = iolayers_stream_init();
	if (ret)
		goto out_files;
	/*
	 * A probe point that is missing or fails disables its layer and shows
	 * in `layers`; it never fails the load.
	 */
	iolayers_probes_attach(iolayers_all_layers, iolayers_layers_wanted());
	/* pid='s process may have exited before sched_process_exit was attached. */
	iolayers_filter_recheck_target();
	iolayers_debugfs_init();
	iolayers_settings_live(true);
	pr_info("version %s loaded\n", IOLAYERS_VERSION_STRING);
	return 0;

out_files:
	iolayers_files_exit();
out_hist:
	iolayers_hist_exit();
out_tables:
	iolayers_tables_exit();
	return ret;
}

static void __exit iolayers_exit(void)
{
	iolayers_settings_live(false);
	iolayers_debugfs_exit();
	/* Returns once no probe runs any more. */
	iolayers_probes_detach();
	iolayers_reqs_flush();
	iolayers_tables_exit();
	iolayers_stream_exit();
	iolayers_files_exit();
	iolayers_hist_exit();
	pr_info("unloaded\n");
}

module_init(iolayers_init);
module_exit(iolayers_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Follow each read() through syscall, VFS, FS, block and device layers");
MODULE_VERSION(IOLAYERS_VERSION_STRING);
