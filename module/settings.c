// SPDX-License-Identifier: GPL-2.0
/*
 * The settings: one table, parsed, range-checked and shown the same way
 * whether a value comes as a module parameter at load or is written to
 * the parameter's file under /sys/module/iolayers/parameters/ at runtime.
 *
 * Runtime changes go through module parameters, not debugfs: a kernel
 * locked down (integrity, as under Secure Boot) opens no debugfs file that
 * has a write bit, while ordinary module parameters stay writable.
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <iolayers/cache.h>
#include <iolayers/clock.h>
#include <iolayers/disk.h>
#include <iolayers/fault.h>
#include <iolayers/filter.h>
#include <iolayers/hist.h>
#include <iolayers/flow.h>
#include <iolayers/probe.h>
#include <iolayers/request.h>
#include <iolayers/settings.h>
#include <iolayers/sock.h>
#include <iolayers/stream.h>
#include <iolayers/syscall.h>
#include <iolayers/table.h>
#include <iolayers/uring.h>
#include <uapi/iolayers.h>

static u64 iolayers_last_reset_ns;

/*
 * Where the module is in its life, for writes to the parameters' files:
 * those files exist from before the init function runs until after the
 * exit function returns. Changed under the module's parameter lock, which
 * the kernel holds around every parameter's set.
 */
enum iolayers_settings_state {
	IOLAYERS_SETTINGS_PARSING,	/* insmod's arguments */
	IOLAYERS_SETTINGS_STARTING,	/* the init function runs */
	IOLAYERS_SETTINGS_LIVE,
	IOLAYERS_SETTINGS_DYING,	/* the exit function runs */
};

static enum iolayers_settings_state iolayers_settings_state;

/*
 * iolayers_stats_reset() - Zero every counter and histogram (`reset`).
 *
 * Context: process context.
 */
static void iolayers_stats_reset(void)
{
	iolayers_probes_reset();
	iolayers_hist_reset();
	iolayers_rcv_reset();
	iolayers_blk_counters_reset();
	iolayers_disks_reset();
	iolayers_cache_reset();
	iolayers_faults_reset();
	iolayers_reqs_irq_reset();
	iolayers_tables_reset();
	iolayers_reads_missed_reset();
	iolayers_recvmmsg_reset();
	iolayers_uring_unfollowed_reset();
	iolayers_clock_gaps_reset();
	iolayers_stream_reset();
}

static int iolayers_reset_set(const char *val)
{
	bool on;

	if (kstrtobool(val, &on) || !on) {
		pr_err_ratelimited("invalid reset '%s': write 1 to reset\n", val);
		return -EINVAL;
	}
	/* reset=1 at load: nothing is counted yet. */
	if (iolayers_settings_state != IOLAYERS_SETTINGS_LIVE)
		return 0;
	iolayers_stats_reset();
	WRITE_ONCE(iolayers_last_reset_ns, ktime_get_ns());
	return 0;
}

static int iolayers_reset_show(char *buf, size_t size)
{
	return snprintf(buf, size, "%llu\n", READ_ONCE(iolayers_last_reset_ns));
}

/* Indexes of the settings that are module parameters. */
enum {
	IOLAYERS_S_PID,
	IOLAYERS_S_COMM,
	IOLAYERS_S_CHILDREN,
	IOLAYERS_S_CGROUP,
	IOLAYERS_S_FLOWS,
	IOLAYERS_S_BUFFER_KB,
	IOLAYERS_S_SLOW_US,
	IOLAYERS_S_BATCH_US,
	IOLAYERS_S_EXPIRE_MS,
	IOLAYERS_S_MAX_FLOWS,
	IOLAYERS_S_EMPTY,
	IOLAYERS_S_SOCKETS,
	IOLAYERS_S_RCV,
	IOLAYERS_S_FAULTS,
	IOLAYERS_S_COST,
	IOLAYERS_S_RESET,
	IOLAYERS_NR_SETTINGS,
};

/*
 * Every setting; iolayers_nr_settings entries.
 * Ranges: at most an hour for times, 65536 kept flows per CPU, 2^20
 * followed threads.
 */
