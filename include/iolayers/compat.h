/* SPDX-License-Identifier: GPL-2.0 */
/* The only place with kernel-version conditionals. */
#ifndef _IOLAYERS_COMPAT_H
#define _IOLAYERS_COMPAT_H

#include <linux/version.h>
/* The feature tests' results (Kbuild, module/conftest/). */
#include <iolayers_conftest.h>

/*
 * Functions only KUnit tests call from outside their file: static in the
 * module, exported to the test module where the kernel has KUnit. The
 * kernel's <kunit/visibility.h> (6.2, backported to 6.1.y) is used where
 * it exists; older kernels (and Debian's, without KUnit) get the static.
 */
#if IS_ENABLED(CONFIG_KUNIT)
#include <kunit/visibility.h>
#endif
#ifndef VISIBLE_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(symbol)
#define VISIBLE_IF_KUNIT static
#endif

/*
 * What MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING) says, written so on
 * every kernel: its argument became a string literal in 6.13.
 */
#define IOLAYERS_IMPORT_KUNIT_NS() MODULE_INFO(import_ns, "EXPORTED_FOR_KUNIT_TESTING")

/*
 * The cleanup attribute: <linux/compiler_attributes.h> names it __cleanup
 * from 6.5 on; older kernels have the compiler feature but not the name.
 */
#ifndef __cleanup
#define __cleanup(func) __attribute__((__cleanup__(func)))
#endif

/*
 * What an ftrace callback is given. 5.11 ("ftrace: Have the callbacks
 * receive a struct ftrace_regs instead of pt_regs", Steven Rostedt) gave
 * callbacks a struct ftrace_regs, with the argument registers saved on
 * x86-64 (DYNAMIC_FTRACE_WITH_ARGS); 5.10's get a struct pt_regs, and
 * only with FTRACE_OPS_FL_SAVE_REGS (NULL otherwise).
 * IOLAYERS_KERNEL_RANGE: < 5.11 struct pt_regs and SAVE_REGS; >= 5.11
 * struct ftrace_regs.
 */
#if KERNEL_VERSION(5, 11, 0) > LINUX_VERSION_CODE
#define iolayers_fregs pt_regs
#define IOLAYERS_FTRACE_OPS_FLAGS (FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_RECURSION_SAFE)
#else
#define iolayers_fregs ftrace_regs
#define IOLAYERS_FTRACE_OPS_FLAGS 0
#endif

/**
 * iolayers_fregs_arg() - Argument @n of the function an ftrace callback
 *	entered.
 * @fregs: the callback's struct iolayers_fregs
 * @n: 0 for the first argument
 *
 * ftrace_regs_get_argument() came in 6.2 with the ftrace_regs accessors
 * ("ftrace: abstract DYNAMIC_FTRACE_WITH_ARGS accesses"); up to 6.1 the
 * struct ftrace_regs wraps a struct pt_regs and has no accessor yet,
 * and 5.10 passes the struct pt_regs itself. A feature test, not
 * `defined()`: x86 makes it a macro, arm64 an inline function
 * (module/conftest/ftrace_regs_get_argument.c).
 */
#if KERNEL_VERSION(5, 11, 0) > LINUX_VERSION_CODE
#define iolayers_fregs_arg(fregs, n) regs_get_kernel_argument(fregs, n)
#elif defined(IOLAYERS_HAVE_FTRACE_REGS_GET_ARGUMENT)
#define iolayers_fregs_arg(fregs, n) ftrace_regs_get_argument(fregs, n)
#else
#define iolayers_fregs_arg(fregs, n) regs_get_kernel_argument(&(fregs)->regs, n)
#endif

/*
 * The low bits of a folio's mapping that say it is not an address_space
 * (anon, KSM): PAGE_MAPPING_FLAGS up to 6.16, FOLIO_MAPPING_FLAGS from
 * 6.17 ("mm: rename PAGE_MAPPING_* to FOLIO_MAPPING_*", David
 * Hildenbrand, in the movable_ops rework the mm tree took in July 2025;
 * 7.2's headers have only the new name). Tested on the name, which is
 * what changed, not on a version.
 */
#ifdef FOLIO_MAPPING_FLAGS
#define IOLAYERS_MAPPING_FLAGS FOLIO_MAPPING_FLAGS
#else
#define IOLAYERS_MAPPING_FLAGS PAGE_MAPPING_FLAGS
#endif

