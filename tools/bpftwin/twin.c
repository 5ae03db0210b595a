// SPDX-License-Identifier: GPL-2.0
/*
 * iolayers-twin: load the libbpf twin (twin.bpf.c) for one process, drain
 * its ring buffer on a timer until SIGINT or SIGTERM, then print what it
 * measured: reads per cache state, each layer x state histogram's count,
 * sum, min, max and bytes, the records and the losses.
 *
 * Usage: iolayers-twin [-e] [-f] [-r] [-o FILE] PID
 *   -e       the floor: the same programs attached, each returning at once
 *   -f       page faults on a file's mapping too, as the module's faults=1
 *   -r       the TCP receive path timed too, as the module's rcv=1
 *   -o FILE  every read's record as a JSON line, as `iolayers record`
 *            writes it (the streaming rows of make bench)
 *
 * Prints "iolayers-twin: ready" once every program is attached.
 */
#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "twin.h"
#include "twin.skel.h"
#include "../../userspace/iolayers.h"

_Static_assert(TWIN_HIST_BUCKETS == IOLAYERS_HIST_BUCKETS, "buckets");
_Static_assert(TWIN_NR_LAYERS == IOLAYERS_NR_LAYERS, "layers");
_Static_assert(TWIN_NR_STATES == IOLAYERS_NR_CACHE, "states");
_Static_assert(TWIN_L_SYSCALL == IOLAYERS_L_SYSCALL && TWIN_L_VFS == IOLAYERS_L_VFS &&
	       TWIN_L_FS == IOLAYERS_L_FS, "layer numbers");
_Static_assert(TWIN_C_HIT == IOLAYERS_C_HIT && TWIN_C_MISS == IOLAYERS_C_MISS &&
	       TWIN_C_PARTIAL == IOLAYERS_C_PARTIAL && TWIN_C_DIRECT == IOLAYERS_C_DIRECT &&
	       TWIN_C_OTHER == IOLAYERS_C_OTHER && TWIN_C_ERROR == IOLAYERS_C_ERROR,
	       "state numbers");
/* The module's struct iolayers_flow_rec is 264 bytes on 64-bit. */
_Static_assert(sizeof(struct twin_rec) == 264, "record size");

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct twin_out {
	FILE *f;
	unsigned long long records;
};

/*
 * A request's or fault's syscall column (@nr at TWIN_NR_URING or above),
 * named by the uapi header as the reader names the module's: its kind,
 * then a request's opcode.
 */
static char *twin_put_kind(char *p, int nr)
{
	unsigned int via = nr >= TWIN_NR_FAULT ? IOLAYERS_VIA_FAULT :
			   nr >= TWIN_NR_AIO ? IOLAYERS_VIA_AIO : IOLAYERS_VIA_URING;
	unsigned int op = nr - (via == IOLAYERS_VIA_AIO ? TWIN_NR_AIO : TWIN_NR_URING);
	const char *name = iolayers_req_op_name(via, op);

	p = il_put(p, iolayers_via_prefix(via));
	if (!iolayers_via_request(via))
		return p;
	p = il_put(p, ":");
	return name ? il_put(p, name) : il_put_u64(p, op);
}

static const char *twin_sys_name(int nr)
{
	switch (nr) {
	case 0: return "read";
	case 17: return "pread64";
	case 19: return "readv";
	case 295: return "preadv";
	case 327: return "preadv2";
	case 45: return "recvfrom";
	case 47: return "recvmsg";
	default: return "?";
	}
}

static char *put_lat(char *p, const char *key, __u64 ns, bool reached)
{
	p = il_put(p, key);
	return reached ? il_put_u64(p, ns) : il_put(p, "null");
}

static char *put_off(char *p, const char *key, __u64 at, __u64 start)
{
	p = il_put(p, key);
	return at ? il_put_i64(p, at > start ? (__s64)(at - start) : 0) : il_put(p, "null");
}

static const char *const layer_names[IOLAYERS_NR_LAYERS] = IOLAYERS_LAYER_NAMES;
static const char *const cache_names[IOLAYERS_NR_CACHE] = IOLAYERS_CACHE_NAMES;
static const char *const sock_names[] = IOLAYERS_SOCK_NAMES;

