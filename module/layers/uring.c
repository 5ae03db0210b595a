// SPDX-License-Identifier: GPL-2.0
/*
 * URING layer: io_uring read requests (IORING_OP_READ, READV, READ_FIXED,
 * READV_FIXED) of followed tasks, one flow per request from its submission
 * (io_uring_submit_req) to its completion's CQE (io_uring_complete),
 * keyed by the request, never by a task: its attempts to issue it
 * (io_read(), a kretprobe) run inline in io_uring_enter(), from task work
 * after a page-cache wait, in io-wq workers or the SQPOLL thread, and for
 * each attempt's span that task's FS, cache and BLOCK probes bind to the
 * request (flow.c).
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/errno.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <iolayers/compat.h>
#include <iolayers/filter.h>
#include <iolayers/flow.h>
#include <iolayers/layers.h>
#include <iolayers/percpu.h>
#include <iolayers/probe.h>
#include <iolayers/table.h>
#include <iolayers/uring.h>

static DEFINE_PER_CPU(u64, iolayers_nr_uring_unfollowed);

/**
 * iolayers_uring_unfollowed() - io_uring reads of followed tasks that make
 *	no flow: RECV, RECVMSG, READ_MULTISHOT, and reads that post no CQE
 *	on success (IOSQE_CQE_SKIP_SUCCESS).
 *
 * Return: how many were submitted, over all CPUs (0 where the layer
 * follows nothing: before 6.1).
 */
u64 iolayers_uring_unfollowed(void)
{
	return IOLAYERS_PERCPU_SUM(iolayers_nr_uring_unfollowed);
}

/**
 * iolayers_uring_unfollowed_reset() - Zero that count (`reset`).
 *
 * Context: process context; counts racing with it may survive.
 */
void iolayers_uring_unfollowed_reset(void)
{
	IOLAYERS_PERCPU_ZERO(iolayers_nr_uring_unfollowed);
}

/*
 * Not on a kernel where our kretprobes are not attached (compat.h): there
 * the layer is shown unverified and io_uring reads make no record.
 */
#if defined(IOLAYERS_HAVE_URING) && IOLAYERS_KRETPROBE_UNSAFE
#undef IOLAYERS_HAVE_URING
#define IOLAYERS_URING_KRP_OFF 1
#endif

#ifdef IOLAYERS_HAVE_URING
#include <linux/io_uring.h>
#include <linux/io_uring_types.h>
#include <uapi/linux/io_uring.h>
#include <uapi/iolayers.h>
#include <trace/events/io_uring.h>

IOLAYERS_PROBE_COUNTERS(iolayers_pc_uring_submit);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_uring_read);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_uring_read_fixed);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_uring_complete);

/*
 * IORING_OP_READV_FIXED (6.15 on): a number of the uapi, never given to
 * another opcode, taken as a number because an enumerator cannot be
 * tested for; a kernel without it refuses the opcode before submitting.
 */
#define IOLAYERS_IORING_OP_READV_FIXED 60

/* The reads: what a request's attempts issue through io_read() or io_read_fixed(). */
static bool iolayers_uring_read_op(u8 op)
{
	return op == IORING_OP_READ || op == IORING_OP_READV || op == IORING_OP_READ_FIXED ||
	       op == IOLAYERS_IORING_OP_READV_FIXED;
}

/* IORING_OP_READ_MULTISHOT (6.7 on), a number as READV_FIXED is. */
#define IOLAYERS_IORING_OP_READ_MULTISHOT 49

/*
 * Reads the layer does not follow, counted: a socket's (RECV, RECVMSG:
 * their attempts are not bracketed, so their SOCK and TCP parts would
 * bind to nothing) and multishot reads (one request, a CQE per buffer).
 */
static bool iolayers_uring_other_read_op(u8 op)
{
	return op == IORING_OP_RECV || op == IORING_OP_RECVMSG ||
	       op == IOLAYERS_IORING_OP_READ_MULTISHOT;
}

/*
 * Whose request it is, for the filters: the submitting thread's, or for a
 * ring with an SQPOLL thread (an io worker of the process), its process's
 * leader, so that comm= follows the program and not "iou-sqp-N". The
 * record names the thread that submitted it (the SQPOLL thread's id and
 * name there), in the program's process.
 */
