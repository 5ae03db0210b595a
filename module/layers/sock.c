// SPDX-License-Identifier: GPL-2.0
/*
 * SOCK and TCP layers: a read from a socket, from sock_recvmsg's entry
 * (every read-family and recv-family syscall on a socket passes it) and
 * tcp_recvmsg's (TCP over IPv4 and IPv6) to the syscall's exit, and the
 * time it waited for data: from its socket's wait for data (sk_wait_data
 * for TCP, the datagram wait for UDP and Unix datagrams, Unix streams'
 * own, or the sleep they all end in) to the copy that followed
 * (skb_copy_datagram_iter). Entries only,
 * as VFS and FS: the layers end where the syscall does.
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/net.h>
#include <linux/seq_file.h>
#include <linux/socket.h>
#include <linux/in.h>
#include <net/sock.h>
#include <net/tcp_states.h>
#include <trace/events/sock.h>
#include <iolayers/clock.h>
#include <iolayers/compat.h>
#include <iolayers/flow.h>
#include <iolayers/hist.h>
#include <iolayers/layers.h>
#include <iolayers/probe.h>
#include <iolayers/sock.h>

IOLAYERS_PROBE_COUNTERS(iolayers_pc_sock_recvmsg);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_inet_recvmsg);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_inet6_recvmsg);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_unix_stream_recvmsg);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_unix_dgram_recvmsg);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_unix_seqpacket_recvmsg);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_tcp_recvmsg);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_sk_wait_data);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_dgram_wait);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_unix_wait);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_sched_timeout);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_skb_copy);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_tcp_v4_rcv);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_tcp_v6_rcv);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_sock_close);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_sock_destroy);

/* The receive path's time per segment of a followed TCP socket. */
static DEFINE_PER_CPU(struct iolayers_hist, iolayers_rcv_hist);

/*
 * Entries of the socket table removed so far: a reader that knows its
 * socket's entry is there (iolayers_task_flow.last_sk) looks again only
 * after a removal, not at every read.
 */
static atomic64_t iolayers_sock_forgets __read_mostly;

static struct iolayers_probe iolayers_sock_probes[];

/* Indexes in iolayers_sock_probes[], for the waits' states. */
enum {
	IOLAYERS_SP_RECVMSG,
	IOLAYERS_SP_INET,
	IOLAYERS_SP_INET6,
	IOLAYERS_SP_UNIX_STREAM,
	IOLAYERS_SP_UNIX_DGRAM,
	IOLAYERS_SP_UNIX_SEQPACKET,
	IOLAYERS_SP_TCP,
	IOLAYERS_SP_SK_WAIT,
	IOLAYERS_SP_DGRAM_WAIT,
	IOLAYERS_SP_UNIX_WAIT,
	IOLAYERS_SP_SCHED_WAIT,
	IOLAYERS_SP_COPY,
};

static bool iolayers_sock_probe_on(int i)
{
	return READ_ONCE(iolayers_sock_probes[i].state) == IOLAYERS_PROBE_ATTACHED;
}

/* What a socket is, from its family, type and protocol. */
static u8 iolayers_sock_kind(const struct socket *sock, const struct sock *sk)
{
	bool stream = sock->type == SOCK_STREAM;

	switch (sk->sk_family) {
	case AF_INET:
	case AF_INET6:
		if (stream && sk->sk_protocol == IPPROTO_TCP)
			return sk->sk_family == AF_INET ? IOLAYERS_SK_TCP : IOLAYERS_SK_TCP6;
		if (sock->type == SOCK_DGRAM && sk->sk_protocol == IPPROTO_UDP)
			return sk->sk_family == AF_INET ? IOLAYERS_SK_UDP : IOLAYERS_SK_UDP6;
		return IOLAYERS_SK_OTHER;
	case AF_UNIX:
		return stream ? IOLAYERS_SK_UNIX_STREAM : IOLAYERS_SK_UNIX_DGRAM;
	default:
		return IOLAYERS_SK_OTHER;
	}
}

