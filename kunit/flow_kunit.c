// SPDX-License-Identifier: GPL-2.0
/* KUnit: flows (module/flow.c): folding a completed request, refused layers, forgetting. */

#include <kunit/test.h>
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <iolayers/cache.h>
#include <iolayers/flow.h>
#include <iolayers/request.h>
#include <iolayers/stream.h>
#include <iolayers/table.h>

static void iolayers_flow_test_fold(struct kunit *test)
{
	struct iolayers_blk_acc a = { 0 };
	struct iolayers_rq r1 = {
		.nr_flows = 2, .bytes = { 4096, 8192 }, .first_issue_ns = 1000,
		.issue_ns = 1000, .queue_lat = 50, .setup_ns = 990, .devdone_ns = 1800,
		.disk = 1,
	};
	struct iolayers_rq r2 = {
		.nr_flows = 1, .bytes = { 65536 }, .first_issue_ns = 700, .issue_ns = 1500,
		.queue_lat = 20, .requeues = 1, .disk = 2,
	};

	iolayers_blk_fold(&a, &r1, 1, 1900, false);
	KUNIT_EXPECT_EQ(test, a.nr_rqs, 1U);
	KUNIT_EXPECT_EQ(test, a.rq_bytes, 8192ULL);
	KUNIT_EXPECT_EQ(test, a.service_ns, 900ULL);
	KUNIT_EXPECT_EQ(test, a.device_ns, 810ULL);
	KUNIT_EXPECT_EQ(test, a.device_at, 1800ULL);
	KUNIT_EXPECT_EQ(test, a.disk, 1);
	KUNIT_EXPECT_EQ(test, a.disk_mask, (u16)BIT(0));
	/* A second request, on another disk (requeued once, no NVMe times, failed). */
	iolayers_blk_fold(&a, &r2, 0, 2000, true);
	KUNIT_EXPECT_EQ(test, a.nr_rqs, 2U);
	KUNIT_EXPECT_EQ(test, a.rq_bytes, 8192ULL + 65536);
	KUNIT_EXPECT_EQ(test, a.queue_ns, 50ULL);
	KUNIT_EXPECT_EQ(test, a.service_ns, 900ULL);
	KUNIT_EXPECT_EQ(test, a.device_ns, 810ULL);
	KUNIT_EXPECT_EQ(test, a.issue_at, 700ULL);
	KUNIT_EXPECT_EQ(test, a.done_at, 2000ULL);
	KUNIT_EXPECT_EQ(test, a.requeues, 1U);
	KUNIT_EXPECT_EQ(test, a.errors, 1U);
	/* The first request's disk stays; the flow says others were used. */
	KUNIT_EXPECT_EQ(test, a.disk, 1);
	KUNIT_EXPECT_EQ(test, a.disk_mask, (u16)(BIT(0) | BIT(1)));
}

/* The record of the flow @seq among the kept ones, copied to @out. */
static bool iolayers_flow_test_record(u64 seq, struct iolayers_flow_rec *out)
{
	struct iolayers_flow_rec *recs;
	unsigned int i, n;
	bool found = false;

	recs = iolayers_stream_snapshot(false, &n);
	for (i = 0; i < n; i++) {
		if (recs[i].seq == seq) {
			*out = recs[i];
			found = true;
		}
	}
	kvfree(recs);
	return found;
}

/*
 * A read of this thread whose FS entry the recursion guard refused
 * (iolayers_flow_missed(), as iolayers_fentry_refused() calls it): its
 * record says which layer it lost, and it is UNK, not "other". One that
 * lost only its VFS entry is still "other" (the VFS time is what it
 * lacks).
 */
