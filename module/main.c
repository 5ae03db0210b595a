// SPDX-License-Identifier: GPL-2.0
/* iolayers: module parameters, probe table, load and unload. */

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/tracepoint.h>
#include <iolayers/iolayers.h>
#include <iolayers/flow.h>
#include <iolayers/hist.h>
#include <uapi/iolayers.h>

/* The tgid to follow; written only by the parameter, before any probe. */
pid_t iolayers_target_tgid;

DEFINE_PER_CPU(u64 [IOLAYERS_NR_PROBES], iolayers_hits);

struct iolayers_probe iolayers_probes[IOLAYERS_NR_PROBES] = {
	[IOLAYERS_P_SYS_ENTER] = {
		.name = "sys_enter", .layer = "SYSCALL", .kind = "tracepoint",
	},
	[IOLAYERS_P_SYS_EXIT] = {
		.name = "sys_exit", .layer = "SYSCALL", .kind = "tracepoint",
	},
	[IOLAYERS_P_VFS_READ] = {
		.name = "vfs_read", .layer = "VFS", .kind = "kretprobe",
	},
	[IOLAYERS_P_EXT4_READ] = {
		.name = "ext4_file_read_iter", .layer = "FS", .kind = "kretprobe",
	},
	[IOLAYERS_P_FILEMAP_READ] = {
		.name = "filemap_read", .layer = "FS", .kind = "kretprobe",
	},
	[IOLAYERS_P_ADD_TO_PAGE_CACHE] = {
		.name = "mm_filemap_add_to_page_cache", .layer = "CACHE", .kind = "tracepoint",
	},
	[IOLAYERS_P_SCHED_SWITCH] = {
		.name = "sched_switch", .layer = "CACHE", .kind = "tracepoint",
	},
	[IOLAYERS_P_BLOCK_RQ_ISSUE] = {
		.name = "block_rq_issue", .layer = "BLOCK", .kind = "tracepoint",
	},
};

static int iolayers_pid_set(const char *val, const struct kernel_param *kp)
{
	pid_t pid;

	if (iolayers_parse_pid(val, &pid)) {
		pr_err("iolayers: invalid pid '%s': want a process id in 1..%d\n",
		       val, (int)PID_MAX_LIMIT);
		return -EINVAL;
	}
	WRITE_ONCE(*(pid_t *)kp->arg, pid);
	return 0;
}

static int iolayers_pid_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(*(pid_t *)kp->arg));
}

static const struct kernel_param_ops iolayers_pid_ops = {
	.set = iolayers_pid_set,
	.get = iolayers_pid_get,
};
module_param_cb(pid, &iolayers_pid_ops, &iolayers_target_tgid, 0400);
MODULE_PARM_DESC(pid, "Process (tgid) whose reads are followed, with all its threads; required");

/* Bound of the task table (read() calls in flight). */
unsigned int iolayers_max_flows = 4096;

static int iolayers_max_flows_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	if (kstrtouint(val, 10, &v) || v < 1 || v > 1U << 20) {
		pr_err("iolayers: invalid max_flows '%s': want 1..%u\n", val, 1U << 20);
		return -EINVAL;
	}
	WRITE_ONCE(iolayers_max_flows, v);
	return 0;
}

static const struct kernel_param_ops iolayers_max_flows_ops = {
	.set = iolayers_max_flows_set,
	.get = param_get_uint,
};
module_param_cb(max_flows, &iolayers_max_flows_ops, &iolayers_max_flows, 0400);
MODULE_PARM_DESC(max_flows, "Most read() calls followed at once; more are dropped and counted (default 4096)");

/**
 * iolayers_hits_sum() - Sum a probe's per-CPU hit counters.
 * @id: the probe
 *
 * Context: any; the sum is not atomic with respect to running probes.
 * Return: hits on all possible CPUs.
 */
u64 iolayers_hits_sum(enum iolayers_probe_id id)
{
	return IOLAYERS_PERCPU_SUM(iolayers_hits, [id]);
}

/**
 * iolayers_probe_state_name() - Name of a probe state, as shown in `layers`.
 * @state: the state
 *
 * Return: a static string.
 */
const char *iolayers_probe_state_name(enum iolayers_probe_state state)
{
	switch (state) {
	case IOLAYERS_PROBE_ATTACHED:
		return "attached";
	case IOLAYERS_PROBE_MISSING:
		return "missing";
	case IOLAYERS_PROBE_FAILED:
		return "failed";
	default:
		return "detached";
	}
}

static int iolayers_check_target(void)
{
	struct pid *pid;

	if (!iolayers_target_tgid) {
		pr_err("iolayers: pid= is required (the process to follow), e.g. insmod iolayers.ko pid=1234\n");
		return -EINVAL;
	}
	pid = find_get_pid(iolayers_target_tgid);
	if (!pid) {
		pr_err("iolayers: invalid pid '%d': no such process\n", iolayers_target_tgid);
		return -EINVAL;
	}
	put_pid(pid);
	return 0;
}

static int __init iolayers_init(void)
{
	int ret;

	ret = iolayers_check_target();
	if (ret)
		return ret;

	/*
	 * A probe point that is missing or fails disables its layer and shows
	 * in `layers`; it never fails the load.
	 */
	ret = iolayers_hist_init();
	if (ret)
		return ret;
	iolayers_cache_register();
	iolayers_block_register();
	iolayers_fs_register();
	iolayers_vfs_register();
	/* Last: flows start only once every layer below can see them. */
	iolayers_syscall_register();
	iolayers_debugfs_init();
	pr_info("iolayers %s: following pid %d\n", IOLAYERS_VERSION_STRING,
		iolayers_target_tgid);
	return 0;
}

static void __exit iolayers_exit(void)
{
	iolayers_debugfs_exit();
	iolayers_syscall_unregister();
	iolayers_vfs_unregister();
	iolayers_fs_unregister();
	iolayers_block_unregister();
	iolayers_cache_unregister();
	/* No probe may still run when the module text and data go away. */
	tracepoint_synchronize_unregister();
	iolayers_flow_free_all();
	iolayers_hist_exit();
	pr_info("iolayers: unloaded\n");
}

module_init(iolayers_init);
module_exit(iolayers_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Follow each read() through syscall, VFS, FS, block and device layers");
MODULE_VERSION(IOLAYERS_VERSION_STRING);