/*
 * Whether the wait for data of a kind of socket is probed: its own wait
 * function, or where that is inlined (unix_stream_data_wait is static)
 * the sleep it calls, schedule_timeout().
 */
static bool iolayers_sock_waitable(u8 kind)
{
	int i;

	switch (kind) {
	case IOLAYERS_SK_TCP:
	case IOLAYERS_SK_TCP6:
		i = IOLAYERS_SP_SK_WAIT;
		break;
	case IOLAYERS_SK_UDP:
	case IOLAYERS_SK_UDP6:
	case IOLAYERS_SK_UNIX_DGRAM:
		i = IOLAYERS_SP_DGRAM_WAIT;
		break;
	case IOLAYERS_SK_UNIX_STREAM:
		i = IOLAYERS_SP_UNIX_WAIT;
		break;
	default:
		return false;
	}
	return (iolayers_sock_probe_on(i) || iolayers_sock_probe_on(IOLAYERS_SP_SCHED_WAIT)) &&
	       iolayers_sock_probe_on(IOLAYERS_SP_COPY);
}

/*
 * Every entry of @sk goes: readers of one socket may each have added one
 * (the lookup and the insert are not one step). Ends when none is found,
 * or one found is being removed by another CPU.
 */
static void iolayers_sock_forget(const struct sock *sk, struct iolayers_probe_pcpu __percpu *pcpu)
{
	struct iolayers_sockent *s;

	iolayers_handler_rcu_lock();
	while ((s = iolayers_table_find(IOLAYERS_T_SOCK, (unsigned long)sk)) &&
	       iolayers_table_del(IOLAYERS_T_SOCK, s)) {
		iolayers_hit(pcpu);
		/* After the removal: a reader's knowledge of it is void. */
		smp_mb__before_atomic();
		atomic64_inc(&iolayers_sock_forgets);
	}
	iolayers_handler_rcu_unlock();
}

/*
 * A TCP socket a followed task reads: its segments are followed in the
 * receive path from now until it closes. Two readers of one socket may
 * both add it: its close removes every entry. A socket already closed
 * (reset before this read, or never connected) is not added: no segment
 * comes for it, and its end may pass no transition to TCP_CLOSE (tcp_close()
 * of a reset socket goes straight to its destruction). Nor is a listening
 * one (a read of it fails with ENOTCONN): what it receives is connection
 * requests.
 */
static void iolayers_sock_learn(struct iolayers_task_flow *f, const struct sock *sk)
{
	/* Read before the lookup: a removal after it voids what is learnt. */
	u64 gen = atomic64_read_acquire(&iolayers_sock_forgets);
	struct iolayers_sockent *s;
	u8 state;

	if (f->last_sk == sk && f->last_sk_gen == gen)
		return;	/* its entry is there: none was removed since */
	state = READ_ONCE(sk->sk_state);
	/* A listener's segments are connection requests, not its data. */
	if (state == TCP_CLOSE || state == TCP_LISTEN)
		return;
	if (iolayers_table_find(IOLAYERS_T_SOCK, (unsigned long)sk))
		goto known;
	s = iolayers_table_alloc(IOLAYERS_T_SOCK);	/* a failure is counted */
	if (!s)
		return;
	iolayers_table_insert(IOLAYERS_T_SOCK, s, (unsigned long)sk);
	/*
	 * The entry before a second look at the state. tcp_set_state() runs
	 * the event before it stores the state: a close whose event ran
	 * before the entry was there is seen here if its store came first,
	 * else at the socket's destruction (tcp_v4_destroy_sock).
	 */
	smp_mb();
	if (READ_ONCE(sk->sk_state) == TCP_CLOSE) {
		iolayers_sock_forget(sk, &iolayers_pc_sock_close);
		return;
	}
known:
	f->last_sk = sk;
	f->last_sk_gen = gen;
}

/*
 * Prototype of TRACE_EVENT(inet_sock_set_state): a TCP socket closes,
 * and its address may be another socket's next; it is forgotten.
 */