static struct task_struct *iolayers_uring_owner(void)
{
	return current->flags & PF_IO_WORKER ? current->group_leader : current;
}

static struct kretprobe iolayers_uring_read_krp, iolayers_uring_read_fixed_krp;

/*
 * Attempts the kretprobes could not follow (no free instance, or a
 * kprobe already running on the CPU): their entry handler never ran, so
 * a request whose attempts ran while this moved lost what they did
 * (counted in its record's missed column).
 */
static unsigned int iolayers_uring_krp_missed(void)
{
	return READ_ONCE(iolayers_uring_read_krp.nmissed) +
	       READ_ONCE(iolayers_uring_read_fixed_krp.nmissed) +
	       READ_ONCE(iolayers_uring_read_krp.kp.nmissed) +
	       READ_ONCE(iolayers_uring_read_fixed_krp.kp.nmissed);
}

/*
 * A request not followed is submitted at @req: a flow still there is one
 * whose CQE was not seen (posted to a full CQ ring, which the completion
 * tracepoint does not see on every kernel; a read that failed with
 * IOSQE_CQE_SKIP_SUCCESS) and it goes, counted stale, before this
 * request's attempts and completion could be taken for its.
 */
static __always_inline void iolayers_uring_drop_left(struct io_kiocb *req)
{
	struct iolayers_task_flow *f;

	if (iolayers_table_empty(IOLAYERS_T_UREQ))
		return;
	f = iolayers_table_find(IOLAYERS_T_UREQ, (unsigned long)req);
	if (unlikely(f) && f->rd.sys.via == IOLAYERS_VIA_URING)
		iolayers_flow_req_drop(f);
}

/*
 * Prototype of TRACE_EVENT(io_uring_submit_req) (compat.h). A request
 * that posts no CQE when it succeeds (IOSQE_CQE_SKIP_SUCCESS) is not
 * followed: its end would not be seen. It, and a followed task's reads
 * the layer does not follow, are counted.
 */
static void iolayers_uring_submit(void *data, IOLAYERS_URING_SUBMIT_ARGS)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_uring_submit);
	struct iolayers_task_flow *f;
	bool read, followed;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	/* From 6.13 on a tracepoint's probes run preemptible. */
	iolayers_handler_rcu_lock();
	read = iolayers_uring_read_op(req->opcode);
	followed = (read || iolayers_uring_other_read_op(req->opcode)) &&
		   iolayers_follows(iolayers_uring_owner());
	if (!followed || !read || (req->flags & REQ_F_CQE_SKIP)) {
		if (followed)
			this_cpu_inc(iolayers_nr_uring_unfollowed);
		iolayers_uring_drop_left(req);
	} else {
		iolayers_hit(&iolayers_pc_uring_submit);
		/*
		 * The fd is in the CQE's place until the completion
		 * (io_init_req()). A flow left at this address is replaced.
		 */
		f = iolayers_flow_req_start((unsigned long)req, IOLAYERS_VIA_URING,
					    req->opcode, req->cqe.fd,
					    req->cqe.user_data);
		if (f)
			f->rd.ur.krp_missed = iolayers_uring_krp_missed();
	}
	iolayers_handler_rcu_unlock();
}

/*
 * A request's completion posted with @res, @req NULL for an aux CQE. A
 * flow left at the request's address by one whose completion was not
 * seen (a CQE that overflowed the ring) is not this request's: another
 * user_data, or no read at all now, and it goes, counted stale.
 */
static __always_inline void iolayers_uring_done(struct io_kiocb *req, u64 user_data, s32 res)
{
	struct iolayers_task_flow *f;

	if (iolayers_empty || !req || iolayers_table_empty(IOLAYERS_T_UREQ))
		return;
	iolayers_handler_rcu_lock();
	f = iolayers_table_find(IOLAYERS_T_UREQ, (unsigned long)req);
	if (f && (f->rd.ur.user_data != user_data || f->rd.ur.opcode != req->opcode)) {
		iolayers_flow_req_drop(f);
		f = NULL;
	}
	if (f) {
		iolayers_hit(&iolayers_pc_uring_complete);
		if (f->rd.ur.krp_missed != iolayers_uring_krp_missed())
			f->rd.missed |= IOLAYERS_MISSED_FS;
		iolayers_flow_req_finish(f, res);
	}
	iolayers_handler_rcu_unlock();
}