/* One read as `iolayers record` writes it (the fields the twin has). */
static int on_record(void *ctx, void *data, size_t size)
{
	static const struct twin_blk none;
	struct twin_out *o = ctx;
	const struct twin_rec *r = data;
	const struct twin_blk *b = size >= sizeof(*r) ? &r->blk : &none;
	bool sock = r->sock && r->sock < sizeof(sock_names) / sizeof(sock_names[0]);
	__u64 start = r->end_ns - r->sys_ns;
	char line[1024 + IL_JSON_STR_MAX(sizeof(r->comm))];
	char *p = line;

	if (size < offsetof(struct twin_rec, blk) || r->kind != TWIN_EV_READ)
		return 0;
	o->records++;
	if (!o->f)
		return 0;
	p = il_put_u64(il_put(p, "{\"seq\": "), r->seq);
	p = il_put_i64(il_put(p, ", \"tid\": "), r->tid);
	p = il_put_i64(il_put(p, ", \"tgid\": "), r->tgid);
	p = il_put_str(il_put(p, ", \"comm\": "), r->comm, sizeof(r->comm));
	p = il_put(p, ", \"syscall\": \"");
	p = r->nr >= TWIN_NR_URING ? twin_put_kind(p, r->nr) : il_put(p, twin_sys_name(r->nr));
	p = il_put_i64(il_put(p, "\", \"fd\": "), r->fd);
	p = il_put_i64(il_put(p, ", \"pos\": "), r->pos);
	p = il_put_u64(il_put(p, ", \"req\": "), r->req);
	p = il_put_i64(il_put(p, ", \"ret\": "), r->ret);
	p = il_put(il_put(p, ", \"cache\": \""),
		   r->cache >= 0 && r->cache < IOLAYERS_NR_CACHE ? cache_names[r->cache] : "?");
	p = il_put_u64(il_put(p, "\", \"start_ns\": "), start);
	/* A request's or fault's whole is its layer's, as the reader writes it. */
	p = put_lat(p, ", \"syscall_ns\": ", r->sys_ns, r->nr < TWIN_NR_URING);
	p = put_lat(p, ", \"uring_ns\": ", r->sys_ns,
		    r->nr >= TWIN_NR_URING && r->nr < TWIN_NR_AIO);
	p = put_lat(p, ", \"aio_ns\": ", r->sys_ns, r->nr >= TWIN_NR_AIO && r->nr < TWIN_NR_FAULT);
	p = put_lat(p, ", \"fault_ns\": ", r->sys_ns, r->nr == TWIN_NR_FAULT);
	p = put_lat(p, ", \"vfs_ns\": ", r->vfs_ns, r->vfs_off >= 0);
	p = put_lat(p, ", \"fs_ns\": ", r->fs_ns, !sock && r->fs_off >= 0);
	p = put_lat(p, ", \"queue_ns\": ", b->queue_ns, b->nr_rqs);
	p = put_lat(p, ", \"service_ns\": ", b->service_ns, b->nr_rqs);
	p = put_lat(p, ", \"device_ns\": ", b->device_ns, b->device_at);
	p = put_lat(p, ", \"sock_ns\": ", r->sys_ns - r->sock_off, sock);
	p = put_lat(p, ", \"tcp_ns\": ", r->sys_ns - r->tcp_off, sock && r->tcp_off >= 0);
	p = put_lat(p, ", \"wait_ns\": ", r->wait_ns, sock && r->cache == TWIN_C_WAITED);
	p = il_put_i64(il_put(p, ", \"vfs_off\": "), r->vfs_off);
	p = il_put_i64(il_put(p, ", \"fs_off\": "), sock ? -1 : r->fs_off);
	p = put_off(p, ", \"queue_off\": ", b->queue_at, start);
	p = put_off(p, ", \"issue_off\": ", b->issue_at, start);
	p = put_off(p, ", \"device_off\": ", b->device_at, start);
	p = put_off(p, ", \"done_off\": ", b->done_at, start);
	p = il_put_u64(il_put(p, ", \"bios\": "), b->nr_bios);
	p = il_put_u64(il_put(p, ", \"rqs\": "), b->nr_rqs);
	p = il_put_u64(il_put(p, ", \"bio_bytes\": "), b->bio_bytes);
	p = il_put_u64(il_put(p, ", \"rq_bytes\": "), b->rq_bytes);
	p = il_put_u64(il_put(p, ", \"ra_bytes\": "), sock ? 0 : r->ra_bytes);
	p = il_put_u64(il_put(p, ", \"requeues\": "), b->requeues);
	p = il_put_u64(il_put(p, ", \"errors\": "), b->errors);
	if (r->ino) {
		p = il_put_u64(il_put(p, ", \"ino\": "), r->ino);
		p = il_put_u64(il_put(p, ", \"fs_dev\": \""), r->fs_dev >> 20);
		*p++ = ':';
		p = il_put(il_put_u64(p, r->fs_dev & 0xfffff), "\"");
	} else {
		p = il_put(p, ", \"ino\": null, \"fs_dev\": null");
	}
	if (sock) {
		p = il_put(il_put(il_put(p, ", \"sock\": \""), sock_names[r->sock]), "\"");
		p = il_put_i64(il_put(p, ", \"sock_off\": "), r->sock_off);
		p = il_put_i64(il_put(p, ", \"tcp_off\": "), r->tcp_off);
	} else {
		p = il_put(p, ", \"sock\": null, \"sock_off\": null, \"tcp_off\": null");
	}
	p = il_put(p, "}\n");
	fwrite(line, 1, (size_t)(p - line), o->f);
	return 0;
}

