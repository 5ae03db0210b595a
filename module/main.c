// SPDX-License-Identifier: GPL-2.0
/* iolayers: module parameters, probe table, load and unload. */

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/sysfs.h>
#include <linux/tracepoint.h>
#include <iolayers/iolayers.h>
#include <iolayers/flow.h>
#include <iolayers/hist.h>
#include <uapi/iolayers.h>

DEFINE_PER_CPU(u64 [IOLAYERS_NR_PROBES], iolayers_hits);
DEFINE_PER_CPU(struct iolayers_cost [IOLAYERS_NR_PROBES], iolayers_costs);

struct iolayers_probe iolayers_probes[IOLAYERS_NR_PROBES] = {
	[IOLAYERS_P_SYS_ENTER] = {
		.name = "sys_enter", .layer = "SYSCALL", .kind = "tracepoint",
	},
	[IOLAYERS_P_SYS_EXIT] = {
		.name = "sys_exit", .layer = "SYSCALL", .kind = "tracepoint",
	},
	[IOLAYERS_P_VFS_READ] = {
		.name = "vfs_read", .layer = "VFS", .kind = "fentry",
	},
	[IOLAYERS_P_VFS_READV] = {
		.name = "vfs_readv", .layer = "VFS", .kind = "fentry",
	},
	[IOLAYERS_P_EXT4_READ] = {
		.name = "ext4_file_read_iter", .layer = "FS", .kind = "fentry",
	},
	[IOLAYERS_P_FILEMAP_READ] = {
		.name = "filemap_read", .layer = "FS", .kind = "fentry",
	},
	[IOLAYERS_P_ADD_TO_PAGE_CACHE] = {
		.name = "mm_filemap_add_to_page_cache", .layer = "CACHE", .kind = "tracepoint",
	},
	[IOLAYERS_P_SCHED_SWITCH] = {
		.name = "sched_switch", .layer = "CACHE", .kind = "tracepoint",
	},
	[IOLAYERS_P_BLOCK_BIO_QUEUE] = {
		.name = "block_bio_queue", .layer = "BLOCK", .kind = "tracepoint",
	},
	[IOLAYERS_P_BLOCK_SPLIT] = {
		.name = "block_split", .layer = "BLOCK", .kind = "tracepoint",
	},
	[IOLAYERS_P_BLOCK_RQ_INSERT] = {
		.name = "block_rq_insert", .layer = "BLOCK", .kind = "tracepoint",
	},
	[IOLAYERS_P_BLOCK_RQ_ISSUE] = {
		.name = "block_rq_issue", .layer = "BLOCK", .kind = "tracepoint",
	},
	[IOLAYERS_P_BLOCK_RQ_REQUEUE] = {
		.name = "block_rq_requeue", .layer = "BLOCK", .kind = "tracepoint",
	},
	[IOLAYERS_P_BLOCK_RQ_COMPLETE] = {
		.name = "block_rq_complete", .layer = "BLOCK", .kind = "tracepoint",
	},
	[IOLAYERS_P_NVME_SETUP_CMD] = {
		.name = "nvme_setup_cmd", .layer = "DEVICE", .kind = "tracepoint",
	},
	[IOLAYERS_P_NVME_COMPLETE_RQ] = {
		.name = "nvme_complete_rq", .layer = "DEVICE", .kind = "tracepoint",
	},
	[IOLAYERS_P_PROCESS_FORK] = {
		.name = "sched_process_fork", .layer = "FILTER", .kind = "tracepoint",
	},
	[IOLAYERS_P_PROCESS_EXIT] = {
		.name = "sched_process_exit", .layer = "FILTER", .kind = "tracepoint",
	},
};

static int iolayers_pid_set(const char *val, const struct kernel_param *kp)
{
	return iolayers_filter_set_pid(val);
}

static int iolayers_comm_set(const char *val, const struct kernel_param *kp)
{
	return iolayers_filter_set_comm(val);
}

static int iolayers_children_set(const char *val, const struct kernel_param *kp)
{
	return iolayers_filter_set_children(val);
}

static int iolayers_filter_get(char *buf, const struct kernel_param *kp)
{
	return iolayers_filter_show(buf, PAGE_SIZE, (int)(long)kp->arg);
}