/*
 * The block tracepoints' request_queue argument. The block_rq_* events
 * lost it in 5.10 ("block: remove the request_queue argument from the
 * block_rq_* tracepoints", Christoph Hellwig), block_bio_queue,
 * block_bio_remap and block_split in 5.11 ("block: remove the
 * request_queue argument to the block_bio_* tracepoints"). A bio
 * handler's parameter list starts with IOLAYERS_TP_BIO_QUEUE.
 * IOLAYERS_KERNEL_RANGE: < 5.11 (q, bio, ...); >= 5.11 (bio, ...).
 */
#if KERNEL_VERSION(5, 11, 0) > LINUX_VERSION_CODE
#define IOLAYERS_TP_BIO_QUEUE struct request_queue *q,
#else
#define IOLAYERS_TP_BIO_QUEUE
#endif

/*
 * block_bio_backmerge and block_bio_frontmerge lost their request_queue
 * and request arguments in 5.11 with the other block_bio_* events (the
 * same change as above). A merge handler's parameter list starts with
 * IOLAYERS_TP_BIO_MERGE.
 * IOLAYERS_KERNEL_RANGE: < 5.11 (q, rq, bio); >= 5.11 (bio).
 */
#if KERNEL_VERSION(5, 11, 0) > LINUX_VERSION_CODE
#define IOLAYERS_TP_BIO_MERGE struct request_queue *q, struct request *rq,
#else
#define IOLAYERS_TP_BIO_MERGE
#endif

/*
 * block_rq_complete's error: an int errno up to 5.15, the blk_status_t
 * itself from 5.16 on ("block: don't call blk_status_to_errno in
 * blk_update_request", Christoph Hellwig: the conversion moved into the
 * tracepoints). Ubuntu's 5.15 still passes the int.
 * IOLAYERS_KERNEL_RANGE: < 5.16 int; >= 5.16 blk_status_t.
 */
#if KERNEL_VERSION(5, 16, 0) > LINUX_VERSION_CODE
#define iolayers_tp_status_t int
#else
#define iolayers_tp_status_t blk_status_t
#endif

/*
 * sched_process_exit gained group_dead in 6.16 (7.2's header has it;
 * 6.12's does not): a handler's parameters are IOLAYERS_TP_EXIT_ARGS.
 * IOLAYERS_KERNEL_RANGE: < 6.16 (p); >= 6.16 (p, group_dead).
 */
#if KERNEL_VERSION(6, 16, 0) > LINUX_VERSION_CODE
#define IOLAYERS_TP_EXIT_ARGS struct task_struct *p
#else
#define IOLAYERS_TP_EXIT_ARGS struct task_struct *p, bool group_dead
#endif

/*
 * IOLAYERS_TP_CHECK() - A build error unless @probe has the type the
 * kernel's own header gives tracepoint @name's probes: <linux/tracepoint.h>
 * defines check_trace_callback_type_<name>() for every tracepoint a
 * header declares, and the kernel builds with
 * -Werror=incompatible-pointer-types. Used in a never-called function per
 * layer, so a prototype change is a build error, not a probe reading the
 * wrong registers.
 */
#define IOLAYERS_TP_CHECK(name, probe) check_trace_callback_type_##name(probe)

/*
 * sched_switch gained prev_state in 5.18 ("sched/tracing: Append
 * prev_state to tp args instead", Delyan Kratunov): a handler's
 * parameters after its data pointer are IOLAYERS_TP_SWITCH_ARGS.
 * IOLAYERS_KERNEL_RANGE: < 5.18 (preempt, prev, next); >= 5.18 with
 * prev_state.
 */
#if KERNEL_VERSION(5, 18, 0) > LINUX_VERSION_CODE
#define IOLAYERS_TP_SWITCH_ARGS \
	bool preempt, struct task_struct *prev, struct task_struct *next
#else
#define IOLAYERS_TP_SWITCH_ARGS \
	bool preempt, struct task_struct *prev, struct task_struct *next, unsigned int prev_state
#endif

/**
 * iolayers_bio_queue_of() - The request queue a bio is submitted to.
 * @bio: the bio
 *
 * bio->bi_bdev replaced bi_disk and bi_partno in 5.12 ("block: switch
 * bio to use struct block_device", Christoph Hellwig).
 * IOLAYERS_KERNEL_RANGE: < 5.12 bi_disk->queue; >= 5.12 through bi_bdev.
 */
#if KERNEL_VERSION(5, 12, 0) > LINUX_VERSION_CODE
#define iolayers_bio_queue_of(bio) ((bio)->bi_disk->queue)
#else
#define iolayers_bio_queue_of(bio) bdev_get_queue((bio)->bi_bdev)
#endif