/*
 * io_uring_complete's two prototypes: (ctx, req, user_data, res, cflags,
 * extra1, extra2) until the CQE itself was passed, (ctx, req, cqe) since.
 * The kernel's own declaration picks the handler (compat.h).
 */
static void iolayers_uring_complete_args(void *data, void *ctx, void *req, u64 user_data,
					 int res, unsigned int cflags, u64 extra1, u64 extra2)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_uring_complete);

	iolayers_uring_done(req, user_data, res);
}

static void iolayers_uring_complete_cqe(void *data, struct io_ring_ctx *ctx, void *req,
					struct io_uring_cqe *cqe)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_uring_complete);

	iolayers_uring_done(req, cqe->user_data, cqe->res);
}

/* What an attempt's return handler needs: its request, checked again. */
struct iolayers_uring_att {
	unsigned long req;
	u64 seq;
};

/*
 * Where an attempt runs (from the task, not from io_read()'s issue
 * flags). An io-wq worker is an io thread with its worker
 * in @worker_private (the kernel's own io_wq_current_is_worker(), whose
 * header is io_uring's private one); the SQPOLL thread is an io thread
 * without one. Not io_read()'s IO_URING_F_IOWQ: that flag came to 6.1.y
 * in a stable update (6.1.191 or 192: Debian's 6.1.170 to 6.1.190 lack
 * it) and its value differs between kernels (64 on 6.1, 8 on 7.2).
 */
static u8 iolayers_uring_where(const struct iolayers_task_flow *f)
{
	if ((current->flags & PF_IO_WORKER) && current->worker_private)
		return IOLAYERS_UR_IOWQ;
	if (current->flags & PF_IO_WORKER)
		return IOLAYERS_UR_SQPOLL;
	return f->rd.ur.attempts ? IOLAYERS_UR_TASKWORK : IOLAYERS_UR_INLINE;
}

/*
 * io_read(req, issue_flags) and io_read_fixed(): an attempt of a followed
 * request begins. Only those arm the return. A kprobe handler runs with
 * preemption off, an RCU reader of the table.
 */
static __always_inline int iolayers_uring_att_entry(struct kretprobe_instance *ri,
						    struct pt_regs *regs,
						    struct iolayers_probe_pcpu __percpu *pcpu)
{
	IOLAYERS_COST_SCOPE(pcpu);
	struct iolayers_uring_att *a = (struct iolayers_uring_att *)ri->data;
	unsigned long req = regs_get_kernel_argument(regs, 0);
	struct iolayers_task_flow *f;

	if (iolayers_empty || iolayers_table_empty(IOLAYERS_T_UREQ))
		return 1;
	f = iolayers_table_find(IOLAYERS_T_UREQ, req);
	if (!f || f->rd.sys.via != IOLAYERS_VIA_URING)
		return 1;
	/* The request the flow was started for (as at its completion). */
	if (f->rd.ur.user_data != ((struct io_kiocb *)req)->cqe.user_data ||
	    f->rd.ur.opcode != ((struct io_kiocb *)req)->opcode)
		return 1;
	iolayers_hit(pcpu);
	if (!iolayers_flow_att_begin(f, iolayers_uring_where(f)))
		return 1;
	a->req = req;
	a->seq = f->seq;
	return 0;
}

static int iolayers_uring_read_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return iolayers_uring_att_entry(ri, regs, &iolayers_pc_uring_read);
}

static int iolayers_uring_read_fixed_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return iolayers_uring_att_entry(ri, regs, &iolayers_pc_uring_read_fixed);
}

/*
 * The attempt returned: 0 (done, its CQE to be posted), -EAGAIN (to be
 * retried: polled, or punted to io-wq) or -EIOCBQUEUED (to complete
 * later: a buffered read armed to be woken when its page is ready, a
 * direct one when its bios complete).
 */
static int iolayers_uring_read_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct iolayers_uring_att *a = (const struct iolayers_uring_att *)ri->data;
	/* io_read() returns an int: the register's upper half is not defined. */
	int ret = (int)regs_return_value(regs);
	struct iolayers_task_flow *f = iolayers_table_find(IOLAYERS_T_UREQ, a->req);

	if (f && READ_ONCE(f->seq) == a->seq)
		iolayers_flow_att_end(f, ret == -EAGAIN || ret == -EIOCBQUEUED);
	return 0;
}