/*
 * Optional probe points: a kernel may not have them, or not in BTF (a
 * static function inlined), or in a module's BTF that is not loaded.
 */
struct twin_optional {
	struct bpf_program *prog;
	const char *name;	/* a function, or a tracepoint's btf_trace_ typedef */
	const char *module;	/* whose BTF has it (NULL: the kernel's) */
};

#define TWIN_MAX_OPTIONAL	24

static size_t twin_optionals(struct twin_bpf *skel, struct twin_optional *o)
{
	const struct twin_optional all[] = {
		{ skel->progs.twin_vfs_readv, "vfs_readv", NULL },
		{ skel->progs.twin_shmem_read, "shmem_file_read_iter", NULL },
		{ skel->progs.twin_dax_rw, "dax_iomap_rw", NULL },
		{ skel->progs.twin_iomap_dio, "iomap_dio_rw", NULL },
		{ skel->progs.twin_iomap_dio_kp, "iomap_dio_rw", NULL },
		{ skel->progs.twin_inet6_recvmsg, "inet6_recvmsg", NULL },
		{ skel->progs.twin_unix_stream_recvmsg, "unix_stream_recvmsg", NULL },
		{ skel->progs.twin_unix_dgram_recvmsg, "unix_dgram_recvmsg", NULL },
		{ skel->progs.twin_unix_seqpacket_recvmsg, "unix_seqpacket_recvmsg", NULL },
		{ skel->progs.twin_dgram_wait, "__skb_wait_for_more_packets", NULL },
		{ skel->progs.twin_rcv6, "tcp_v6_do_rcv", NULL },
		{ skel->progs.twin_rcv6_exit, "tcp_v6_do_rcv", NULL },
		{ skel->progs.twin_nvme_setup, "btf_trace_nvme_setup_cmd", "nvme_core" },
		{ skel->progs.twin_nvme_done, "btf_trace_nvme_complete_rq", "nvme_core" },
		{ skel->progs.twin_uring_submit_req, "btf_trace_io_uring_submit_req", NULL },
		{ skel->progs.twin_uring_submit_sqe, "btf_trace_io_uring_submit_sqe", NULL },
		{ skel->progs.twin_uring_complete, "btf_trace_io_uring_complete", NULL },
		{ skel->progs.twin_aio_read, "aio_read", NULL },
		{ skel->progs.twin_aio_read_exit, "aio_read", NULL },
		{ skel->progs.twin_aio_done, "aio_complete_rw", NULL },
	};
	size_t n = sizeof(all) / sizeof(all[0]);

	_Static_assert(sizeof(all) / sizeof(all[0]) <= TWIN_MAX_OPTIONAL, "optional points");
	memcpy(o, all, sizeof(all));
	return n;
}

/*
 * Is the tracepoint @tp's argument @i (0: the probe's data, then its
 * TP_PROTO's) a pointer, to a struct @name if @name is not NULL? Read from
 * its btf_trace_ typedef: a pointer to the probe's prototype.
 */
