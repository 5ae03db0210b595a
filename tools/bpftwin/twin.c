// SPDX-License-Identifier: GPL-2.0
/*
 * iolayers-twin: load the libbpf twin (twin.bpf.c) for one process, drain
 * its ring buffer on a timer until SIGINT or SIGTERM, then print what it
 * measured: reads per cache state, each layer x state histogram's count,
 * sum, min, max and bytes, the records and the losses.
 *
 * Usage: iolayers-twin [-e] [-o FILE] PID
 *   -e       the floor: the same programs attached, each returning at once
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

static const char *const layer_names[IOLAYERS_NR_LAYERS] = IOLAYERS_LAYER_NAMES;
static const char *const cache_names[IOLAYERS_NR_CACHE] = IOLAYERS_CACHE_NAMES;

/* One read as `iolayers record` writes it (its fields the twin has). */
static int on_record(void *ctx, void *data, size_t size)
{
	struct twin_out *o = ctx;
	const struct twin_rec *r = data;
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
	p = il_put(il_put(p, ", \"syscall\": \""), twin_sys_name(r->nr));
	p = il_put_i64(il_put(p, "\", \"fd\": "), r->fd);
	p = il_put_i64(il_put(p, ", \"pos\": "), r->pos);
	p = il_put_u64(il_put(p, ", \"req\": "), r->req);
	p = il_put_i64(il_put(p, ", \"ret\": "), r->ret);
	p = il_put(il_put(p, ", \"cache\": \""),
		   r->cache >= 0 && r->cache < IOLAYERS_NR_CACHE ? cache_names[r->cache] : "?");
	p = il_put_u64(il_put(p, "\", \"start_ns\": "), r->end_ns - r->sys_ns);
	p = il_put_u64(il_put(p, ", \"syscall_ns\": "), r->sys_ns);
	p = put_lat(p, ", \"vfs_ns\": ", r->vfs_ns, r->vfs_off >= 0);
	p = put_lat(p, ", \"fs_ns\": ", r->fs_ns, r->fs_off >= 0);
	p = il_put_i64(il_put(p, ", \"vfs_off\": "), r->vfs_off);
	p = il_put_i64(il_put(p, ", \"fs_off\": "), r->fs_off);
	p = il_put_u64(il_put(p, ", \"ra_bytes\": "), r->ra_bytes);
	if (r->ino) {
		p = il_put_u64(il_put(p, ", \"ino\": "), r->ino);
		p = il_put_u64(il_put(p, ", \"fs_dev\": \""), r->fs_dev >> 20);
		*p++ = ':';
		p = il_put(il_put_u64(p, r->fs_dev & 0xfffff), "\"");
	} else {
		p = il_put(p, ", \"ino\": null, \"fs_dev\": null");
	}
	p = il_put(p, "}\n");
	fwrite(line, 1, (size_t)(p - line), o->f);
	return 0;
}

/* Is a kernel function in the running kernel's BTF (fentry can find it)? */
static bool kernel_has_func(const struct btf *vmlinux, const char *name)
{
	return vmlinux && btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC) > 0;
}

/* Optional probe points: a kernel may not have them, or not in BTF. */
static const char *const optional_funcs[] = {
	"vfs_readv", "shmem_file_read_iter", "dax_iomap_rw", "iomap_dio_rw",
};

static struct bpf_program *optional_prog(struct twin_bpf *skel, size_t i)
{
	struct bpf_program *progs[] = {
		skel->progs.twin_vfs_readv, skel->progs.twin_shmem_read,
		skel->progs.twin_dax_rw, skel->progs.twin_iomap_dio,
	};

	return progs[i];
}

static struct twin_bpf *twin_load(pid_t pid, bool floor)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	struct twin_bpf *skel = twin_bpf__open();
	size_t i;
	int err;

	if (!skel) {
		fprintf(stderr, "iolayers-twin: cannot open the BPF object: %s\n", strerror(errno));
		btf__free(vmlinux);
		return NULL;
	}
	skel->rodata->targ_tgid = pid;
	skel->rodata->empty = floor;
	for (i = 0; i < sizeof(optional_funcs) / sizeof(optional_funcs[0]); i++) {
		if (!kernel_has_func(vmlinux, optional_funcs[i])) {
			fprintf(stderr, "iolayers-twin: %s is not in the kernel's BTF: not probed\n",
				optional_funcs[i]);
			bpf_program__set_autoload(optional_prog(skel, i), false);
			if (!strcmp(optional_funcs[i], "iomap_dio_rw"))
				bpf_program__set_autoload(skel->progs.twin_iomap_dio_kp, false);
		}
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
static struct bpf_link *links[32];
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
	size_t i;

	bpf_object__for_each_program(p, skel->obj) {
		bool optional = false;

		if (!bpf_program__autoload(p) || p == skel->progs.twin_iomap_dio_kp)
			continue;
		for (i = 0; i < sizeof(optional_funcs) / sizeof(optional_funcs[0]); i++)
			optional |= p == optional_prog(skel, i);
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

static void print_summary(struct twin_bpf *skel, unsigned long long records)
{
	int ncpu = libbpf_num_possible_cpus();
	struct twin_hist sum;
	unsigned long long reads[TWIN_NR_STATES] = { 0 }, total = 0, lost = 0, nostore = 0;
	struct { struct twin_hist layer[TWIN_NR_LAYERS]; } *v;
	struct { __u64 wseq; __u64 n[TWIN_N_COUNTERS]; } *c;
	__u32 key, zero = 0;
	int cpu, l;

	v = calloc(ncpu, sizeof(*v));
	c = calloc(ncpu, sizeof(*c));
	if (!v || !c) {
		fprintf(stderr, "iolayers-twin: out of memory\n");
		free(v);
		free(c);
		return;
	}
	if (!bpf_map_lookup_elem(bpf_map__fd(skel->maps.cpus), &zero, c))
		for (cpu = 0; cpu < ncpu; cpu++) {
			lost += c[cpu].n[TWIN_N_LOST];
			nostore += c[cpu].n[TWIN_N_NO_STORAGE];
		}
	printf("layer state count sum_ns min_ns max_ns bytes\n");
	for (key = 0; key < TWIN_NR_STATES; key++) {
		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.hists), &key, v))
			continue;
		for (l = 0; l < TWIN_NR_LAYERS; l++) {
			memset(&sum, 0, sizeof(sum));
			for (cpu = 0; cpu < ncpu; cpu++) {
				const struct twin_hist *h = &v[cpu].layer[l];

				if (!h->count)
					continue;
				if (!sum.count || h->min_ns < sum.min_ns)
					sum.min_ns = h->min_ns;
				if (h->max_ns > sum.max_ns)
					sum.max_ns = h->max_ns;
				sum.count += h->count;
				sum.sum_ns += h->sum_ns;
				sum.bytes += h->bytes;
			}
			if (!sum.count)
				continue;
			if (l == TWIN_L_SYSCALL) {
				reads[key] = sum.count;
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
	printf("\nrecords %llu lost %llu no_storage %llu\n", records, lost, nostore);
	free(v);
	free(c);
}

int main(int argc, char **argv)
{
	struct twin_out out = { 0 };
	struct ring_buffer *rb = NULL;
	struct twin_bpf *skel;
	const char *path = NULL;
	bool floor = false;
	char *end;
	long pid;
	int opt, err;

	while ((opt = getopt(argc, argv, "eo:")) != -1) {
		switch (opt) {
		case 'e':
			floor = true;
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
	skel = twin_load(pid, floor);
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
	fprintf(stderr, "usage: iolayers-twin [-e] [-o FILE] PID\n");
	return 2;
}