/**
 * iolayers_rq_disk() - The gendisk of a request.
 * @rq: the request
 *
 * request->rq_disk went in 5.16 ("block: remove the ->rq_disk field in
 * struct request", Christoph Hellwig); the queue has its disk from 5.15.
 * IOLAYERS_KERNEL_RANGE: < 5.16 rq->rq_disk; >= 5.16 rq->q->disk.
 */
#if KERNEL_VERSION(5, 16, 0) > LINUX_VERSION_CODE
#define iolayers_rq_disk(rq) ((rq)->rq_disk)
#else
#define iolayers_rq_disk(rq) ((rq)->q->disk)
#endif

/*
 * Page cache memory: folios from 5.16 ("mm/filemap: Add
 * filemap_add_folio()" and the tracepoint's conversion, Matthew Wilcox:
 * mm_filemap_add_to_page_cache takes a folio); 5.10 passes a struct
 * page. struct iolayers_pcmem is what the tracepoint passes, with its
 * mapping, index, page count, swap cache flag and whether it is slab
 * memory (whose mapping field is the slab's own).
 * IOLAYERS_KERNEL_RANGE: < 5.16 struct page; >= 5.16 struct folio.
 */
#if KERNEL_VERSION(5, 16, 0) > LINUX_VERSION_CODE
#define iolayers_pcmem page
#define iolayers_pcmem_of_page(p) compound_head(p)
#define iolayers_pcmem_pages(m) thp_nr_pages(m)
#define iolayers_pcmem_swapcache(m) PageSwapCache(m)
#define iolayers_pcmem_slab(m) PageSlab(m)
#else
#define iolayers_pcmem folio
#define iolayers_pcmem_of_page(p) page_folio(p)
#define iolayers_pcmem_pages(m) folio_nr_pages(m)
#define iolayers_pcmem_swapcache(m) folio_test_swapcache(m)
#define iolayers_pcmem_slab(m) folio_test_slab(m)
#endif

/**
 * iolayers_ftrace_free_filter() - Free an ftrace_ops' filter after
 *	unregister_ftrace_function().
 * @ops: the ftrace_ops
 *
 * ftrace_free_filter() is exported to modules from 6.2 ("ftrace: Export
 * ftrace_free_filter() to modules", Mark Rutland), backported to 6.1.y but
 * not to 5.10.y; there, resetting the filter to nothing moves the ops to
 * the shared empty hash and frees its own (ftrace_set_hash() with reset).
 * IOLAYERS_KERNEL_RANGE: < 6.1 the reset; >= 6.1 ftrace_free_filter().
 */
#if KERNEL_VERSION(6, 1, 0) > LINUX_VERSION_CODE
#define iolayers_ftrace_free_filter(ops) ftrace_set_filter(ops, NULL, 0, 1)
#else
#define iolayers_ftrace_free_filter(ops) ftrace_free_filter(ops)
#endif

/*
 * The page cache's buffered read: generic_file_buffered_read() was
 * renamed filemap_read() in 5.12 ("mm/filemap: rename
 * generic_file_buffered_read to filemap_read", Kent Overstreet); both
 * take (struct kiocb *, struct iov_iter *) first.
 * IOLAYERS_KERNEL_RANGE: < 5.12 generic_file_buffered_read; >= 5.12
 * filemap_read.
 */
#if KERNEL_VERSION(5, 12, 0) > LINUX_VERSION_CODE
#define IOLAYERS_FILEMAP_READ "generic_file_buffered_read"
#else
#define IOLAYERS_FILEMAP_READ "filemap_read"
#endif

/*
 * The raw syscall tracepoints' probes: run with preemption disabled (an
 * RCU read-side critical section, one RCU flavour since 5.0) up to 6.12;
 * from 6.13 syscall tracepoints may fault and run their probes
 * preemptible, under RCU tasks trace only ("tracing: Allow system call
 * tracepoints to handle page faults", Mathieu Desnoyers; 6.12's
 * __DO_TRACE disables preemption, 7.2's syscall variant takes
 * rcu_tasks_trace). Their handlers disable preemption only where it is
 * needed, which makes them RCU readers as before 6.13 (and holds them on
 * one CPU's rings and histograms): rcu_read_lock() and its unlock were
 * about 28 instructions a pair on a cached read of 7.2's preemptible
 * RCU, preempt_disable_notrace() and its enable a few.
 * IOLAYERS_KERNEL_RANGE: < 6.13 nothing; >= 6.13 preempt_disable_notrace().
 */
