// SPDX-License-Identifier: GPL-2.0
/* SYSCALL layer: the read family through raw_syscalls sys_enter/sys_exit. */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/rcupdate.h>
#include <linux/socket.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <asm/syscall.h>
#include <asm/unistd.h>
#include <iolayers/compat.h>
#include <iolayers/filter.h>
#include <iolayers/flow.h>
#include <iolayers/syscall.h>
#include <iolayers/table.h>
#include <iolayers/layers.h>
#include <iolayers/percpu.h>
#include <iolayers/probe.h>
#include <trace/events/syscalls.h>

IOLAYERS_PROBE_COUNTERS(iolayers_pc_sys_enter);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_sys_exit);

/*
 * recvmmsg() calls of followed tasks: not flows (after its first message
 * it calls the protocol without sock_recvmsg), counted (`stats`).
 */
static DEFINE_PER_CPU(u64, iolayers_recvmmsg_n);

/* A recvmmsg() of some task: counted when the task is followed. */
static noinline void iolayers_recvmmsg_note(void)
{
	iolayers_sys_tp_lock();
	if (iolayers_follows(current))
		this_cpu_inc(iolayers_recvmmsg_n);
	iolayers_sys_tp_unlock();
}

/**
 * iolayers_recvmmsg_calls() - recvmmsg() calls of followed tasks.
 *
 * Return: the count over all CPUs.
 */
u64 iolayers_recvmmsg_calls(void)
{
	return IOLAYERS_PERCPU_SUM(iolayers_recvmmsg_n);
}

/**
 * iolayers_recvmmsg_reset() - Zero the recvmmsg() count (`reset`).
 *
 * Context: process context.
 */
void iolayers_recvmmsg_reset(void)
{
	IOLAYERS_PERCPU_ZERO(iolayers_recvmmsg_n);
}

/* The 64-bit read family; compat (32-bit) tasks are not followed. */
static bool iolayers_read_syscall(long nr)
{
	switch (nr) {
	case __NR_read:
	case __NR_pread64:
	case __NR_readv:
	case __NR_preadv:
	case __NR_preadv2:
	case __NR_recvfrom:
	case __NR_recvmsg:
		return true;
	default:
		return false;
	}
}

/**
 * iolayers_syscall_index() - Index of a read-family syscall, for names.
 * @nr: the syscall number
 *
 * Return: 0 read, 1 pread64, 2 readv, 3 preadv, 4 preadv2, 5 recvfrom,
 * 6 recvmsg.
 */
int iolayers_syscall_index(int nr)
{
	switch (nr) {
	case __NR_pread64:
		return 1;
	case __NR_readv:
		return 2;
	case __NR_preadv:
		return 3;
	case __NR_preadv2:
		return 4;
	case __NR_recvfrom:
		return 5;
	case __NR_recvmsg:
		return 6;
	default:
		return 0;
	}
}

/*
 * Bytes asked for by a readv-family call: the sum of its iovecs, read
 * without faulting (probe context). 0 when they cannot be read; capped at
 * MAX_RW_COUNT as the kernel does.
 */
static u64 iolayers_iov_bytes(const struct iovec __user *uiov, unsigned long cnt)
{
	struct iovec iov[8];
	u64 sum = 0;
	unsigned long i, n;

	if (cnt > UIO_MAXIOV)
		return 0;
	while (cnt) {
		n = min_t(unsigned long, cnt, ARRAY_SIZE(iov));
		if (copy_from_user_nofault(iov, uiov, n * sizeof(*iov)))
			return 0;
		for (i = 0; i < n; i++)
			sum += iov[i].iov_len;
		uiov += n;
		cnt -= n;
	}
	return min_t(u64, sum, MAX_RW_COUNT);
}

/* Bytes asked for by recvmsg: its message's iovecs (0: unreadable). */
static u64 iolayers_msg_bytes(const struct user_msghdr __user *umsg)
{
	struct user_msghdr msg;

	if (copy_from_user_nofault(&msg, umsg, sizeof(msg)))
		return 0;
	return iolayers_iov_bytes(msg.msg_iov, msg.msg_iovlen);
}