/*
 * As many attempts at once as io-wq may block in: each worker of a ring
 * holds one while it waits for its read (beyond, an attempt is missed and
 * counted).
 */
#define IOLAYERS_URING_MAXACTIVE	256

static struct kretprobe iolayers_uring_read_krp = {
	.entry_handler = iolayers_uring_read_entry,
	.handler = iolayers_uring_read_return,
	.data_size = sizeof(struct iolayers_uring_att),
	.maxactive = IOLAYERS_URING_MAXACTIVE,
};

static struct kretprobe iolayers_uring_read_fixed_krp = {
	.entry_handler = iolayers_uring_read_fixed_entry,
	.handler = iolayers_uring_read_return,
	.data_size = sizeof(struct iolayers_uring_att),
	.maxactive = IOLAYERS_URING_MAXACTIVE,
};

/* The handlers' prototypes against the kernel's (never called). */
static void __maybe_unused iolayers_uring_check_types(void)
{
	IOLAYERS_URING_SUBMIT_CHECK(iolayers_uring_submit);
	IOLAYERS_TP_CHECK(io_uring_complete,
			  IOLAYERS_URING_COMPLETE_PICK(iolayers_uring_complete_cqe,
						       iolayers_uring_complete_args));
}

/*
 * The submission first: the registry attaches from the last line, so it
 * is attached last, once the attempts' and the completion's probes are
 * there to see what becomes of a request it starts, and detached first.
 * io_read_fixed() exists from the kernels where READ_FIXED has a handler
 * of its own; where it calls io_read(), the nested attempt is no new one.
 */
static struct iolayers_probe iolayers_uring_probes[] = {
	IOLAYERS_TRACEPOINT(IOLAYERS_URING_SUBMIT_TP, iolayers_uring_submit,
			    iolayers_pc_uring_submit),
	IOLAYERS_KRETPROBE("io_read", &iolayers_uring_read_krp, iolayers_pc_uring_read,
			   .missed_layer = IOLAYERS_MISSED_FS),
	IOLAYERS_KRETPROBE("io_read_fixed", &iolayers_uring_read_fixed_krp,
			   iolayers_pc_uring_read_fixed, .optional = true,
			   .missed_layer = IOLAYERS_MISSED_FS),
	IOLAYERS_TRACEPOINT("io_uring_complete",
			    IOLAYERS_URING_COMPLETE_PICK(iolayers_uring_complete_cqe,
							 iolayers_uring_complete_args),
			    iolayers_pc_uring_complete),
};

/* The URING layer: an io_uring read from its submission to its CQE. */
struct iolayers_layer_probes iolayers_uring_layer = {
	.name = "URING",
	.probes = iolayers_uring_probes,
	.nr_probes = ARRAY_SIZE(iolayers_uring_probes),
};

#else /* !IOLAYERS_HAVE_URING */

IOLAYERS_PROBE_COUNTERS(iolayers_pc_uring_none);

/* Never attached (unverified): a tracepoint handler of no prototype. */
static void iolayers_uring_none(void)
{
}

/*
 * No struct io_kiocb to read before 6.1 (or no kretprobes, above): the
 * layer's one probe point is shown unverified in `layers` (and said once
 * in the kernel's log), and io_uring reads make no record.
 */
#ifdef IOLAYERS_URING_KRP_OFF
#define IOLAYERS_URING_NONE_TP IOLAYERS_URING_SUBMIT_TP
#else
#define IOLAYERS_URING_NONE_TP "io_uring_submit_sqe"
#endif

static struct iolayers_probe iolayers_uring_probes[] = {
	IOLAYERS_TRACEPOINT(IOLAYERS_URING_NONE_TP, iolayers_uring_none, iolayers_pc_uring_none,
			    .optional = true, .unverified = true),
};

struct iolayers_layer_probes iolayers_uring_layer = {
	.name = "URING",
	.probes = iolayers_uring_probes,
	.nr_probes = ARRAY_SIZE(iolayers_uring_probes),
};

#endif
