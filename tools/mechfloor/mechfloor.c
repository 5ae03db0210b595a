// SPDX-License-Identifier: GPL-2.0
/*
 * Another mechanism's floor, as a row of make bench: the probe points
 * iolayers' floor (empty=1) fires on a cached read, with empty handlers,
 * but the syscall's entry and exit taken by fprobe on the read family's
 * own syscall functions instead of the raw syscall tracepoints. The
 * tracepoints put every syscall of every task on the slow path; an fprobe
 * costs only in the functions it probes, but its exit goes through the
 * function graph tracer's return hook. VFS and FS: entry callbacks
 * (ftrace_ops) on vfs_read and the page cache's read, as iolayers has.
 * Built where the kernel has fprobe (CONFIG_FPROBE: 6.12 and sid's here,
 * not 5.10 or 6.1, Kbuild); never used for anything but measuring.
 */
#define pr_fmt(fmt) "iolayers_mechfloor: " fmt

#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/module.h>
#include <iolayers/compat.h>

static int mechfloor_entry(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
			   struct iolayers_fprobe_regs *regs, void *data)
{
	return 0;	/* 0: the exit handler runs at the return */
}

static void mechfloor_exit_cb(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
			      struct iolayers_fprobe_regs *regs, void *data)
{
}

static struct fprobe mechfloor_fp = {
	.entry_handler = mechfloor_entry,
	.exit_handler = mechfloor_exit_cb,
};

static void notrace mechfloor_fentry(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
}

static struct ftrace_ops mechfloor_ops = {
	.func = mechfloor_fentry,
};

static int __init mechfloor_init(void)
{
	static char *const fentries[] = { "vfs_read", "filemap_read" };
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(fentries); i++) {
		ret = ftrace_set_filter(&mechfloor_ops, fentries[i], strlen(fentries[i]), 0);
		if (ret)
			return ret;
	}
	ret = register_ftrace_function(&mechfloor_ops);
	if (ret)
		goto out_filter;
	/*
	 * One pattern: read, pread64, readv, preadv, preadv2 (and read
	 * syscalls the benchmark does not make: readlink, readahead...).
	 */
	ret = register_fprobe(&mechfloor_fp, "__x64_sys_*read*", NULL);
	if (ret) {
		unregister_ftrace_function(&mechfloor_ops);
		goto out_filter;
	}
	return 0;
out_filter:
	ftrace_free_filter(&mechfloor_ops);
	return ret;
}

static void __exit mechfloor_exit(void)
{
	unregister_fprobe(&mechfloor_fp);
	unregister_ftrace_function(&mechfloor_ops);
	ftrace_free_filter(&mechfloor_ops);
	pr_info("fprobe missed %lu\n", mechfloor_fp.nmissed);
}

module_init(mechfloor_init);
module_exit(mechfloor_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("iolayers benchmark: the floor with fprobe on the read syscalls");