/*
 * A followed read()'s start: its flow and arguments. Not inlined: its
 * argument array (zeroed on entry by CONFIG_INIT_STACK_ALL_ZERO) is then
 * paid by followed reads only, not by every syscall of every task.
 */
static noinline void iolayers_read_start(struct pt_regs *regs, long id)
{
	struct iolayers_task_flow *f;
	unsigned long args[6];

	iolayers_hit(&iolayers_pc_sys_enter);
	f = iolayers_flow_start(current->pid);
	if (!f)
		return;
	syscall_get_arguments(current, regs, args);
	f->rd.sys.nr = id;
	f->rd.sys.fd = (int)args[0];
	f->rd.sys.pos = -1;
	switch (id) {
	case __NR_read:
	case __NR_recvfrom:
		f->rd.sys.req = args[2];
		return;
	case __NR_pread64:
		f->rd.sys.req = args[2];
		break;
	case __NR_recvmsg:
		f->rd.sys.req = iolayers_msg_bytes((const struct user_msghdr __user *)args[1]);
		return;
	default:
		f->rd.sys.req = iolayers_iov_bytes((const struct iovec __user *)args[1], args[2]);
		if (id == __NR_readv)
			return;
	}
	f->rd.sys.pos = (s64)args[3];
}

/*
 * Prototype of TRACE_EVENT_FN(sys_enter), include/trace/events/syscalls.h.
 * From 6.13 on these probes run preemptible: only RCU and this_cpu_* here,
 * and preemption disabled only by iolayers_sys_tp_lock() (compat.h).
 */
static void iolayers_sys_enter(void *data, struct pt_regs *regs, long id)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_sys_enter);

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	if (!iolayers_read_syscall(id) || in_compat_syscall()) {
		if (unlikely(id == __NR_recvmmsg) && !in_compat_syscall())
			iolayers_recvmmsg_note();
		return;
	}
	iolayers_sys_tp_lock();
	if (iolayers_follows(current))
		iolayers_read_start(regs, id);
	iolayers_sys_tp_unlock();
}

/*
 * Prototype of TRACE_EVENT_FN(sys_exit). A flow ends here whatever the
 * filters say now: it was started under the filters of its sys_enter.
 */
static void iolayers_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_sys_exit);
	struct iolayers_task_flow *f;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	if (iolayers_table_empty(IOLAYERS_T_TASK) ||
	    !iolayers_read_syscall(syscall_get_nr(current, regs)))
		return;
	iolayers_sys_tp_lock();
	f = iolayers_flow_here(current->pid);
	if (f) {
		iolayers_hit(&iolayers_pc_sys_exit);
		/* VFS and FS end here too (vfs.c, fs.c). */
		iolayers_flow_finish(f, ret);
	}
	iolayers_sys_tp_unlock();
}

/* The handlers' prototypes against the kernel's (never called). */
static void __maybe_unused iolayers_syscall_check_types(void)
{
	IOLAYERS_TP_CHECK(sys_enter, iolayers_sys_enter);
	IOLAYERS_TP_CHECK(sys_exit, iolayers_sys_exit);
}

static struct iolayers_probe iolayers_syscall_probes[] = {
	IOLAYERS_TRACEPOINT("sys_enter", iolayers_sys_enter, iolayers_pc_sys_enter),
	IOLAYERS_TRACEPOINT("sys_exit", iolayers_sys_exit, iolayers_pc_sys_exit),
};

/* The SYSCALL layer: a flow starts at sys_enter and ends at sys_exit. */
struct iolayers_layer_probes iolayers_syscall_layer = {
	.name = "SYSCALL",
	.probes = iolayers_syscall_probes,
	.nr_probes = ARRAY_SIZE(iolayers_syscall_probes),
};