static const struct kernel_param_ops iolayers_pid_ops = {
	.set = iolayers_pid_set,
	.get = iolayers_filter_get,
};

static const struct kernel_param_ops iolayers_comm_ops = {
	.set = iolayers_comm_set,
	.get = iolayers_filter_get,
};

static const struct kernel_param_ops iolayers_children_ops = {
	.set = iolayers_children_set,
	.get = iolayers_filter_get,
};

module_param_cb(pid, &iolayers_pid_ops, (void *)0L, 0400);
MODULE_PARM_DESC(pid, "Process (tgid) whose reads are followed, with all its threads; pid= or comm= is required");
module_param_cb(comm, &iolayers_comm_ops, (void *)1L, 0400);
MODULE_PARM_DESC(comm, "Also follow every process with this name (e.g. fio)");
module_param_cb(children, &iolayers_children_ops, (void *)2L, 0400);
MODULE_PARM_DESC(children, "1: also follow processes a followed one forks after load");

static int iolayers_uint_param(const char *val, const char *name, unsigned int lo,
			       unsigned int hi, unsigned int *out)
{
	unsigned int v;

	if (!val || kstrtouint(val, 10, &v) || v < lo || v > hi) {
		pr_err("iolayers: invalid %s '%s': want %u..%u\n", name, val ? val : "", lo, hi);
		return -EINVAL;
	}
	WRITE_ONCE(*out, v);
	return 0;
}

static int iolayers_flows_set(const char *val, const struct kernel_param *kp)
{
	return iolayers_uint_param(val, "flows", 0, 65536, kp->arg);
}

static const struct kernel_param_ops iolayers_flows_ops = {
	.set = iolayers_flows_set,
	.get = param_get_uint,
};
module_param_cb(flows, &iolayers_flows_ops, &iolayers_flows_kept, 0400);
MODULE_PARM_DESC(flows, "Completed reads kept per CPU for `flows` and `slow`; 0: histograms only (default 256)");

static int iolayers_expire_set(const char *val, const struct kernel_param *kp)
{
	return iolayers_uint_param(val, "expire_ms", 100, 3600000, kp->arg);
}

static const struct kernel_param_ops iolayers_expire_ops = {
	.set = iolayers_expire_set,
	.get = param_get_uint,
};
module_param_cb(expire_ms, &iolayers_expire_ops, &iolayers_expire_ms, 0400);
MODULE_PARM_DESC(expire_ms, "Bio and request entries older than this are dropped and counted (default 10000)");

static int iolayers_slow_set(const char *val, const struct kernel_param *kp)
{
	unsigned int us;
	int ret = iolayers_uint_param(val, "slow_us", 0, 3600000000U, &us);

	if (!ret)
		WRITE_ONCE(iolayers_slow_ns, (u64)us * NSEC_PER_USEC);
	return ret;
}

static int iolayers_slow_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%llu\n", div_u64(READ_ONCE(iolayers_slow_ns), NSEC_PER_USEC));
}

static const struct kernel_param_ops iolayers_slow_ops = {
	.set = iolayers_slow_set,
	.get = iolayers_slow_get,
};
module_param_cb(slow_us, &iolayers_slow_ops, NULL, 0400);
MODULE_PARM_DESC(slow_us, "Reads at least this slow (syscall latency, us) also go to `slow` (default 10000)");

/*
 * empty=1: every probe point attached, every handler returns at once,
 * except that the function probes still arm their return probes for the
 * calls a full run arms them for (the followed tasks' outermost calls):
 * the cost of the mechanism alone, for `make bench`.
 */
bool iolayers_empty __read_mostly;
module_param_named(empty, iolayers_empty, bool, 0400);
MODULE_PARM_DESC(empty, "1: attach every probe with handlers that return at once, return probes armed as in a full run (overhead floor, nothing measured)");

/* Bound of the task table (read() calls in flight). */
unsigned int iolayers_max_flows = 4096;

static int iolayers_max_flows_set(const char *val, const struct kernel_param *kp)
{
	return iolayers_uint_param(val, "max_flows", 1, 1U << 20, kp->arg);
}