const struct iolayers_setting iolayers_settings[] = {
	[IOLAYERS_S_PID] = {
		.name = IOLAYERS_FILE_PID, .kind = IOLAYERS_SET_CUSTOM, .runtime = true,
		.set = iolayers_filter_set_pid, .show = iolayers_filter_show_pid,
	},
	[IOLAYERS_S_COMM] = {
		.name = IOLAYERS_FILE_COMM, .kind = IOLAYERS_SET_CUSTOM, .runtime = true,
		.set = iolayers_filter_set_comm, .show = iolayers_filter_show_comm,
	},
	[IOLAYERS_S_CHILDREN] = {
		.name = IOLAYERS_FILE_CHILDREN, .kind = IOLAYERS_SET_CUSTOM, .runtime = true,
		.set = iolayers_filter_set_children, .show = iolayers_filter_show_children,
	},
	[IOLAYERS_S_CGROUP] = {
		.name = IOLAYERS_FILE_CGROUP, .kind = IOLAYERS_SET_CUSTOM, .runtime = true,
		.set = iolayers_filter_set_cgroup, .show = iolayers_filter_show_cgroup,
		.free = iolayers_filter_exit,
	},
	[IOLAYERS_S_FLOWS] = {
		.name = "flows", .kind = IOLAYERS_SET_UINT, .var = &iolayers_flows_kept,
		.lo = 0, .hi = 65536,
	},
	[IOLAYERS_S_BUFFER_KB] = {
		.name = "buffer_kb", .kind = IOLAYERS_SET_UINT, .var = &iolayers_buffer_kb,
		.lo = 16, .hi = 262144,
	},
	[IOLAYERS_S_SLOW_US] = {
		.name = IOLAYERS_FILE_SLOW_US, .kind = IOLAYERS_SET_US, .var = &iolayers_slow_ns,
		.lo = 0, .hi = 3600000000U, .runtime = true,
	},
	[IOLAYERS_S_BATCH_US] = {
		.name = IOLAYERS_FILE_BATCH_US, .kind = IOLAYERS_SET_US, .var = &iolayers_batch_ns,
		.lo = 0, .hi = 1000000, .runtime = true,
	},
	[IOLAYERS_S_EXPIRE_MS] = {
		.name = "expire_ms", .kind = IOLAYERS_SET_UINT, .var = &iolayers_expire_ms,
		.lo = 100, .hi = 3600000,
	},
	[IOLAYERS_S_MAX_FLOWS] = {
		.name = "max_flows", .kind = IOLAYERS_SET_UINT, .var = &iolayers_max_flows,
		.lo = 1, .hi = 1U << 20,
	},
	[IOLAYERS_S_EMPTY] = {
		.name = "empty", .kind = IOLAYERS_SET_BOOL, .var = &iolayers_empty,
	},
	[IOLAYERS_S_SOCKETS] = {
		.name = "sockets", .kind = IOLAYERS_SET_BOOL, .var = &iolayers_sockets,
	},
	[IOLAYERS_S_RCV] = {
		.name = "rcv", .kind = IOLAYERS_SET_BOOL, .var = &iolayers_rcv,
	},
	[IOLAYERS_S_FAULTS] = {
		.name = "faults", .kind = IOLAYERS_SET_BOOL, .var = &iolayers_faults,
	},
	[IOLAYERS_S_COST] = {
		.name = "cost", .kind = IOLAYERS_SET_BOOL, .var = &iolayers_cost,
	},
	[IOLAYERS_S_RESET] = {
		.name = IOLAYERS_FILE_RESET, .kind = IOLAYERS_SET_CUSTOM, .runtime = true,
		.set = iolayers_reset_set, .show = iolayers_reset_show,
	},
};

const unsigned int iolayers_nr_settings = ARRAY_SIZE(iolayers_settings);

/**
 * iolayers_setting_set() - Parse, check and apply a value of a setting.
 * @s: the setting
 * @val: the text (a module parameter's, or a write without its newline)
 *
 * Context: process context.
 * Return: 0, or -EINVAL with a ratelimited pr_err naming the value and
 * what is accepted.
 */
int iolayers_setting_set(const struct iolayers_setting *s, const char *val)
{
	unsigned int v;
	bool on;

	switch (s->kind) {
	case IOLAYERS_SET_CUSTOM:
		return s->set(val);
	case IOLAYERS_SET_BOOL:
		if (!val || kstrtobool(val, &on)) {
			pr_err_ratelimited("invalid %s '%s': want 0 or 1\n", s->name,
					   val ? val : "");
			return -EINVAL;
		}
		WRITE_ONCE(*(bool *)s->var, on);
		return 0;
	default:
		break;
	}
	if (!val || kstrtouint(val, 10, &v) || v < s->lo || v > s->hi) {
		pr_err_ratelimited("invalid %s '%s': want %u..%u\n", s->name, val ? val : "",
				   s->lo, s->hi);
		return -EINVAL;
	}
	if (s->kind == IOLAYERS_SET_US)
		WRITE_ONCE(*(u64 *)s->var, (u64)v * NSEC_PER_USEC);
	else
		WRITE_ONCE(*(unsigned int *)s->var, v);
	return 0;
}

/**
 * iolayers_setting_show() - A setting's value as text, with a newline.
 * @s: the setting
 * @buf: where to write it
 * @size: bytes available at @buf
 *
 * Return: the length written (as snprintf()).
 */
