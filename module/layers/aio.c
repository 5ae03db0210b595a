// SPDX-License-Identifier: GPL-2.0
/*
 * AIO layer: Linux AIO reads (io_submit()'s IOCB_CMD_PREAD and PREADV) of
 * followed tasks, one flow per iocb from its submission (aio_read(), a
 * kretprobe) to its completion (aio_complete_rw(), a function entry),
 * keyed by the request, as io_uring's (uring.c). The read is issued
 * inside aio_read(), in io_submit(): a buffered one is done there, its
 * completion posted before aio_read() returns; a direct one returns once
 * its bios are queued and completes in their completion, in interrupt
 * context, where its record is only stamped (flow.c). During aio_read()
 * the submitting task's FS, cache and BLOCK probes bind to the request,
 * as during an io_uring attempt. glibc's POSIX AIO (aio_read(3)) is
 * threads calling pread(): read()s, seen as such.
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <uapi/linux/aio_abi.h>
#include <uapi/iolayers.h>
#include <iolayers/compat.h>
#include <iolayers/filter.h>
#include <iolayers/flow.h>
#include <iolayers/layers.h>
#include <iolayers/probe.h>
#include <iolayers/table.h>

IOLAYERS_PROBE_COUNTERS(iolayers_pc_aio_read);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_aio_complete);

/*
 * What aio_read()'s return handler needs: its request, checked again, and
 * whether its attempt began.
 */
struct iolayers_aio_att {
	unsigned long req;
	u64 seq;
	bool began;
};

/*
 * aio_read(req, iocb, vectored, compat): @iocb is io_submit_one()'s copy
 * of the user's iocb, in the kernel. A followed task's read gets its flow
 * and its one attempt, inline; every flow made arms the return, which
 * records the read that failed before its completion (an attempt that
 * could not begin, counted in its missed, included). A kprobe handler
 * runs with preemption off, an RCU reader of the tables.
 */
static int iolayers_aio_read_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_aio_read);
	struct iolayers_aio_att *a = (struct iolayers_aio_att *)ri->data;
	unsigned long req = regs_get_kernel_argument(regs, 0);
	const struct iocb *iocb = (const struct iocb *)regs_get_kernel_argument(regs, 1);
	struct iolayers_task_flow *f;

	if (iolayers_empty || !iolayers_follows(current))
		return 1;
	iolayers_hit(&iolayers_pc_aio_read);
	f = iolayers_flow_req_start(req, IOLAYERS_VIA_AIO, iocb->aio_lio_opcode,
				    iocb->aio_fildes, iocb->aio_data);
	if (!f)
		return 1;
	f->rd.sys.pos = iocb->aio_offset;
	if (iocb->aio_lio_opcode == IOCB_CMD_PREAD)
		f->rd.sys.req = iocb->aio_nbytes;	/* PREADV's: the FS layer's */
	a->began = iolayers_flow_att_begin(f, IOLAYERS_UR_INLINE);
	a->req = req;
	a->seq = f->seq;
	return 0;
}

/*
 * aio_read() returned: 0 once the read completed (its flow gone already)
 * or was queued to complete later; an error when it was refused before
 * it was issued (no completion event comes: io_submit() returns it), its
 * record then.
 */
static int iolayers_aio_read_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct iolayers_aio_att *a = (const struct iolayers_aio_att *)ri->data;
	int ret = (int)regs_return_value(regs);
	struct iolayers_task_flow *f = iolayers_table_find(IOLAYERS_T_UREQ, a->req);

	if (!f || READ_ONCE(f->seq) != a->seq)
		return 0;
	if (a->began)
		iolayers_flow_att_end(f, !ret);
	if (ret)
		iolayers_flow_req_finish(f, ret);
	return 0;
}

/*
 * As many submissions at once as tasks may be inside io_submit() issuing
 * a buffered read (each holds an instance until its read is done);
 * beyond, a read is not followed, counted in the probe's missed.
 */
static struct kretprobe iolayers_aio_read_krp = {
	.entry_handler = iolayers_aio_read_entry,
	.handler = iolayers_aio_read_return,
	.data_size = sizeof(struct iolayers_aio_att),
	.maxactive = 256,
};

/*
 * aio_complete_rw(kiocb, res): the read's completion, its event posted
 * now (or, completed inside aio_read(), when io_submit() lets the iocb
 * go, instants later). In the reading task, or in a direct read's bio
 * completion: interrupt context.
 */
static __always_inline void iolayers_aio_complete(struct iolayers_fregs *fregs)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_aio_complete);
	unsigned long req = iolayers_fregs_arg(fregs, 0);
	long res = (long)iolayers_fregs_arg(fregs, 1);
	struct iolayers_task_flow *f;

	if (iolayers_table_empty(IOLAYERS_T_UREQ))
		return;
	f = iolayers_table_find(IOLAYERS_T_UREQ, req);
	if (!f || f->rd.sys.via != IOLAYERS_VIA_AIO)
		return;
	iolayers_hit(&iolayers_pc_aio_complete);
	iolayers_flow_req_finish(f, res);
}

/*
 * Not through iolayers_fentry_run(): its recursion guard would refuse a
 * completion whose interrupt came while one of our handlers ran on the
 * CPU, and the read would lose its record. This one may nest in any of
 * ours: it calls none of the functions we probe, and what it shares with
 * them it takes under the flow's lock or with atomic operations; its
 * record is written later, in task context (iolayers_flow_req_finish()).
 */
static void notrace iolayers_aio_complete_fentry(unsigned long ip, unsigned long parent_ip,
						 struct ftrace_ops *op,
						 struct iolayers_fregs *fregs)
{
	if (iolayers_empty)
		return;
	preempt_disable_notrace();
	iolayers_aio_complete(fregs);
	preempt_enable_notrace();
}

/*
 * The submission first: attached last (the registry attaches from the
 * last line), so that no request starts before its end can be seen. Not
 * on a kernel where our kretprobes are not (compat.h): AIO reads then make
 * no record.
 */
static struct iolayers_probe iolayers_aio_probes[] = {
	IOLAYERS_KRETPROBE("aio_read", &iolayers_aio_read_krp, iolayers_pc_aio_read,
			   .unverified = IOLAYERS_KRETPROBE_UNSAFE),
	IOLAYERS_FENTRY("aio_complete_rw", iolayers_aio_complete_fentry,
			iolayers_pc_aio_complete),
};

/* The AIO layer: a Linux AIO read from its submission to its event. */
struct iolayers_layer_probes iolayers_aio_layer = {
	.name = "AIO",
	.probes = iolayers_aio_probes,
	.nr_probes = ARRAY_SIZE(iolayers_aio_probes),
};