static bool twin_tp_arg_ptr(const struct btf *btf, const char *tp, unsigned int i,
			    const char *name)
{
	const struct btf_param *p;
	const struct btf_type *t;
	__s32 id = btf__find_by_name_kind(btf, tp, BTF_KIND_TYPEDEF);

	if (id <= 0)
		return false;
	t = btf__type_by_id(btf, btf__resolve_type(btf, id));
	if (!t || !btf_is_ptr(t))
		return false;
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t) || btf_vlen(t) <= i)
		return false;
	p = btf_params(t) + i;
	t = btf__type_by_id(btf, btf__resolve_type(btf, p->type));
	if (!t || !btf_is_ptr(t))
		return false;
	if (!name)
		return true;
	t = btf__type_by_id(btf, btf__resolve_type(btf, t->type));
	return t && btf_is_struct(t) && !strcmp(btf__name_by_offset(btf, t->name_off), name);
}

/*
 * io_uring's tracepoints as the twin reads them: the submission's first
 * argument the request (io_uring_submit_sqe had the ring there before
 * 5.15's), the completion's second (5.10's had the user data).
 */
static bool twin_uring_usable(const struct btf *vmlinux, const struct twin_optional *o)
{
	if (!strcmp(o->name, "btf_trace_io_uring_submit_sqe") ||
	    !strcmp(o->name, "btf_trace_io_uring_submit_req"))
		return twin_tp_arg_ptr(vmlinux, o->name, 1, "io_kiocb");
	if (!strcmp(o->name, "btf_trace_io_uring_complete"))
		return twin_tp_arg_ptr(vmlinux, o->name, 2, NULL);
	return true;
}

/* Is @o's point in the BTF that fentry or tp_btf would find it in? */
static bool twin_has(const struct btf *vmlinux, const struct twin_optional *o)
{
	struct btf *mod;
	bool found;

	if (!vmlinux)
		return false;
	if (!o->module && !strncmp(o->name, "btf_trace_", strlen("btf_trace_")))
		return btf__find_by_name_kind(vmlinux, o->name, BTF_KIND_TYPEDEF) > 0 &&
		       twin_uring_usable(vmlinux, o);
	if (!o->module)
		return btf__find_by_name_kind(vmlinux, o->name, BTF_KIND_FUNC) > 0;
	mod = btf__load_module_btf(o->module, (struct btf *)vmlinux);
	if (!mod)
		return false;
	found = btf__find_by_name_kind(mod, o->name, BTF_KIND_TYPEDEF) > 0;
	btf__free(mod);
	return found;
}

/*
 * The requests' programs: optional at the load (the loader pairs them),
 * not at the attach, where one refused would leave the other's entries
 * to no end.
 */
static bool twin_is_request(struct twin_bpf *skel, const struct bpf_program *p)
{
	return p == skel->progs.twin_uring_submit_req || p == skel->progs.twin_uring_submit_sqe ||
	       p == skel->progs.twin_uring_complete || p == skel->progs.twin_aio_read ||
	       p == skel->progs.twin_aio_read_exit || p == skel->progs.twin_aio_done;
}

static bool twin_is_optional(struct twin_bpf *skel, const struct bpf_program *p)
{
	struct twin_optional o[TWIN_MAX_OPTIONAL];
	size_t i, n = twin_optionals(skel, o);

	if (twin_is_request(skel, p))
		return false;
	for (i = 0; i < n; i++)
		if (o[i].prog == p)
			return true;
	return false;
}

/* The receive path's programs, and the end of the sockets it follows. */
static bool twin_is_rcv(struct twin_bpf *skel, const struct bpf_program *p)
{
	return p == skel->progs.twin_rcv4 || p == skel->progs.twin_rcv4_exit ||
	       p == skel->progs.twin_rcv6 || p == skel->progs.twin_rcv6_exit ||
	       p == skel->progs.twin_sock_state || p == skel->progs.twin_sock_destroy;
}

/* The page fault's programs (-f). */
static bool twin_is_fault(struct twin_bpf *skel, const struct bpf_program *p)
{
	return p == skel->progs.twin_fault || p == skel->progs.twin_fault_exit;
}