int iolayers_setting_show(const struct iolayers_setting *s, char *buf, size_t size)
{
	switch (s->kind) {
	case IOLAYERS_SET_CUSTOM:
		return s->show(buf, size);
	case IOLAYERS_SET_BOOL:
		return snprintf(buf, size, "%d\n", READ_ONCE(*(bool *)s->var));
	case IOLAYERS_SET_US:
		return snprintf(buf, size, "%llu\n",
				div_u64(READ_ONCE(*(u64 *)s->var), NSEC_PER_USEC));
	default:
		return snprintf(buf, size, "%u\n", READ_ONCE(*(unsigned int *)s->var));
	}
}

/* The longest value a setting takes (a cgroup's path). */
#define IOLAYERS_SETTING_MAX	PATH_MAX

static int iolayers_param_set(const char *val, const struct kernel_param *kp)
{
	const struct iolayers_setting *s = kp->arg;
	char *buf;
	size_t len;
	int ret;

	if (!val)
		return iolayers_setting_set(s, val);
	switch (iolayers_settings_state) {
	case IOLAYERS_SETTINGS_STARTING:
	case IOLAYERS_SETTINGS_DYING:
		pr_err_ratelimited("%s not changed to '%s': the module is loading or unloading\n",
				   s->name, val);
		return -EBUSY;
	default:
		break;
	}
	/* A write to the parameter's file: without echo's newline. */
	len = strlen(val);
	if (len && val[len - 1] == '\n')
		len--;
	if (len >= IOLAYERS_SETTING_MAX) {
		pr_err_ratelimited("invalid %s '%.*s...': want one value shorter than %d bytes\n",
				   s->name, 32, val, IOLAYERS_SETTING_MAX);
		return -EINVAL;
	}
	buf = kmemdup_nul(val, len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = iolayers_setting_set(s, buf);
	kfree(buf);
	return ret;
}

/* The module is gone, or its load failed: what a setting holds goes. */
static void iolayers_param_free(void *arg)
{
	const struct iolayers_setting *s = arg;

	if (s->free)
		s->free();
}

static int iolayers_param_get(char *buf, const struct kernel_param *kp)
{
	return iolayers_setting_show(kp->arg, buf, PAGE_SIZE);
}

static const struct kernel_param_ops iolayers_param_ops = {
	.set = iolayers_param_set,
	.get = iolayers_param_get,
	.free = iolayers_param_free,
};

/* Each parameter's argument is its setting. */
#define IOLAYERS_SETTING_ARG(idx) ((void *)&iolayers_settings[idx])

module_param_cb(pid, &iolayers_param_ops, IOLAYERS_SETTING_ARG(IOLAYERS_S_PID), 0600);
MODULE_PARM_DESC(pid, "Process (tgid) whose reads are followed, with all its threads; pid=, comm= or cgroup= is required");
module_param_cb(comm, &iolayers_param_ops, IOLAYERS_SETTING_ARG(IOLAYERS_S_COMM), 0600);
MODULE_PARM_DESC(comm, "Also follow every process with this name (e.g. fio)");
module_param_cb(children, &iolayers_param_ops, IOLAYERS_SETTING_ARG(IOLAYERS_S_CHILDREN), 0600);
MODULE_PARM_DESC(children, "1: also follow processes a followed one forks after load");
module_param_cb(cgroup, &iolayers_param_ops, IOLAYERS_SETTING_ARG(IOLAYERS_S_CGROUP), 0600);
MODULE_PARM_DESC(cgroup, "Also follow every task of this cgroup (v2) and of those under it: its path under the cgroup2 mount, or its id");
module_param_cb(reset, &iolayers_param_ops, IOLAYERS_SETTING_ARG(IOLAYERS_S_RESET), 0600);
MODULE_PARM_DESC(reset, "Write 1 to zero every counter, histogram and kept read; shows when that was last done (ns since boot, 0: never)");
module_param_cb(flows, &iolayers_param_ops, IOLAYERS_SETTING_ARG(IOLAYERS_S_FLOWS), 0400);
MODULE_PARM_DESC(flows, "Newest completed reads `flows` and `slow` show; 0: no records, no stream, histograms only (default 256)");
module_param_cb(buffer_kb, &iolayers_param_ops, IOLAYERS_SETTING_ARG(IOLAYERS_S_BUFFER_KB), 0400);
MODULE_PARM_DESC(buffer_kb, "Rings of completed reads per CPU, KiB in all: 7/8 what stream/events can fall behind by and `flows` looks back over, 1/8 for `slow` (default 1024)");
module_param_cb(slow_us, &iolayers_param_ops, IOLAYERS_SETTING_ARG(IOLAYERS_S_SLOW_US), 0600);
MODULE_PARM_DESC(slow_us, "Reads at least this slow (syscall latency, us) also go to `slow` (default 10000)");
module_param_cb(batch_us, &iolayers_param_ops, IOLAYERS_SETTING_ARG(IOLAYERS_S_BATCH_US), 0600);
MODULE_PARM_DESC(batch_us, "A blocking stream reader waits up to this long (us) for more records before it takes them, unless a CPU's ring is half full: records come in batches; 0: at once (default 10000)");
module_param_cb(expire_ms, &iolayers_param_ops, IOLAYERS_SETTING_ARG(IOLAYERS_S_EXPIRE_MS), 0400);
MODULE_PARM_DESC(expire_ms, "Bio and request entries older than this are dropped and counted (default 10000)");
module_param_cb(max_flows, &iolayers_param_ops, IOLAYERS_SETTING_ARG(IOLAYERS_S_MAX_FLOWS), 0400);
MODULE_PARM_DESC(max_flows, "Most threads followed at once (each from its first read() to its exit); reads of more are dropped and counted (default 4096)");
/*
 * empty=1: every probe point attached, every handler returns at once: the
 * cost of the mechanism alone (trampolines, tracepoint calls), for `make
 * bench`.
 */
module_param_cb(empty, &iolayers_param_ops, IOLAYERS_SETTING_ARG(IOLAYERS_S_EMPTY), 0400);
MODULE_PARM_DESC(empty, "1: attach every probe with handlers that return at once (overhead floor, nothing measured)");
/*
 * sockets=0: the SOCK layer's probe points are not attached: socket reads
 * are flows of the syscall (and VFS) only, labelled other; a load and an
 * unload take that many ftrace registrations less.
 */
module_param_cb(sockets, &iolayers_param_ops, IOLAYERS_SETTING_ARG(IOLAYERS_S_SOCKETS), 0400);
MODULE_PARM_DESC(sockets, "0: do not follow reads below the syscall into sockets (no SOCK, TCP, receive path probes); default 1");
/*
 * rcv=1: the TCP receive path's time per segment of the followed sockets
 * (the `rcv` file). Off by default: its kretprobes on tcp_v4_do_rcv and
 * tcp_v6_do_rcv cost every TCP segment of the machine, followed or not,
 * their dispatch and a return instance (about 300 instructions a segment,
 * Documentation/benchmarks.rst).
 */
module_param_cb(rcv, &iolayers_param_ops, IOLAYERS_SETTING_ARG(IOLAYERS_S_RCV), 0400);
MODULE_PARM_DESC(rcv, "1: time the TCP receive path per segment of the followed sockets (kretprobes on tcp_v4_do_rcv/tcp_v6_do_rcv, which every TCP segment of the machine pays); default 0");
/*
 * faults=1: page faults on a file's mapping are flows (the FAULT layer).
 * Off by default: its kretprobe on handle_mm_fault() costs every fault of
 * the machine, followed or not (Documentation/design.rst), and a program
 * that reads files with read() also faults in its own code and libraries,
 * whose faults would then be counted with its reads.
 */
module_param_cb(faults, &iolayers_param_ops, IOLAYERS_SETTING_ARG(IOLAYERS_S_FAULTS), 0400);
MODULE_PARM_DESC(faults, "1: follow page faults on mapped files as reads (a kretprobe on handle_mm_fault, which every fault of the machine pays); default 0");
/*
 * cost=1: the handlers' self-accounting in `stats` (each probe's handler
 * runs, one in 64 timed). Off, those columns stay 0 and every syscall of
 * every task pays none of it.
 */
module_param_cb(cost, &iolayers_param_ops, IOLAYERS_SETTING_ARG(IOLAYERS_S_COST), 0400);
MODULE_PARM_DESC(cost, "1: count every handler run and time one in 64 (stats: calls, timed, timed_ns); 0 (default): not counted");

/**
 * iolayers_settings_starting() - The init function starts: writes to the
 *	parameters' files are refused until iolayers_settings_live().
 *
 * Returns after any write in progress has ended, so the values init reads
 * do not change under it.
 *
 * Context: process context (the module's init).
 */
void iolayers_settings_starting(void)
{
	kernel_param_lock(THIS_MODULE);
	iolayers_settings_state = IOLAYERS_SETTINGS_STARTING;
	kernel_param_unlock(THIS_MODULE);
}

/**
 * iolayers_settings_live() - Take writes to the parameters' files, or stop.
 * @live: true at the end of init, false at the start of exit
 *
 * With @live false it returns after any write in progress has ended; later
 * writes get -EBUSY while the files remain.
 *
 * Context: process context (the module's init or exit).
 */
void iolayers_settings_live(bool live)
{
	kernel_param_lock(THIS_MODULE);
	iolayers_settings_state = live ? IOLAYERS_SETTINGS_LIVE : IOLAYERS_SETTINGS_DYING;
	kernel_param_unlock(THIS_MODULE);
}