static void iolayers_flow_test_missed(struct kunit *test)
{
	static const struct {
		u8 missed;
		enum iolayers_cache cache;
	} cases[] = {
		{ IOLAYERS_MISSED_FS, IOLAYERS_C_UNK },
		{ IOLAYERS_MISSED_VFS, IOLAYERS_C_OTHER },
		{ 0, IOLAYERS_C_OTHER },
	};
	struct iolayers_flow_rec rec;
	struct iolayers_task_flow *f;
	unsigned int i;
	u64 seq;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		rcu_read_lock();
		f = iolayers_flow_start(current->pid);
		if (!f) {
			rcu_read_unlock();
			kunit_skip(test, "no task entry (table full)");
		}
		if (cases[i].missed)
			iolayers_flow_missed(cases[i].missed);
		KUNIT_EXPECT_EQ(test, f->rd.missed, cases[i].missed);
		seq = f->seq;
		iolayers_flow_finish(f, 4096);
		/* The entry is idle now: a refusal after the read changes nothing. */
		iolayers_flow_missed(IOLAYERS_MISSED_FS);
		KUNIT_EXPECT_EQ(test, f->rd.missed, cases[i].missed);
		rcu_read_unlock();
		KUNIT_ASSERT_TRUE(test, iolayers_flow_test_record(seq, &rec));
		KUNIT_EXPECT_EQ(test, rec.missed, cases[i].missed);
		KUNIT_EXPECT_EQ(test, rec.cache, cases[i].cache);
	}
	iolayers_flow_exit(current->pid);
}

/*
 * A filter change's sweep (iolayers_flows_forget_idle()) against a task
 * starting reads: an entry in flight stays; an idle one goes, and the
 * task's next read starts in a new entry; a task whose claim of its idle
 * entry loses to the sweep's mark (made here by hand, as the sweep would
 * between the task's look-up and its claim) starts over in a new entry,
 * which its later probes find, and never in the one marked gone (whose
 * hand-offs it clears on every CPU, so that freeing it below leaves none).
 */
static void iolayers_flow_test_forget(struct kunit *test)
{
	struct iolayers_task_flow *f, *g;
	pid_t tid = current->pid;
	u32 old;

	rcu_read_lock();
	f = iolayers_flow_start(tid);
	rcu_read_unlock();
	if (!f)
		kunit_skip(test, "no task entry (table full)");
	iolayers_flows_forget_idle();
	rcu_read_lock();
	KUNIT_EXPECT_PTR_EQ(test, iolayers_flow_find(tid), f);
	iolayers_flow_finish(f, 0);
	KUNIT_EXPECT_NULL(test, iolayers_flow_find(tid));
	old = cmpxchg(&f->state, IOLAYERS_FLOW_ENDED, IOLAYERS_FLOW_ENDED | IOLAYERS_FLOW_GONE);
	KUNIT_EXPECT_EQ(test, old, (u32)IOLAYERS_FLOW_ENDED);
	g = iolayers_flow_start(tid);
	KUNIT_EXPECT_NOT_NULL(test, g);
	KUNIT_EXPECT_PTR_NE(test, g, f);
	KUNIT_EXPECT_EQ(test, f->state, (u32)(IOLAYERS_FLOW_ENDED | IOLAYERS_FLOW_GONE));
	KUNIT_EXPECT_PTR_EQ(test, iolayers_flow_find(tid), g);
	if (g)
		iolayers_flow_finish(g, 0);
	rcu_read_unlock();
	/* What the sweep would have done with the marked one. */
	KUNIT_EXPECT_TRUE(test, iolayers_table_del(IOLAYERS_T_TASK, f));
	/* Idle now: the sweep removes it, and the next read starts anew. */
	KUNIT_EXPECT_GE(test, iolayers_flows_forget_idle(), 1);
	rcu_read_lock();
	KUNIT_EXPECT_NULL(test, iolayers_flow_find(tid));
	f = iolayers_flow_start(tid);
	KUNIT_EXPECT_NOT_NULL(test, f);
	KUNIT_EXPECT_PTR_EQ(test, iolayers_flow_find(tid), f);
	if (f)
		iolayers_flow_finish(f, 0);
	rcu_read_unlock();
	iolayers_flow_exit(tid);
}