static struct twin_bpf *twin_load(pid_t pid, bool floor, bool rcv, bool faults)
{
	struct bpf_program *p;
	struct btf *vmlinux = btf__load_vmlinux_btf();
	struct twin_bpf *skel = twin_bpf__open();
	struct twin_optional o[TWIN_MAX_OPTIONAL];
	size_t i, n;
	int err;

	if (!skel) {
		fprintf(stderr, "iolayers-twin: cannot open the BPF object: %s\n", strerror(errno));
		btf__free(vmlinux);
		return NULL;
	}
	skel->rodata->targ_tgid = pid;
	skel->rodata->empty = floor;
	skel->rodata->rcv_on = rcv;
	if (!rcv)
		bpf_object__for_each_program(p, skel->obj)
			if (twin_is_rcv(skel, p))
				bpf_program__set_autoload(p, false);
	if (!faults)
		bpf_object__for_each_program(p, skel->obj)
			if (twin_is_fault(skel, p))
				bpf_program__set_autoload(p, false);
	n = twin_optionals(skel, o);
	for (i = 0; i < n; i++) {
		if (!bpf_program__autoload(o[i].prog) || twin_has(vmlinux, &o[i]))
			continue;
		fprintf(stderr, "iolayers-twin: %s is not in %s's BTF: %s not attached\n",
			o[i].name, o[i].module ? o[i].module : "the kernel",
			bpf_program__name(o[i].prog));
		bpf_program__set_autoload(o[i].prog, false);
	}
	/*
	 * io_uring: a submission without its completion, or the other way
	 * round, would measure nothing (one submission program at most has
	 * its tracepoint); AIO likewise.
	 */
	if (!bpf_program__autoload(skel->progs.twin_uring_complete) ||
	    (!bpf_program__autoload(skel->progs.twin_uring_submit_req) &&
	     !bpf_program__autoload(skel->progs.twin_uring_submit_sqe))) {
		bpf_program__set_autoload(skel->progs.twin_uring_complete, false);
		bpf_program__set_autoload(skel->progs.twin_uring_submit_req, false);
		bpf_program__set_autoload(skel->progs.twin_uring_submit_sqe, false);
		fprintf(stderr, "iolayers-twin: io_uring requests not followed\n");
	}
	if (!bpf_program__autoload(skel->progs.twin_aio_read) ||
	    !bpf_program__autoload(skel->progs.twin_aio_done)) {
		bpf_program__set_autoload(skel->progs.twin_aio_read, false);
		bpf_program__set_autoload(skel->progs.twin_aio_read_exit, false);
		bpf_program__set_autoload(skel->progs.twin_aio_done, false);
		fprintf(stderr, "iolayers-twin: Linux AIO requests not followed\n");
	}
	btf__free(vmlinux);
	err = twin_bpf__load(skel);
	if (err) {
		fprintf(stderr, "iolayers-twin: loading failed: %s\n", strerror(-err));
		twin_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

/* Links of the attached programs, destroyed at the end. */
static struct bpf_link *links[64];
static int nr_links;

static bool attach_one(struct bpf_program *p)
{
	struct bpf_link *l = bpf_program__attach(p);

	if (!l)
		return false;
	if (nr_links < (int)(sizeof(links) / sizeof(links[0])))
		links[nr_links++] = l;
	return true;
}

/*
 * Every loaded program attached; an optional point that refuses is said
 * and left out. iomap_dio_rw's seven arguments are more than a trampoline
 * takes before 6.6: its kprobe then, only then.
 */
static int twin_attach(struct twin_bpf *skel)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, skel->obj) {
		bool optional = twin_is_optional(skel, p);

		if (!bpf_program__autoload(p) || p == skel->progs.twin_iomap_dio_kp)
			continue;
		if (attach_one(p))
			continue;
		if (p == skel->progs.twin_iomap_dio) {
			fprintf(stderr, "iolayers-twin: fentry on iomap_dio_rw refused (%s): "
				"a kprobe instead\n", strerror(errno));
			if (attach_one(skel->progs.twin_iomap_dio_kp))
				continue;
		}
		fprintf(stderr, "iolayers-twin: %s: attaching failed: %s\n",
			bpf_program__name(p), strerror(errno));
		if (!optional)
			return -1;
	}
	return 0;
}