static void iolayers_sock_set_state(void *data, const struct sock *sk, const int oldstate,
				    const int newstate)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_sock_close);

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	if (newstate != TCP_CLOSE || iolayers_table_empty(IOLAYERS_T_SOCK))
		return;
	iolayers_sock_forget(sk, &iolayers_pc_sock_close);
}

/*
 * tcp_v4_destroy_sock(struct sock *): every TCP socket's end, IPv4 and
 * IPv6 (its prot->destroy, or called by tcp_v6_destroy_sock()), whatever
 * came before: whatever entry is left of it goes (a socket closed while
 * it was being added, between the event and the state's store).
 */
static void iolayers_sock_destroy_entry(struct iolayers_fregs *fregs,
					struct iolayers_probe_pcpu __percpu *pcpu)
{
	IOLAYERS_COST_SCOPE(pcpu);

	if (iolayers_table_empty(IOLAYERS_T_SOCK))
		return;
	iolayers_sock_forget((const struct sock *)iolayers_fregs_arg(fregs, 0), pcpu);
}

/* A segment's start in the receive path, in the clock the reads use. */
struct iolayers_rcv_stamp {
	u64 start;
	bool tsc;
};

/*
 * tcp_v4_do_rcv() and tcp_v6_do_rcv() (struct sock *, struct sk_buff *):
 * a segment's processing by TCP, in softirq on whatever CPU, or from the
 * socket's backlog when its owner releases it. Only a followed socket's
 * segments arm the return; a kprobe handler runs with preemption off,
 * an RCU reader of the table.
 */
static __always_inline int iolayers_rcv_entry(struct kretprobe_instance *ri,
					      struct pt_regs *regs,
					      struct iolayers_probe_pcpu __percpu *pcpu)
{
	IOLAYERS_COST_SCOPE(pcpu);
	struct iolayers_rcv_stamp *st = (struct iolayers_rcv_stamp *)ri->data;
	unsigned long sk = regs_get_kernel_argument(regs, 0);

	if (iolayers_empty || iolayers_table_empty(IOLAYERS_T_SOCK) ||
	    !iolayers_table_find(IOLAYERS_T_SOCK, sk))
		return 1;
	iolayers_hit(pcpu);
	st->tsc = READ_ONCE(iolayers_clock_tsc);
	st->start = iolayers_stamp(st->tsc);
	return 0;
}

static int iolayers_rcv4_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return iolayers_rcv_entry(ri, regs, &iolayers_pc_tcp_v4_rcv);
}

static int iolayers_rcv6_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return iolayers_rcv_entry(ri, regs, &iolayers_pc_tcp_v6_rcv);
}

/* The segment's time into this CPU's histogram (irqs off: softirq nests). */
static int iolayers_rcv_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct iolayers_rcv_stamp *st = (const struct iolayers_rcv_stamp *)ri->data;
	u64 ns = iolayers_stamp_ns(st->tsc, st->start, iolayers_stamp(st->tsc));
	unsigned long flags;

	local_irq_save(flags);
	iolayers_hist_add(this_cpu_ptr(&iolayers_rcv_hist), ns, 0);
	local_irq_restore(flags);
	return 0;
}

static struct kretprobe iolayers_rcv4_krp = {
	.entry_handler = iolayers_rcv4_entry,
	.handler = iolayers_rcv_return,
	.data_size = sizeof(struct iolayers_rcv_stamp),
};

static struct kretprobe iolayers_rcv6_krp = {
	.entry_handler = iolayers_rcv6_entry,
	.handler = iolayers_rcv_return,
	.data_size = sizeof(struct iolayers_rcv_stamp),
};

/**
 * iolayers_rcv_show() - The `rcv` file: the receive path's histogram of
 *	followed TCP sockets' segments.
 * @m: the seq_file
 *
 * A header line "layer tcp_rcv count N sum_ns S min_ns M max_ns X", then
 * "low high count" per non-empty log2 bucket (ns), as `hist` prints them;
 * then the kretprobes' misses.
 *
 * Context: process context.
 */