static const struct kernel_param_ops iolayers_max_flows_ops = {
	.set = iolayers_max_flows_set,
	.get = param_get_uint,
};
module_param_cb(max_flows, &iolayers_max_flows_ops, &iolayers_max_flows, 0400);
MODULE_PARM_DESC(max_flows, "Most threads followed at once (each from its first read() to its exit); reads of more are dropped and counted (default 4096)");

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
 * iolayers_cost_sum() - Sum a probe's self-accounting over CPUs.
 * @id: the probe
 * @timed: set to the number of timed handler runs
 * @ns: set to their total time
 *
 * Context: any; the sums are not atomic with respect to running probes.
 * Return: the number of handler runs.
 */
u64 iolayers_cost_sum(enum iolayers_probe_id id, u64 *timed, u64 *ns)
{
	*timed = IOLAYERS_PERCPU_SUM(iolayers_costs, [id].timed);
	*ns = IOLAYERS_PERCPU_SUM(iolayers_costs, [id].ns);
	return IOLAYERS_PERCPU_SUM(iolayers_costs, [id].calls);
}

/* The cost of one local_clock() read, in ns; see iolayers_clock_calibrate(). */
u64 iolayers_clock_ns;

/*
 * Every timed handler run includes about one clock read: measure it once,
 * as the shortest of 64 back-to-back pairs (an interrupt can only lengthen
 * a pair), so users can tell handler time from the cost of measuring it.
 */
static void iolayers_clock_calibrate(void)
{
	u64 best = U64_MAX, t0, t1;
	int i;

	for (i = 0; i < 64; i++) {
		preempt_disable();
		t0 = local_clock();
		t1 = local_clock();
		preempt_enable();
		best = min(best, t1 - t0);
	}
	iolayers_clock_ns = best;
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

/**
 * iolayers_stats_reset() - Zero every counter and histogram (`reset`).
 *
 * Context: process context.
 */
void iolayers_stats_reset(void)
{
	int cpu, i;

	for (i = 0; i < IOLAYERS_NR_PROBES; i++)
		atomic_long_set(&iolayers_probes[i].missed, 0);
	for_each_possible_cpu(cpu) {
		memset(per_cpu_ptr(&iolayers_hits, cpu), 0, sizeof(iolayers_hits));
		memset(per_cpu_ptr(&iolayers_costs, cpu), 0, sizeof(iolayers_costs));
	}
	iolayers_hist_reset();
	iolayers_block_reset();
	iolayers_rings_reset();
}

static int iolayers_check_target(void)
{
	if (!iolayers_filter_any()) {
		pr_err("iolayers: pid= or comm= is required (what to follow), e.g. insmod iolayers.ko pid=1234\n");
		return -EINVAL;
	}
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
	iolayers_clock_calibrate();
	ret = iolayers_hist_init();
	if (ret)
		return ret;
	ret = iolayers_rings_init();
	if (ret) {
		iolayers_hist_exit();
		return ret;
	}
	iolayers_filter_register();
	iolayers_cache_register();
	iolayers_device_register();
	iolayers_block_register();
	iolayers_fs_register();
	iolayers_vfs_register();
	/* Last: flows start only once every layer below can see them. */
	iolayers_syscall_register();
	iolayers_debugfs_init();
	pr_info("iolayers %s: loaded\n", IOLAYERS_VERSION_STRING);
	return 0;
}

static void __exit iolayers_exit(void)
{
	int t;

	iolayers_debugfs_exit();
	iolayers_syscall_unregister();
	iolayers_vfs_unregister();
	iolayers_fs_unregister();
	iolayers_block_unregister();
	iolayers_device_unregister();
	iolayers_cache_unregister();
	iolayers_filter_unregister();
	/* No probe may still run when the module text and data go away. */
	tracepoint_synchronize_unregister();
	for (t = 0; t < IOLAYERS_NR_TABLES; t++)
		iolayers_table_free_all(t);
	iolayers_rings_exit();
	iolayers_hist_exit();
	pr_info("iolayers: unloaded\n");
}

module_init(iolayers_init);
module_exit(iolayers_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Follow each read() through syscall, VFS, FS, block and device layers");
MODULE_VERSION(IOLAYERS_VERSION_STRING);