/* Sums @h into @sum (a histogram's count, sum, min, max and bytes). */
static void twin_hist_merge(struct twin_hist *sum, const struct twin_hist *h)
{
	if (!h->count)
		return;
	if (!sum->count || h->min_ns < sum->min_ns)
		sum->min_ns = h->min_ns;
	if (h->max_ns > sum->max_ns)
		sum->max_ns = h->max_ns;
	sum->count += h->count;
	sum->sum_ns += h->sum_ns;
	sum->bytes += h->bytes;
}

/*
 * Runs of each program that BPF skipped: a program is not run again on a
 * CPU where it is running already (its recursion guard), and since 6.13's
 * preemptible syscall tracepoints another thread on that CPU may enter
 * while it is preempted. A skipped sys_enter or sys_exit loses its read:
 * "misses" sums those two, then each program with any.
 */
/* A program's skipped runs (0 when its info cannot be had). */
static unsigned long long prog_misses(const struct bpf_program *p)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_program__fd(p) < 0 || bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
		return 0;
	return info.recursion_misses;
}

static void print_misses(struct twin_bpf *skel)
{
	struct bpf_program *p;
	unsigned long long n;

	printf("misses %llu", prog_misses(skel->progs.twin_sys_enter) +
	       prog_misses(skel->progs.twin_sys_exit));
	bpf_object__for_each_program(p, skel->obj) {
		n = prog_misses(p);
		if (n)
			printf(" %s %llu", bpf_program__name(p), n);
	}
	printf("\n");
}

static void print_summary(struct twin_bpf *skel, unsigned long long records)
{
	int ncpu = libbpf_num_possible_cpus();
	struct twin_hist sum;
	unsigned long long reads[TWIN_NR_STATES] = { 0 }, total = 0, n[TWIN_N_COUNTERS] = { 0 };
	unsigned long long kind[4] = { 0 };	/* syscalls, io_uring, AIO, faults */
	struct twin_hist *rh, seg = { 0 };
	struct { struct twin_hist layer[TWIN_NR_LAYERS]; } *v;
	struct { __u64 wseq; __u64 reads; __u64 n[TWIN_N_COUNTERS]; } *c;
	__u32 key, zero = 0;
	int cpu, l, i;

	v = calloc(ncpu, sizeof(*v));
	c = calloc(ncpu, sizeof(*c));
	rh = calloc(ncpu, sizeof(*rh));
	if (!v || !c || !rh) {
		fprintf(stderr, "iolayers-twin: out of memory\n");
		goto out;
	}
	if (!bpf_map_lookup_elem(bpf_map__fd(skel->maps.cpus), &zero, c))
		for (cpu = 0; cpu < ncpu; cpu++)
			for (i = 0; i < TWIN_N_COUNTERS; i++)
				n[i] += c[cpu].n[i];
	if (!bpf_map_lookup_elem(bpf_map__fd(skel->maps.rcv), &zero, rh))
		for (cpu = 0; cpu < ncpu; cpu++)
			twin_hist_merge(&seg, &rh[cpu]);
	printf("layer state count sum_ns min_ns max_ns bytes\n");
	for (key = 0; key < TWIN_NR_STATES; key++) {
		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.hists), &key, v))
			continue;
		for (l = 0; l < TWIN_NR_LAYERS; l++) {
			memset(&sum, 0, sizeof(sum));
			for (cpu = 0; cpu < ncpu; cpu++)
				twin_hist_merge(&sum, &v[cpu].layer[l]);
			if (!sum.count)
				continue;
			/* Reads: the syscalls', requests' and faults'. */
			if (l == TWIN_L_SYSCALL || l >= TWIN_L_URING) {
				reads[key] += sum.count;
				kind[l >= TWIN_L_URING ? l - TWIN_L_URING + 1 : 0] += sum.count;
				total += sum.count;
			}
			printf("%s %s %llu %llu %llu %llu %llu\n", layer_names[l],
			       cache_names[key], (unsigned long long)sum.count,
			       (unsigned long long)sum.sum_ns, (unsigned long long)sum.min_ns,
			       (unsigned long long)sum.max_ns, (unsigned long long)sum.bytes);
		}
	}
	printf("reads %llu", total);
	for (key = 0; key < TWIN_NR_STATES; key++)
		if (reads[key])
			printf(" %s %llu", cache_names[key], reads[key]);
	printf("\nkinds syscall %llu io_uring %llu aio %llu fault %llu\n", kind[0], kind[1],
	       kind[2], kind[3]);
	printf("records %llu lost %llu no_storage %llu\n", records, n[TWIN_N_LOST],
	       n[TWIN_N_NO_STORAGE]);
	printf("requests stale %llu aio_refused %llu\n", n[TWIN_N_REQ_STALE],
	       n[TWIN_N_AIO_REFUSED]);
	printf("faults no_file_or_write %llu in_reads %llu given_up %llu\n",
	       n[TWIN_N_FAULT_OTHER], n[TWIN_N_FAULT_NESTED], n[TWIN_N_FAULT_GIVEN_UP]);
	printf("block late %llu overflow %llu partial %llu no_entry %llu\n", n[TWIN_N_RQ_LATE],
	       n[TWIN_N_RQ_OVERFLOW], n[TWIN_N_RQ_PARTIAL], n[TWIN_N_NO_ENTRY]);
	/* As the module's `rcv` file's first line. */
	printf("layer tcp_rcv count %llu sum_ns %llu min_ns %llu max_ns %llu\n",
	       (unsigned long long)seg.count, (unsigned long long)seg.sum_ns,
	       (unsigned long long)seg.min_ns, (unsigned long long)seg.max_ns);
	print_misses(skel);