void iolayers_rcv_show(struct seq_file *m)
{
	struct iolayers_hist sum;
	int cpu;

	iolayers_hist_clear(&sum);
	for_each_possible_cpu(cpu)
		iolayers_hist_merge(&sum, per_cpu_ptr(&iolayers_rcv_hist, cpu));
	seq_printf(m, "layer tcp_rcv count %llu sum_ns %llu min_ns %llu max_ns %llu\n", sum.count,
		   sum.sum_ns, sum.count ? sum.min_ns : 0, sum.max_ns);
	iolayers_hist_show_buckets(m, &sum);
}

/**
 * iolayers_rcv_reset() - Empty the receive path's histogram (at load, `reset`).
 *
 * Context: process context; segments racing with it may survive.
 */
void iolayers_rcv_reset(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		iolayers_hist_clear(per_cpu_ptr(&iolayers_rcv_hist, cpu));
}

/* The handlers' prototypes against the kernel's (never called). */
static void __maybe_unused iolayers_sock_check_types(void)
{
	IOLAYERS_TP_CHECK(inet_sock_set_state, iolayers_sock_set_state);
}

/*
 * sock_recvmsg(struct socket *, struct msghdr *, int): a followed read's
 * first entry starts its SOCK layer and says what it reads from. Nested
 * entries (a socket read inside a socket read) are left alone.
 */
static __always_inline void iolayers_sock_entry(struct iolayers_fregs *fregs,
						struct iolayers_probe_pcpu __percpu *pcpu)
{
	IOLAYERS_COST_SCOPE(pcpu);
	const struct socket *sock;
	const struct sock *sk;
	struct iolayers_task_flow *f;

	if (iolayers_table_empty(IOLAYERS_T_TASK))
		return;
	/* An RCU reader already (iolayers_fentry_run()). */
	f = iolayers_flow_here(current->pid);
	if (!f || f->rd.sock.start)
		return;
	iolayers_hit(pcpu);
	sock = (const struct socket *)iolayers_fregs_arg(fregs, 0);
	sk = sock->sk;
	if (!sk)
		return;
	memset(&f->rd.sock, 0, sizeof(f->rd.sock));	/* sys_enter did not */
	f->rd.sock.sk = sk;
	f->rd.sock.kind = iolayers_sock_kind(sock, sk);
	if ((f->rd.sock.kind == IOLAYERS_SK_TCP || f->rd.sock.kind == IOLAYERS_SK_TCP6) &&
	    iolayers_rcv)
		iolayers_sock_learn(f, sk);
	f->rd.sock.waitable = iolayers_sock_waitable(f->rd.sock.kind);
	f->rd.sock.start = iolayers_stamp(f->rd.sys.tsc);
}

/* The flow of current's socket read, if its socket is @sk (NULL: any). */
static __always_inline struct iolayers_task_flow *iolayers_sock_flow(const void *sk)
{
	struct iolayers_task_flow *f;

	if (iolayers_table_empty(IOLAYERS_T_TASK))
		return NULL;
	f = iolayers_flow_here(current->pid);
	return f && f->rd.sock.start && (!sk || f->rd.sock.sk == sk) ? f : NULL;
}

/* A socket read (@f, if any) starts to wait for data, unless it does. */
static __always_inline void iolayers_wait_begin(struct iolayers_task_flow *f,
						struct iolayers_probe_pcpu __percpu *pcpu)
{
	if (!f || f->rd.sock.wait_start)
		return;
	iolayers_hit(pcpu);
	f->rd.sock.waited = true;
	f->rd.sock.wait_start = iolayers_stamp(f->rd.sys.tsc);
}

/* tcp_recvmsg(struct sock *, ...): the TCP layer's start. */
static __always_inline void iolayers_tcp_entry(struct iolayers_fregs *fregs,
					       struct iolayers_probe_pcpu __percpu *pcpu)
{
	IOLAYERS_COST_SCOPE(pcpu);
	struct iolayers_task_flow *f;

	f = iolayers_sock_flow((const void *)iolayers_fregs_arg(fregs, 0));
	if (!f || f->rd.sock.tcp_start)
		return;
	iolayers_hit(pcpu);
	f->rd.sock.tcp_start = iolayers_stamp(f->rd.sys.tsc);
}