/*
 * The function entries' first test (iolayers_flow_maybe_here()): a task
 * with the CPU's hand-off may have a read in flight; one another task
 * took the hand-off from, found absent by a look-up, has none; after an
 * insertion into the table (the task's next read) a remembered absence
 * no longer counts, whatever the hand-off says. Another thread's entry
 * (a thread id no task has) keeps the table from being empty.
 */
static void iolayers_flow_test_maybe_here(struct kunit *test)
{
	const pid_t other = PID_MAX_LIMIT - 1;
	struct iolayers_task_flow *f, *o;
	s64 inserts;
	bool maybe;

	rcu_read_lock();
	o = iolayers_flow_start(other);
	f = iolayers_flow_start(current->pid);
	if (!o || !f) {
		rcu_read_unlock();
		iolayers_flow_exit(other);
		iolayers_flow_exit(current->pid);
		kunit_skip(test, "no task entry (table full)");
	}
	preempt_disable();
	KUNIT_EXPECT_TRUE(test, iolayers_flow_maybe());
	/*
	 * The hand-off's task another's: the miss word (from before this
	 * thread's insertion) does not send it back, and the hand-off still
	 * names its entry.
	 */
	this_cpu_write(iolayers_flow_cur_task, NULL);
	KUNIT_EXPECT_TRUE(test, iolayers_flow_maybe());
	KUNIT_EXPECT_PTR_EQ(test, iolayers_flow_find(current->pid), f);
	KUNIT_EXPECT_TRUE(test, iolayers_flow_maybe());
	preempt_enable();
	iolayers_flow_finish(f, 0);
	rcu_read_unlock();
	iolayers_flow_exit(current->pid);

	rcu_read_lock();
	preempt_disable();
	this_cpu_write(iolayers_flow_cur_task, NULL);
	/*
	 * Absent: the look-up remembers it, and the test says no (unless
	 * another thread's first read inserted an entry meanwhile).
	 */
	inserts = atomic64_read(&iolayers_task_inserts);
	KUNIT_EXPECT_NULL(test, iolayers_flow_find(current->pid));
	maybe = iolayers_flow_maybe();
	if (atomic64_read(&iolayers_task_inserts) == inserts)
		KUNIT_EXPECT_FALSE(test, maybe);
	preempt_enable();
	/* The next read inserts an entry: the absence is void. */
	f = iolayers_flow_start(current->pid);
	KUNIT_EXPECT_NOT_NULL(test, f);
	preempt_disable();
	this_cpu_write(iolayers_flow_cur_task, NULL);
	KUNIT_EXPECT_TRUE(test, iolayers_flow_maybe());
	preempt_enable();
	if (f)
		iolayers_flow_finish(f, 0);
	iolayers_flow_finish(o, 0);
	rcu_read_unlock();
	iolayers_flow_exit(current->pid);
	iolayers_flow_exit(other);
}

/*
 * A read that reaches no layer, after one of the same thread that reached
 * VFS and FS and added pages: its record carries nothing of the earlier
 * read (sys_enter zeroes only what says a layer was reached and what adds
 * up; struct iolayers_read_state).
 */