out:
	free(v);
	free(c);
	free(rh);
}

int main(int argc, char **argv)
{
	struct twin_out out = { 0 };
	struct ring_buffer *rb = NULL;
	struct twin_bpf *skel;
	const char *path = NULL;
	bool floor = false, rcv = false, faults = false;
	char *end;
	long pid;
	int opt, err;

	while ((opt = getopt(argc, argv, "efo:r")) != -1) {
		switch (opt) {
		case 'e':
			floor = true;
			break;
		case 'f':
			faults = true;
			break;
		case 'r':
			rcv = true;
			break;
		case 'o':
			path = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (optind + 1 != argc)
		goto usage;
	errno = 0;
	pid = strtol(argv[optind], &end, 10);
	if (errno || *end || pid <= 0 || pid > 0x3fffffff) {
		fprintf(stderr, "iolayers-twin: invalid pid '%s'\n", argv[optind]);
		return 2;
	}
	if (path) {
		out.f = fopen(path, "w");
		if (!out.f) {
			fprintf(stderr, "iolayers-twin: %s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	skel = twin_load(pid, floor, rcv, faults);
	if (!skel)
		return 1;
	err = twin_attach(skel);
	if (err)
		goto out;
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_record, &out, NULL);
	if (!rb) {
		err = -errno;
		fprintf(stderr, "iolayers-twin: the ring buffer: %s\n", strerror(errno));
		goto out;
	}
	printf("iolayers-twin: ready\n");
	fflush(stdout);
	/*
	 * Records come without a wakeup (epoll would never fire): taken
	 * every 10 ms, in batches, whether or not they are written out.
	 */
	while (!stop) {
		const struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };

		nanosleep(&tick, NULL);
		err = ring_buffer__consume(rb);
		if (err < 0) {
			fprintf(stderr, "iolayers-twin: taking records: %s\n", strerror(-err));
			goto out;
		}
		/* One write per batch: the file has every read taken so far. */
		if (err > 0 && out.f)
			fflush(out.f);
	}
	err = ring_buffer__consume(rb);
	if (err < 0) {
		fprintf(stderr, "iolayers-twin: taking records: %s\n", strerror(-err));
		goto out;
	}
	print_summary(skel, out.records);
	err = 0;
out:
	ring_buffer__free(rb);
	while (nr_links)
		bpf_link__destroy(links[--nr_links]);
	twin_bpf__destroy(skel);
	if (out.f && fclose(out.f)) {
		fprintf(stderr, "iolayers-twin: %s: %s\n", path, strerror(errno));
		err = -EIO;
	}
	return err ? 1 : 0;
usage:
	fprintf(stderr, "usage: iolayers-twin [-e] [-f] [-r] [-o FILE] PID\n");
	return 2;
}