#if KERNEL_VERSION(6, 13, 0) > LINUX_VERSION_CODE
#define iolayers_sys_tp_lock() do { } while (0)
#define iolayers_sys_tp_unlock() do { } while (0)
#else
#define iolayers_sys_tp_lock() preempt_disable_notrace()
#define iolayers_sys_tp_unlock() preempt_enable_notrace()
#endif

/*
 * fprobe's handlers (tools/mechfloor, a benchmark row) are given a struct
 * pt_regs up to 6.13 and a struct ftrace_regs from 6.14, when fprobe moved
 * onto the function graph tracer ("fprobe: Use ftrace_regs in fprobe
 * entry handler", Masami Hiramatsu).
 * IOLAYERS_KERNEL_RANGE: < 6.14 struct pt_regs; >= 6.14 struct ftrace_regs.
 */
#if KERNEL_VERSION(6, 14, 0) > LINUX_VERSION_CODE
#define iolayers_fprobe_regs pt_regs
#else
#define iolayers_fprobe_regs ftrace_regs
#endif

/*
 * A snapshot of the timekeeper, with its clocksource's counter value:
 * ktime_get_snapshot() up to 7.1; the timekeeping rework for auxiliary
 * clocks ("timekeeping: Provide ktime_get_snapshot_id()" and the removal
 * of the old call once its users were converted, Thomas Gleixner, posted
 * May 2026) takes the clock to snapshot. sid's 7.2 headers have only
 * ktime_get_snapshot_id(); 7.0 and 7.1 were not checked.
 * IOLAYERS_KERNEL_RANGE: < 7.2 ktime_get_snapshot(); >= 7.2
 * ktime_get_snapshot_id(CLOCK_MONOTONIC, ...).
 */
#if KERNEL_VERSION(7, 2, 0) > LINUX_VERSION_CODE
#define iolayers_ktime_snapshot(snap) ktime_get_snapshot(snap)
/* A snapshot's time in ns (CLOCK_REALTIME before: the same rate). */
#define iolayers_snapshot_ns(snap) ktime_to_ns((snap)->real)
/* Its offset from CLOCK_MONOTONIC (the wall clock's), and whether valid. */
#define iolayers_snapshot_off() ktime_to_ns(ktime_mono_to_real(0))
#define iolayers_snapshot_valid(snap) ((void)(snap), true)
/* Its CLOCK_MONOTONIC_RAW in ns (not slewed: the counter's nominal rate). */
#define iolayers_snapshot_raw(snap) ktime_to_ns((snap)->raw)
#else
#define iolayers_ktime_snapshot(snap) ktime_get_snapshot_id(CLOCK_MONOTONIC, snap)
#define iolayers_snapshot_ns(snap) ktime_to_ns((snap)->systime)
#define iolayers_snapshot_off() 0
#define iolayers_snapshot_valid(snap) ((snap)->valid)
#define iolayers_snapshot_raw(snap) ktime_to_ns((snap)->monoraw)
#endif

/*
 * NVMe's tracepoints are declared in the driver's private header
 * (drivers/nvme/host/trace.h), so no build can check a probe's type:
 * nvme_setup_cmd(struct request *, struct nvme_command *) and
 * nvme_complete_rq(struct request *), the same in 5.10, 6.1, 6.12 and
 * 7.2 (linux-source-6.1; on the others, the VM tests' device times per
 * request on each of these kernels). Outside that range they are not
 * attached (`unverified` in `layers`) until checked and the range moved.
 * IOLAYERS_KERNEL_RANGE: [5.10, 7.3) pinned.
 */
#define IOLAYERS_NVME_PINNED \
	(KERNEL_VERSION(5, 10, 0) <= LINUX_VERSION_CODE && \
	 KERNEL_VERSION(7, 3, 0) > LINUX_VERSION_CODE)

/*
 * io_uring (uring.c) reads struct io_kiocb, public since the io_uring
 * code moved to its own directory (6.0, include/linux/io_uring_types.h);
 * before that the layer has no probe point. The submission's tracepoint
 * was io_uring_submit_sqe(req, force_nonblock) and became
 * io_uring_submit_req(req) between 6.2 and 6.5 (taken here as 6.4,
 * "io_uring: rename trace_io_uring_submit_sqe() tracepoint", Jens Axboe;
 * 6.3 and 6.4 were not built: a wrong guess there fails the build at the
 * prototype check, it cannot attach a wrong handler); neither moved in a
 * stable update. IOLAYERS_KERNEL_RANGE: < 6.1 none; < 6.4
 * io_uring_submit_sqe; >= 6.4 io_uring_submit_req.
 */