static void iolayers_flow_test_fresh(struct kunit *test)
{
	struct iolayers_flow_rec rec;
	struct iolayers_task_flow *f;
	u64 seq;

	rcu_read_lock();
	f = iolayers_flow_start(current->pid);
	if (!f) {
		rcu_read_unlock();
		kunit_skip(test, "no task entry (table full)");
	}
	f->rd.sys.pos = -1;
	f->rd.vfs.start = f->rd.sys.start;
	f->rd.vfs.pos = 8192;
	f->rd.file.ino = 42;
	f->rd.file.dev = 7;
	f->rd.file.block_fs = true;
	f->rd.fs.reached = true;
	f->rd.fs.start = f->rd.sys.start;
	f->rd.fs.pos = 8192;
	f->rd.cache.added_pages = 1;
	f->rd.cache.ra_pages = 3;
	f->rd.foreign = true;
	iolayers_flow_finish(f, 4096);
	f = iolayers_flow_start(current->pid);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->rd.sys.pos = -1;
	seq = f->seq;
	iolayers_flow_finish(f, -EBADF);
	rcu_read_unlock();
	KUNIT_ASSERT_TRUE(test, iolayers_flow_test_record(seq, &rec));
	KUNIT_EXPECT_EQ(test, rec.vfs_off, -1LL);
	KUNIT_EXPECT_EQ(test, rec.vfs_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, rec.fs_off, -1LL);
	KUNIT_EXPECT_EQ(test, rec.fs_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, rec.pos, -1LL);
	KUNIT_EXPECT_EQ(test, rec.ino, 0ULL);
	KUNIT_EXPECT_EQ(test, rec.fs_dev, (dev_t)0);
	KUNIT_EXPECT_EQ(test, rec.ra_bytes, 0ULL);
	KUNIT_EXPECT_EQ(test, rec.cache, (int)IOLAYERS_C_OTHER);
	iolayers_flow_exit(current->pid);
}

/*
 * An io_uring request's flow (module/flow.c, "Request flows" in
 * Documentation/design.rst): keyed by its address, found by nobody's
 * probes until an attempt begins; during one this thread's probes find it
 * through the hand-off, and through the thread's own entry when the
 * hand-off is lost (a move to another CPU); a nested attempt is none; the
 * name async contexts use (its key) finds it until its completion; an
 * attempt that entered the FS layer and got no data marks it as having
 * waited; its record is the submitter's, with its attempts.
 */
static void iolayers_flow_test_request(struct kunit *test)
{
	static char req;	/* a request's address: any kernel address */
	unsigned long key = (unsigned long)&req;
	struct iolayers_flow_ref ref;
	struct iolayers_flow_rec rec;
	struct iolayers_task_flow *f;
	pid_t tid = current->pid;
	u64 seq;

	rcu_read_lock();
	preempt_disable();
	/* IORING_OP_READ on fd 5 */
	f = iolayers_flow_req_start(key, IOLAYERS_VIA_URING, 22, 5, 77);
	if (!f) {
		preempt_enable();
		rcu_read_unlock();
		kunit_skip(test, "no request entry (table full)");
	}
	seq = f->seq;
	ref = iolayers_flow_ref_of(f);
	KUNIT_EXPECT_EQ(test, ref.key, key);
	KUNIT_EXPECT_PTR_EQ(test, iolayers_flow_get(&ref), f);
	KUNIT_EXPECT_NULL(test, iolayers_flow_find(tid));
	/* The first attempt, inline: this thread's probes find the request. */
	KUNIT_EXPECT_TRUE(test, iolayers_flow_att_begin(f, IOLAYERS_UR_INLINE));
	KUNIT_EXPECT_PTR_EQ(test, iolayers_flow_find(tid), f);
	KUNIT_EXPECT_FALSE(test, iolayers_flow_att_begin(f, IOLAYERS_UR_INLINE));
	this_cpu_write(iolayers_flow_cur, NULL);
	KUNIT_EXPECT_PTR_EQ(test, iolayers_flow_find(tid), f);
	/* It entered the FS layer and got no data: -EIOCBQUEUED. */
	f->rd.fs.entries++;
	iolayers_flow_att_end(f, true);
	KUNIT_EXPECT_NULL(test, iolayers_flow_find(tid));
	KUNIT_EXPECT_TRUE(test, f->rd.ur.waited);
	/* The retry from task work gets it. */
	KUNIT_EXPECT_TRUE(test, iolayers_flow_att_begin(f, IOLAYERS_UR_TASKWORK));
	KUNIT_EXPECT_PTR_EQ(test, iolayers_flow_find(tid), f);
	iolayers_flow_att_end(f, false);
	KUNIT_EXPECT_NULL(test, iolayers_flow_find(tid));
	KUNIT_EXPECT_PTR_EQ(test, iolayers_flow_get(&ref), f);
	iolayers_flow_req_finish(f, 4096);
	KUNIT_EXPECT_NULL(test, iolayers_flow_get(&ref));
	preempt_enable();
	rcu_read_unlock();
	KUNIT_ASSERT_TRUE(test, iolayers_flow_test_record(seq, &rec));
	KUNIT_EXPECT_EQ(test, rec.via, (u8)IOLAYERS_VIA_URING);
	KUNIT_EXPECT_EQ(test, rec.nr, 22);
	KUNIT_EXPECT_EQ(test, rec.fd, 5);
	KUNIT_EXPECT_EQ(test, rec.ret, 4096L);
	KUNIT_EXPECT_EQ(test, rec.tid, tid);
	KUNIT_EXPECT_EQ(test, rec.attempts, (u8)2);
	KUNIT_EXPECT_EQ(test, rec.where, (u8)(IOLAYERS_UR_INLINE | IOLAYERS_UR_TASKWORK));
	KUNIT_EXPECT_GE(test, rec.ur_issue_off, 0LL);
	KUNIT_EXPECT_LE(test, rec.ur_issue_ns, rec.sys_ns);
	iolayers_flow_exit(tid);
}