/*
 * A wait for data: sk_wait_data(), __skb_wait_for_more_packets() and
 * unix_stream_data_wait() all take the socket first. They are entered
 * only when nothing is queued (they may still find data and not sleep).
 */
static __always_inline void iolayers_wait_entry(struct iolayers_fregs *fregs,
						struct iolayers_probe_pcpu __percpu *pcpu)
{
	IOLAYERS_COST_SCOPE(pcpu);

	iolayers_wait_begin(iolayers_sock_flow((const void *)iolayers_fregs_arg(fregs, 0)), pcpu);
}

/*
 * schedule_timeout(): a socket read that sleeps with a timeout waits for
 * data (every wait for data above sleeps in it; a socket lock's wait does
 * not). Only the first wait of a read without one in progress counts:
 * the waits above have started it already.
 */
static __always_inline void iolayers_sleep_entry(struct iolayers_fregs *fregs,
						 struct iolayers_probe_pcpu __percpu *pcpu)
{
	IOLAYERS_COST_SCOPE(pcpu);

	iolayers_wait_begin(iolayers_sock_flow(NULL), pcpu);
}

/* Data is copied to the reader: a wait in progress has ended. */
static __always_inline void iolayers_copy_entry(struct iolayers_fregs *fregs,
						struct iolayers_probe_pcpu __percpu *pcpu)
{
	IOLAYERS_COST_SCOPE(pcpu);
	struct iolayers_task_flow *f;

	if (iolayers_table_empty(IOLAYERS_T_TASK))
		return;
	f = iolayers_flow_here(current->pid);
	if (!f || !f->rd.sock.start || !f->rd.sock.wait_start)
		return;
	iolayers_hit(pcpu);
	f->rd.sock.wait += iolayers_stamp(f->rd.sys.tsc) - f->rd.sock.wait_start;
	f->rd.sock.wait_start = 0;
}

IOLAYERS_DEFINE_FENTRY_IF(iolayers_sock_recvmsg_fentry, iolayers_pc_sock_recvmsg,
			  iolayers_sock_entry, iolayers_flow_maybe_here)
IOLAYERS_DEFINE_FENTRY_IF(iolayers_inet_recvmsg_fentry, iolayers_pc_inet_recvmsg,
			  iolayers_sock_entry, iolayers_flow_maybe_here)
IOLAYERS_DEFINE_FENTRY_IF(iolayers_inet6_recvmsg_fentry, iolayers_pc_inet6_recvmsg,
			  iolayers_sock_entry, iolayers_flow_maybe_here)
IOLAYERS_DEFINE_FENTRY_IF(iolayers_unix_stream_recvmsg_fentry, iolayers_pc_unix_stream_recvmsg,
			  iolayers_sock_entry, iolayers_flow_maybe_here)
IOLAYERS_DEFINE_FENTRY_IF(iolayers_unix_dgram_recvmsg_fentry, iolayers_pc_unix_dgram_recvmsg,
			  iolayers_sock_entry, iolayers_flow_maybe_here)
IOLAYERS_DEFINE_FENTRY_IF(iolayers_unix_seqpacket_recvmsg_fentry,
			  iolayers_pc_unix_seqpacket_recvmsg, iolayers_sock_entry,
			  iolayers_flow_maybe_here)
IOLAYERS_DEFINE_FENTRY_IF(iolayers_tcp_recvmsg_fentry, iolayers_pc_tcp_recvmsg, iolayers_tcp_entry,
			  iolayers_flow_maybe_here)
IOLAYERS_DEFINE_FENTRY_IF(iolayers_sk_wait_fentry, iolayers_pc_sk_wait_data, iolayers_wait_entry,
			  iolayers_flow_maybe_here)
IOLAYERS_DEFINE_FENTRY_IF(iolayers_dgram_wait_fentry, iolayers_pc_dgram_wait, iolayers_wait_entry,
			  iolayers_flow_maybe_here)
IOLAYERS_DEFINE_FENTRY_IF(iolayers_unix_wait_fentry, iolayers_pc_unix_wait, iolayers_wait_entry,
			  iolayers_flow_maybe_here)
