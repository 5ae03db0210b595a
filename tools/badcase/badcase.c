// SPDX-License-Identifier: GPL-2.0
/*
 * The bad way to time reads, as a row of make bench: one global start time
 * shared by every task and CPU (concurrent reads overwrite each other's)
 * and a line of text per call pushed through printk, for every vfs_read()
 * on the machine, unfiltered. Beside iolayers.ko it shows what per-thread
 * state and in-kernel histograms save. Never use it for anything else.
 */
#define pr_fmt(fmt) "iolayers_badcase: " fmt

#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/module.h>

static u64 badcase_start;

static int badcase_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	badcase_start = ktime_get_ns();
	return 0;
}

static int badcase_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	pr_info("vfs_read took %llu ns\n", ktime_get_ns() - badcase_start);
	return 0;
}

static struct kretprobe badcase_krp = {
	.kp.symbol_name = "vfs_read",
	.entry_handler = badcase_entry,
	.handler = badcase_ret,
	.maxactive = 64,
};

static int __init badcase_init(void)
{
	return register_kretprobe(&badcase_krp);
}

static void __exit badcase_exit(void)
{
	unregister_kretprobe(&badcase_krp);
	pr_info("missed %d\n", badcase_krp.nmissed);
}

module_init(badcase_init);
module_exit(badcase_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("iolayers benchmark: the bad case (global timestamp, printk per read)");