/*
 * The ends a request's flow may meet besides its own: a completion while
 * an attempt is open closes it (no probe of the task finds the request
 * afterwards, its entry is idle again); a new request at the address of
 * one whose completion was not seen replaces it; a read() of the task
 * over an attempt whose end was not seen starts a read of its own, and
 * the request is no longer found.
 */
static void iolayers_flow_test_request_ends(struct kunit *test)
{
	static char req;
	unsigned long key = (unsigned long)&req;
	struct iolayers_task_flow *f, *g, *r;
	struct iolayers_flow_ref ref;
	pid_t tid = current->pid;

	rcu_read_lock();
	preempt_disable();
	f = iolayers_flow_req_start(key, IOLAYERS_VIA_URING, 22, 3, 1);
	if (!f) {
		preempt_enable();
		rcu_read_unlock();
		kunit_skip(test, "no request entry (table full)");
	}
	KUNIT_EXPECT_TRUE(test, iolayers_flow_att_begin(f, IOLAYERS_UR_IOWQ));
	KUNIT_EXPECT_PTR_EQ(test, iolayers_flow_find(tid), f);
	iolayers_flow_req_finish(f, -ECANCELED);
	KUNIT_EXPECT_NULL(test, iolayers_flow_find(tid));
	/* The task's end of the attempt, after the completion: nothing. */
	iolayers_flow_att_end(f, false);
	/* A completion not seen: the next request at the address replaces it. */
	f = iolayers_flow_req_start(key, IOLAYERS_VIA_URING, 22, 3, 2);
	KUNIT_ASSERT_NOT_NULL(test, f);
	ref = iolayers_flow_ref_of(f);
	g = iolayers_flow_req_start(key, IOLAYERS_VIA_URING, 1, 3, 3);
	KUNIT_ASSERT_NOT_NULL(test, g);
	KUNIT_EXPECT_PTR_NE(test, g, f);
	KUNIT_EXPECT_NULL(test, iolayers_flow_get(&ref));
	/* An attempt whose end is not seen, then a read() of the task. */
	KUNIT_EXPECT_TRUE(test, iolayers_flow_att_begin(g, IOLAYERS_UR_INLINE));
	r = iolayers_flow_start(tid);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_PTR_NE(test, r, g);
	KUNIT_EXPECT_PTR_EQ(test, iolayers_flow_find(tid), r);
	KUNIT_EXPECT_FALSE(test, g->rd.ur.open);
	iolayers_flow_finish(r, 0);
	KUNIT_EXPECT_NULL(test, iolayers_flow_find(tid));
	iolayers_flow_req_finish(g, 0);
	preempt_enable();
	rcu_read_unlock();
	iolayers_flow_exit(tid);
}