IOLAYERS_DEFINE_FENTRY_IF(iolayers_sched_wait_fentry, iolayers_pc_sched_timeout,
			  iolayers_sleep_entry, iolayers_flow_maybe_here)
IOLAYERS_DEFINE_FENTRY_IF(iolayers_skb_copy_fentry, iolayers_pc_skb_copy, iolayers_copy_entry,
			  iolayers_flow_maybe_here)
IOLAYERS_DEFINE_FENTRY(iolayers_sock_destroy_fentry, iolayers_pc_sock_destroy,
		       iolayers_sock_destroy_entry)

/**
 * iolayers_sock_state() - The state of a socket read that has returned.
 * @f: its flow, ended
 * @ret: what the read returned
 *
 * WAITED when it entered its socket's wait for data; else READY when it
 * returned data (it was queued when the read looked), EMPTY when it
 * returned none (end of stream, an error, -EAGAIN). Where the wait of its
 * kind of socket is not probed, or a SOCK entry was refused during the
 * read, the state cannot be told: UNK; a socket of another kind than
 * TCP, UDP or Unix is other.
 *
 * Context: the task itself, at sys_exit.
 * Return: the state.
 */
enum iolayers_cache iolayers_sock_state(const struct iolayers_task_flow *f, long ret)
{
	const struct iolayers_read_sock *s = &f->rd.sock;

	if (s->kind == IOLAYERS_SK_OTHER)
		return IOLAYERS_C_OTHER;
	if (!s->waitable || (f->rd.missed & IOLAYERS_MISSED_SOCK))
		return IOLAYERS_C_UNK;
	if (s->waited)
		return IOLAYERS_C_WAITED;
	return ret > 0 ? IOLAYERS_C_READY : IOLAYERS_C_EMPTY;
}

/*
 * The receive family's functions, in the order a read meets them. The
 * waits are optional: where a kind's own is inlined (unix_stream_data_wait
 * is static, and is on Debian's 6.1), schedule_timeout() stands for it;
 * with neither, that kind's reads are UNK, timed still. TCP's own path
 * and the waits every kind may take have an ftrace_ops each; the other
 * families' share one (grouped: a faster rmmod, a lookup by address in
 * their callback).
 */