#if KERNEL_VERSION(6, 1, 0) <= LINUX_VERSION_CODE
#define IOLAYERS_HAVE_URING 1
#if KERNEL_VERSION(6, 4, 0) > LINUX_VERSION_CODE
#define IOLAYERS_URING_SUBMIT_TP "io_uring_submit_sqe"
#define IOLAYERS_URING_SUBMIT_ARGS struct io_kiocb *req, bool force_nonblock
#define IOLAYERS_URING_SUBMIT_CHECK(probe) IOLAYERS_TP_CHECK(io_uring_submit_sqe, probe)
#else
#define IOLAYERS_URING_SUBMIT_TP "io_uring_submit_req"
#define IOLAYERS_URING_SUBMIT_ARGS struct io_kiocb *req
#define IOLAYERS_URING_SUBMIT_CHECK(probe) IOLAYERS_TP_CHECK(io_uring_submit_req, probe)
#endif

/*
 * io_uring_complete passed the CQE's fields one by one (ctx, req,
 * user_data, res, cflags, extra1, extra2), then the CQE itself (ctx, req,
 * cqe). Told by the kernel's own declaration of the tracepoint, not by
 * its version: @cqe_probe where the tracepoint takes a CQE, @args_probe
 * otherwise.
 */
#define IOLAYERS_URING_COMPLETE_PICK(cqe_probe, args_probe)				\
	__builtin_choose_expr(								\
		__builtin_types_compatible_p(typeof(register_trace_io_uring_complete) *, \
			int (*)(void (*)(void *, struct io_ring_ctx *, void *,		\
					 struct io_uring_cqe *), void *)),		\
		(cqe_probe), (args_probe))
#endif

/*
 * Kernels where our kretprobes are not attached (their layer goes on
 * without them, shown unverified): those whose ftrace takes bit 0 of a
 * callback's address as "jump, do not call" (DYNAMIC_FTRACE_WITH_JMP,
 * 7.x) and whose functions may lie at odd addresses (built for size by
 * a compiler the kernel does not trust to align them,
 * CC_HAS_SANE_FUNCTION_ALIGNMENT unset: GCC 12's -Os ignores the
 * alignment asked). There, once kprobe_ftrace_ops is registered a second time (a
 * kprobe removed, then one added), its trampoline is patched with a jmp
 * to kprobe_ftrace_handler, and the probed function returns to the value
 * of r15: our tinyconfig debug kernel crashed so at the entry of
 * io_read() (Documentation/design.rst). Debian's kernels are built -O2.
 */
#if defined(CONFIG_DYNAMIC_FTRACE_WITH_JMP) && defined(CONFIG_CC_OPTIMIZE_FOR_SIZE) && \
	!defined(CONFIG_CC_HAS_SANE_FUNCTION_ALIGNMENT)
#define IOLAYERS_KRETPROBE_UNSAFE 1
#else
#define IOLAYERS_KRETPROBE_UNSAFE 0
#endif

/*
 * A cgroup's ancestors on the default hierarchy, by depth (filter.c's
 * cgroup=): IOLAYERS_CGROUP_KEY() is what the setting keeps of its
 * cgroup (an IOLAYERS_CGROUP_KEY_TYPE), IOLAYERS_CGROUP_ANCESTOR() the
 * same of a task's cgroup's ancestor at a depth. IOLAYERS_KERNEL_RANGE: < 6.0 a cgroup keeps its
 * ancestors' ids (ancestor_ids[]), >= 6.0 pointers to them (ancestors[],
 * "cgroup: Replace cgroup->ancestor_ids[] with ->ancestors[]"); never
 * moved in a stable series.
 */
#if KERNEL_VERSION(6, 0, 0) > LINUX_VERSION_CODE
#define IOLAYERS_CGROUP_KEY_TYPE u64
#define IOLAYERS_CGROUP_KEY(cg) cgroup_id(cg)
#define IOLAYERS_CGROUP_ANCESTOR(cg, lvl) ((cg)->ancestor_ids[lvl])
#else
#define IOLAYERS_CGROUP_KEY_TYPE struct cgroup *
#define IOLAYERS_CGROUP_KEY(cg) (cg)
#define IOLAYERS_CGROUP_ANCESTOR(cg, lvl) ((cg)->ancestors[lvl])
#endif

#endif /* _IOLAYERS_COMPAT_H */