/*
 * A completion in interrupt context: from an irq_work's callback (not a
 * HARD one: a bio's completion runs in a handler that an RT kernel
 * threads, where the flow's spinlock_t is right; lockdep's raw-lock
 * nesting check holds a HARD irq_work's to a raw lock).
 */
struct iolayers_flow_test_irq {
	struct irq_work work;
	unsigned long key;
	bool in_irq;
};

static void iolayers_flow_test_irq_fn(struct irq_work *work)
{
	struct iolayers_flow_test_irq *t = container_of(work, struct iolayers_flow_test_irq, work);
	struct iolayers_task_flow *f = iolayers_table_find(IOLAYERS_T_UREQ, t->key);

	t->in_irq = !in_task();
	if (f)
		iolayers_flow_req_finish(f, 4096);
}

/*
 * A direct AIO read of fd 4 at @key: its flow, its attempt begun, its FS
 * call made (iomap_dio_rw(), IOCB_DIRECT). RCU and preemption held.
 */
static struct iolayers_task_flow *iolayers_flow_test_aio(struct kunit *test, unsigned long key,
							 u8 op)
{
	struct iolayers_task_flow *f = iolayers_flow_req_start(key, IOLAYERS_VIA_AIO, op, 4, 9);

	if (!f)
		return NULL;
	KUNIT_EXPECT_TRUE(test, iolayers_flow_att_begin(f, IOLAYERS_UR_INLINE));
	f->rd.fs.entries++;
	f->rd.fs.reached = true;
	f->rd.fs.start = f->rd.sys.start;
	f->rd.fs.direct = true;
	return f;
}

/*
 * An AIO read completed in interrupt context (a direct read's bio): its
 * flow leaves the table there, and its record is written in task context
 * by the worker, the submitter's, with the result it completed with.
 */
static void iolayers_flow_test_request_irq(struct kunit *test)
{
	static char req;
	struct iolayers_flow_test_irq t = {
		.work = IRQ_WORK_INIT(iolayers_flow_test_irq_fn),
		.key = (unsigned long)&req,
	};
	struct iolayers_flow_rec rec;
	struct iolayers_task_flow *f;
	pid_t tid = current->pid;
	u64 seq;

	rcu_read_lock();
	preempt_disable();
	f = iolayers_flow_test_aio(test, t.key, 0);	/* IOCB_CMD_PREAD */
	if (!f) {
		preempt_enable();
		rcu_read_unlock();
		kunit_skip(test, "no request entry (table full)");
	}
	seq = f->seq;
	iolayers_flow_att_end(f, true);
	KUNIT_EXPECT_FALSE(test, f->rd.ur.waited);	/* a direct read waits for no page */
	preempt_enable();
	rcu_read_unlock();
	irq_work_queue(&t.work);
	irq_work_sync(&t.work);
	KUNIT_EXPECT_TRUE(test, t.in_irq);
	rcu_read_lock();
	KUNIT_EXPECT_NULL(test, iolayers_table_find(IOLAYERS_T_UREQ, t.key));
	rcu_read_unlock();
	iolayers_reqs_flush();
	KUNIT_ASSERT_TRUE(test, iolayers_flow_test_record(seq, &rec));
	KUNIT_EXPECT_EQ(test, rec.via, (u8)IOLAYERS_VIA_AIO);
	KUNIT_EXPECT_EQ(test, rec.nr, 0);
	KUNIT_EXPECT_EQ(test, rec.fd, 4);
	KUNIT_EXPECT_EQ(test, rec.ret, 4096L);
	KUNIT_EXPECT_EQ(test, rec.tid, tid);
	KUNIT_EXPECT_EQ(test, rec.attempts, (u8)1);
	KUNIT_EXPECT_EQ(test, rec.where, (u8)IOLAYERS_UR_INLINE);
	KUNIT_EXPECT_EQ(test, rec.cache, IOLAYERS_C_DIRECT);
	KUNIT_EXPECT_LE(test, rec.ur_issue_ns, rec.sys_ns);
	iolayers_flow_exit(tid);
}