static struct iolayers_probe iolayers_sock_probes[] = {
	[IOLAYERS_SP_RECVMSG] =
	IOLAYERS_FENTRY("sock_recvmsg", iolayers_sock_recvmsg_fentry, iolayers_pc_sock_recvmsg,
			.missed_layer = IOLAYERS_MISSED_SOCK),
	/*
	 * sock_recvmsg's callers are in its own file, and a compiler may
	 * inline it into them (our debug kernel's gcc 16 does: its entry
	 * then never fires for a syscall). The families' recvmsg, called
	 * through the socket's ops from there, cannot be: the first of these
	 * a read enters starts its SOCK layer, all take the socket first.
	 */
	[IOLAYERS_SP_INET] =
	IOLAYERS_FENTRY("inet_recvmsg", iolayers_inet_recvmsg_fentry, iolayers_pc_inet_recvmsg,
			.optional = true, .missed_layer = IOLAYERS_MISSED_SOCK),
	[IOLAYERS_SP_INET6] =
	IOLAYERS_FENTRY("inet6_recvmsg", iolayers_inet6_recvmsg_fentry,
			iolayers_pc_inet6_recvmsg, .optional = true,
			.missed_layer = IOLAYERS_MISSED_SOCK, .grouped = true),
	[IOLAYERS_SP_UNIX_STREAM] =
	IOLAYERS_FENTRY("unix_stream_recvmsg", iolayers_unix_stream_recvmsg_fentry,
			iolayers_pc_unix_stream_recvmsg, .optional = true,
			.missed_layer = IOLAYERS_MISSED_SOCK, .grouped = true),
	[IOLAYERS_SP_UNIX_DGRAM] =
	IOLAYERS_FENTRY("unix_dgram_recvmsg", iolayers_unix_dgram_recvmsg_fentry,
			iolayers_pc_unix_dgram_recvmsg, .optional = true,
			.missed_layer = IOLAYERS_MISSED_SOCK, .grouped = true),
	[IOLAYERS_SP_UNIX_SEQPACKET] =
	IOLAYERS_FENTRY("unix_seqpacket_recvmsg", iolayers_unix_seqpacket_recvmsg_fentry,
			iolayers_pc_unix_seqpacket_recvmsg, .optional = true,
			.missed_layer = IOLAYERS_MISSED_SOCK, .grouped = true),
	[IOLAYERS_SP_TCP] =
	IOLAYERS_FENTRY("tcp_recvmsg", iolayers_tcp_recvmsg_fentry, iolayers_pc_tcp_recvmsg,
			.optional = true, .missed_layer = IOLAYERS_MISSED_SOCK),
	[IOLAYERS_SP_SK_WAIT] =
	IOLAYERS_FENTRY("sk_wait_data", iolayers_sk_wait_fentry, iolayers_pc_sk_wait_data,
			.optional = true, .missed_layer = IOLAYERS_MISSED_SOCK),
	[IOLAYERS_SP_DGRAM_WAIT] =
	IOLAYERS_FENTRY("__skb_wait_for_more_packets", iolayers_dgram_wait_fentry,
			iolayers_pc_dgram_wait, .optional = true,
			.missed_layer = IOLAYERS_MISSED_SOCK, .grouped = true),
	[IOLAYERS_SP_UNIX_WAIT] =
	IOLAYERS_FENTRY("unix_stream_data_wait", iolayers_unix_wait_fentry,
			iolayers_pc_unix_wait, .optional = true,
			.missed_layer = IOLAYERS_MISSED_SOCK, .grouped = true),
	[IOLAYERS_SP_SCHED_WAIT] =
	IOLAYERS_FENTRY("schedule_timeout", iolayers_sched_wait_fentry,
			iolayers_pc_sched_timeout, .optional = true,
			.missed_layer = IOLAYERS_MISSED_SOCK),
	[IOLAYERS_SP_COPY] =
	IOLAYERS_FENTRY("skb_copy_datagram_iter", iolayers_skb_copy_fentry, iolayers_pc_skb_copy,
			.optional = true, .missed_layer = IOLAYERS_MISSED_SOCK),
};

/* The SOCK layer (and TCP's): from sock_recvmsg's entry to sys_exit. */
struct iolayers_layer_probes iolayers_sock_layer = {
	.name = "SOCK",
	.probes = iolayers_sock_probes,
	.nr_probes = ARRAY_SIZE(iolayers_sock_probes),
};

/*
 * The receive path (rcv=1), and the end of the sockets it follows. Apart
 * from the SOCK layer's reads: a kretprobe takes its dispatch and a
 * return instance for every TCP segment of the machine before its entry
 * handler can tell a followed socket's from another's.
 */
static struct iolayers_probe iolayers_rcv_probes[] = {
	IOLAYERS_KRETPROBE("tcp_v4_do_rcv", &iolayers_rcv4_krp, iolayers_pc_tcp_v4_rcv,
			   .optional = true, .unverified = IOLAYERS_KRETPROBE_UNSAFE),
	IOLAYERS_KRETPROBE("tcp_v6_do_rcv", &iolayers_rcv6_krp, iolayers_pc_tcp_v6_rcv,
			   .optional = true, .unverified = IOLAYERS_KRETPROBE_UNSAFE),
	IOLAYERS_TRACEPOINT("inet_sock_set_state", iolayers_sock_set_state,
			    iolayers_pc_sock_close, .optional = true),
	IOLAYERS_FENTRY("tcp_v4_destroy_sock", iolayers_sock_destroy_fentry,
			iolayers_pc_sock_destroy, .optional = true),
};

/* The TCP receive path's probe points, shown as the SOCK layer's. */
struct iolayers_layer_probes iolayers_rcv_layer = {
	.name = "SOCK",
	.probes = iolayers_rcv_probes,
	.nr_probes = ARRAY_SIZE(iolayers_rcv_probes),
};