/*
 * An AIO read whose interrupt completion comes while its attempt is still
 * open (the bio completed before aio_read() returned): the completion
 * closes the attempt (no hand-off, no mark: the task's probes find
 * nothing), counts its time as issuing, and the attempt's own end, after
 * it, does nothing; one record.
 */
static void iolayers_flow_test_request_irq_open(struct kunit *test)
{
	static char req;
	struct iolayers_flow_test_irq t = {
		.work = IRQ_WORK_INIT(iolayers_flow_test_irq_fn),
		.key = (unsigned long)&req,
	};
	struct iolayers_flow_rec rec;
	struct iolayers_task_flow *f;
	pid_t tid = current->pid;
	u64 seq, issue;

	rcu_read_lock();
	preempt_disable();
	f = iolayers_flow_test_aio(test, t.key, 7);	/* IOCB_CMD_PREADV */
	if (!f) {
		preempt_enable();
		rcu_read_unlock();
		kunit_skip(test, "no request entry (table full)");
	}
	seq = f->seq;
	KUNIT_EXPECT_PTR_EQ(test, iolayers_flow_find(tid), f);
	irq_work_queue(&t.work);
	preempt_enable();
	/* Not irq_work_sync(), which may sleep: this is an RCU reader. */
	while (irq_work_is_busy(&t.work))
		cpu_relax();
	KUNIT_EXPECT_TRUE(test, t.in_irq);
	/* Still ours to read: unlinked, retired one grace period after its record. */
	preempt_disable();
	KUNIT_EXPECT_NULL(test, iolayers_flow_find(tid));
	KUNIT_EXPECT_PTR_EQ(test, this_cpu_read(iolayers_flow_cur), NULL);
	KUNIT_EXPECT_FALSE(test, f->rd.ur.open);
	issue = f->rd.ur.issue;
	iolayers_flow_att_end(f, true);
	KUNIT_EXPECT_EQ(test, f->rd.ur.issue, issue);
	preempt_enable();
	rcu_read_unlock();
	iolayers_reqs_flush();
	KUNIT_ASSERT_TRUE(test, iolayers_flow_test_record(seq, &rec));
	KUNIT_EXPECT_EQ(test, rec.via, (u8)IOLAYERS_VIA_AIO);
	KUNIT_EXPECT_EQ(test, rec.nr, 7);
	KUNIT_EXPECT_EQ(test, rec.attempts, (u8)1);
	KUNIT_EXPECT_EQ(test, rec.cache, IOLAYERS_C_DIRECT);
	KUNIT_EXPECT_GE(test, rec.ur_issue_off, 0LL);
	KUNIT_EXPECT_LE(test, rec.ur_issue_ns, rec.sys_ns);
	iolayers_flow_exit(tid);
}

static struct kunit_case iolayers_flow_cases[] = {
	KUNIT_CASE(iolayers_flow_test_fold),
	KUNIT_CASE(iolayers_flow_test_missed),
	KUNIT_CASE(iolayers_flow_test_forget),
	KUNIT_CASE(iolayers_flow_test_fresh),
	KUNIT_CASE(iolayers_flow_test_maybe_here),
	KUNIT_CASE(iolayers_flow_test_request),
	KUNIT_CASE(iolayers_flow_test_request_ends),
	KUNIT_CASE(iolayers_flow_test_request_irq),
	KUNIT_CASE(iolayers_flow_test_request_irq_open),
	{}
};

static struct kunit_suite iolayers_flow_suite = {
	.name = "iolayers_flow",
	.test_cases = iolayers_flow_cases,
};

kunit_test_suite(iolayers_flow_suite);
