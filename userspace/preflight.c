// SPDX-License-Identifier: GPL-2.0
/*
 * iolayers --check: before loading the module (or after), which layers
 * will work on this machine and why not. It reads what the kernel itself
 * says: its release, /sys/kernel/realtime, the lockdown state, whether
 * debugfs and tracefs are there, the tracepoints tracefs lists, the
 * functions ftrace can attach to (available_filter_functions) and the
 * symbols a kretprobe can (/proc/kallsyms). With the module loaded, its
 * own `layers` file is the answer instead.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "iolayers.h"
#include "../include/uapi/iolayers.h"

/* What the module attaches, by layer (the tables in module/layers/ and filter.c). */
struct pf_point {
	const char *layer;
	/* "event SYSTEM/NAME", "function NAME|OTHER" or "kretprobe NAME|OTHER" */
	const char *what;
	int optional;		/* the layer works without it */
	const char *without;	/* what is lost without it */
};

static const struct pf_point pf_points[] = {
	{ "SYSCALL", "event raw_syscalls/sys_enter", 0, NULL },
	{ "SYSCALL", "event raw_syscalls/sys_exit", 0, NULL },
	{ "VFS", "function vfs_read", 0, NULL },
	{ "VFS", "function vfs_readv", 1, "readv() and preadv() get no VFS time" },
	{ "FS", "function filemap_read|generic_file_buffered_read", 0, NULL },
	{ "FS", "function shmem_file_read_iter", 1, "tmpfs reads get no FS time" },
	{ "FS", "function iomap_dio_rw", 1, "O_DIRECT reads of ext4, xfs and btrfs get no FS time" },
	{ "FS", "function dax_iomap_rw", 1, "reads of DAX files get no FS time" },
	{ "CACHE", "event filemap/mm_filemap_add_to_page_cache", 0, NULL },
	{ "CACHE", "event sched/sched_switch", 0, NULL },
	{ "SOCK", "function sock_recvmsg", 0, NULL },
	{ "SOCK", "function inet_recvmsg", 1,
	  "where sock_recvmsg is inlined, IPv4 reads are not socket reads" },
	{ "SOCK", "function inet6_recvmsg", 1,
	  "where sock_recvmsg is inlined, IPv6 reads are not socket reads" },
	{ "SOCK", "function unix_stream_recvmsg", 1,
	  "where sock_recvmsg is inlined, Unix stream reads are not socket reads" },
	{ "SOCK", "function unix_dgram_recvmsg", 1,
	  "where sock_recvmsg is inlined, Unix datagram reads are not socket reads" },
	{ "SOCK", "function unix_seqpacket_recvmsg", 1,
	  "where sock_recvmsg is inlined, Unix seqpacket reads are not socket reads" },
	{ "SOCK", "function tcp_recvmsg", 1, "TCP reads get no TCP time" },
	{ "SOCK", "function sk_wait_data", 1, "TCP reads' state and wait are not told (UNK)" },
	{ "SOCK", "function __skb_wait_for_more_packets", 1,
	  "UDP and Unix datagram reads' state and wait are not told (UNK)" },
	{ "SOCK", "function unix_stream_data_wait", 1,
	  "Unix stream reads' state and wait are not told (UNK)" },
	{ "SOCK", "function schedule_timeout", 1,
	  "where a kind's own wait is inlined (Unix streams'), its reads' state is not told" },
	{ "SOCK", "function skb_copy_datagram_iter", 1,
	  "no socket read's state and wait are told (UNK)" },
	{ "SOCK", "kretprobe tcp_v4_do_rcv", 1, "rcv=1: no receive path time for TCP over IPv4" },
	{ "SOCK", "kretprobe tcp_v6_do_rcv", 1, "rcv=1: no receive path time for TCP over IPv6" },
	{ "SOCK", "event sock/inet_sock_set_state", 1,
	  "rcv=1: closed TCP sockets stay followed in the receive path until their end" },
	{ "SOCK", "function tcp_v4_destroy_sock", 1,
	  "rcv=1: a TCP socket closed while a read added it may stay followed until unload" },
	{ "BLOCK", "function __blk_throtl_bio", 1,
	  "bios held back by a cgroup's io.max lose their BLOCK and DEVICE times" },
	{ "BLOCK", "event block/block_bio_queue", 0, NULL },
	{ "BLOCK", "event block/block_bio_remap", 0, NULL },
	{ "BLOCK", "event block/block_split", 0, NULL },
	{ "BLOCK", "event block/block_bio_backmerge", 0, NULL },
	{ "BLOCK", "event block/block_bio_frontmerge", 0, NULL },
	{ "BLOCK", "event block/block_rq_insert", 0, NULL },
	{ "BLOCK", "event block/block_rq_merge", 0, NULL },
	{ "BLOCK", "event block/block_rq_issue", 0, NULL },
	{ "BLOCK", "event block/block_rq_requeue", 0, NULL },
	{ "BLOCK", "event block/block_rq_complete", 0, NULL },
	{ "DEVICE", "event nvme/nvme_setup_cmd", 1, "no NVMe device times (nvme_core not loaded?)" },
	{ "DEVICE", "event nvme/nvme_complete_rq", 1, "no NVMe device times (nvme_core not loaded?)" },
	{ "DEVICE", "event scsi/scsi_dispatch_cmd_start", 1, "no SCSI device times (no SCSI driver loaded?)" },
	{ "DEVICE", "event scsi/scsi_dispatch_cmd_done", 1, "no SCSI device times (no SCSI driver loaded?)" },
	{ "URING", "event io_uring/io_uring_submit_req|io_uring/io_uring_submit_sqe", 1,
	  "io_uring reads make no record" },
	{ "URING", "event io_uring/io_uring_complete", 1, "io_uring reads make no record" },
	{ "URING", "kretprobe io_read", 1, "io_uring reads make no record" },
	{ "URING", "kretprobe io_read_fixed", 1,
	  "where io_read_fixed exists, IORING_OP_READ_FIXED requests get no FS, cache or BLOCK part" },
	{ "AIO", "kretprobe aio_read", 1, "AIO reads make no record" },
	{ "AIO", "function aio_complete_rw", 1, "AIO reads make no record" },
	{ "FAULT", "kretprobe handle_mm_fault", 1,
	  "faults=1: page faults on mapped files make no record" },
	{ "FILTER", "event sched/sched_process_fork", 0, NULL },
	{ "FILTER", "event sched/sched_process_exit", 0, NULL },
	{ "FILTER", "event sched/sched_process_exec", 0, NULL },
};

static const char * const pf_layers[] = { "SYSCALL", "URING", "AIO", "FAULT", "VFS", "FS", "CACHE",
					    "SOCK", "BLOCK", "DEVICE", "FILTER" };

/* Names read from a list, one a line, NUL-separated. */
struct pf_names {
	char *v;
	size_t n;
};

struct pf {
	const char *root;
	FILE *out;
	char tracefs[4096];	/* "" when not found */
	struct pf_names funcs;	/* available_filter_functions */
	struct pf_names ksyms;	/* /proc/kallsyms */
	int fatal, lost;	/* cannot load or show; a layer or part lost */
	/*
	 * Why kretprobes are unsafe here, so that the module leaves them
	 * unattached (IOLAYERS_KRETPROBE_UNSAFE); NULL where they are not.
	 */
	const char *krp_unsafe;
	char no_uring[256];	/* why the module attaches no URING probe here; "" */
};

static int pf_path(const struct pf *p, char *buf, size_t len, const char *rel)
{
	return snprintf(buf, len, "%s%s", p->root, rel) >= (int)len ? -1 : 0;
}

/* The first line of ROOT/REL without its newline; NULL when unreadable. */
static char *pf_line(const struct pf *p, const char *rel, char *buf, size_t len)
{
	char path[4096];
	FILE *f;

	if (pf_path(p, path, sizeof(path), rel))
		return NULL;
	f = fopen(path, "r");
	if (!f)
		return NULL;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static int pf_exists(const struct pf *p, const char *rel)
{
	char path[4096];
	struct stat st;

	return !pf_path(p, path, sizeof(path), rel) && !stat(path, &st);
}

__attribute__((format(printf, 3, 4)))
static void pf_say(struct pf *p, const char *verdict, const char *fmt, ...)
{
	va_list ap;

	fprintf(p->out, "%-7s ", verdict);
	va_start(ap, fmt);
	vfprintf(p->out, fmt, ap);
	va_end(ap);
	fputc('\n', p->out);
}

/*
 * The names of a list at @path, the word @field (from 0) of each line:
 * ftrace's traceable functions (the first: "NAME [module]"), kallsyms'
 * symbols (the third: "ADDRESS TYPE NAME [module]").
 */
static int pf_load_names(const char *path, int field, struct pf_names *names)
{
	size_t cap = 0, used = 0;
	char line[512];
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *w = line;
		size_t n;
		int i;

		for (i = 0; i < field; i++) {
			w += strcspn(w, " \t\n");
			w += strspn(w, " \t");
		}
		n = strcspn(w, " \t\n");
		if (used + n + 1 > cap) {
			char *nv = realloc(names->v, cap = cap ? cap * 2 : 1 << 20);

			if (!nv)
				break;
			names->v = nv;
		}
		memcpy(names->v + used, w, n);
		names->v[used + n] = '\0';
		used += n + 1;
		names->n++;
	}
	fclose(f);
	return 0;
}

static int pf_has_name(const struct pf_names *names, const char *name, size_t len)
{
	const char *s = names->v;
	size_t i;

	for (i = 0; s && i < names->n; i++, s += strlen(s) + 1)
		if (strlen(s) == len && !strncmp(s, name, len))
			return 1;
	return 0;
}

/* Is the point there? @found gets the name that is (of alternatives). */
static int pf_point_there(const struct pf *p, const struct pf_point *pt, char *found,
			  size_t flen)
{
	const char *alts = strchr(pt->what, ' ') + 1, *what = alts;
	const struct pf_names *names;
	char rel[512];

	if (!strncmp(pt->what, "event", 5)) {
		/* Alternatives "system/event|system/event": the first there. */
		while (*what) {
			size_t n = strcspn(what, "|");
			const char *slash = memchr(what, '/', n);

			snprintf(found, flen, "%.*s", slash ? (int)(what + n - slash - 1) : (int)n,
				 slash ? slash + 1 : what);
			snprintf(rel, sizeof(rel), "%s/events/%.*s", p->tracefs + strlen(p->root),
				 (int)n, what);
			if (pf_exists(p, rel))
				return 1;
			what += n + (what[n] == '|');
		}
		snprintf(found, flen, "%s", strchr(alts, '/') + 1);
		found[strcspn(found, "|")] = '\0';
		return 0;
	}
	/* A function entry's from ftrace's list; a kretprobe's from kallsyms. */
	names = !strncmp(pt->what, "kretprobe", 9) ? &p->ksyms : &p->funcs;
	while (*what) {
		size_t n = strcspn(what, "|");

		snprintf(found, flen, "%.*s", (int)n, what);
		if (pf_has_name(names, what, n))
			return 1;
		what += n + (what[n] == '|');
	}
	/* Not there: name the first of the alternatives. */
	snprintf(found, flen, "%.*s", (int)strcspn(alts, "|"), alts);
	return 0;
}

/* A line of what a layer lacks, after those in @lack. */
__attribute__((format(printf, 3, 4)))
static void pf_lack(char *lack, size_t size, const char *fmt, ...)
{
	size_t len = strlen(lack);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(lack + len, size - len, fmt, ap);
	va_end(ap);
}

/* The predictions, layer by layer. */
static void pf_predict(struct pf *p)
{
	size_t l, i;

	for (l = 0; l < sizeof(pf_layers) / sizeof(pf_layers[0]); l++) {
		char have[1024] = "", lack[2048] = "";
		int broken = 0, partial = 0;

		for (i = 0; i < sizeof(pf_points) / sizeof(pf_points[0]); i++) {
			const struct pf_point *pt = &pf_points[i];
			char name[128];
			int there;

			if (strcmp(pt->layer, pf_layers[l]))
				continue;
			there = pf_point_there(p, pt, name, sizeof(name));
			if (!strcmp(pt->layer, "URING") && p->no_uring[0]) {
				/* The module attaches none of them here (uring.c). */
				partial = 1;
				pf_lack(lack, sizeof(lack), "\n        - %s not there: %s", name,
					p->no_uring);
				continue;
			}
			if (there && p->krp_unsafe && !strncmp(pt->what, "kretprobe", 9)) {
				/* Shown unverified in `layers` (probe.c). */
				partial = 1;
				pf_lack(lack, sizeof(lack),
					"\n        - %s unverified: %s: the module attaches no "
					"kretprobe, %s", name, p->krp_unsafe, pt->without);
				continue;
			}
			if (there) {
				snprintf(have + strlen(have), sizeof(have) - strlen(have), "%s%s",
					 *have ? ", " : "", name);
				continue;
			}
			if (pt->optional)
				partial = 1;
			else
				broken = 1;
			pf_lack(lack, sizeof(lack), "\n        %s %s not there: %s",
				pt->optional ? "-" : "!", name,
				pt->optional ? pt->without : "the layer cannot work");
		}
		fprintf(p->out, "%-7s %-7s %s%s\n", broken ? "no" : partial ? "partly" : "ok",
			pf_layers[l], *have ? have : "(nothing)", lack);
		if (broken)
			p->lost = 1;
	}
}

/* With the module loaded: its own `layers` says what attached. */
static int pf_loaded(struct pf *p)
{
	char path[4096], err[512];
	struct il_snapshot *s;
	FILE *f;
	int i, ret;

	snprintf(path, sizeof(path), "%s/sys/kernel/debug/%s/layers", p->root,
		 IOLAYERS_DEBUGFS_DIR);
	f = fopen(path, "r");
	if (!f)
		return -1;
	s = calloc(1, sizeof(*s));
	if (!s) {
		fclose(f);
		return -1;
	}
	ret = il_parse_layers(f, s, err, sizeof(err));
	fclose(f);
	if (ret) {
		fprintf(p->out, "no      the module's layers file: %s\n", err);
		free(s);
		p->lost = 1;
		return 0;
	}
	fprintf(p->out, "ok      the module is loaded: its layers file says\n");
	for (i = 0; i < s->nprobes; i++) {
		const struct il_probe *pr = &s->probes[i];
		int good = !strcmp(pr->state, "attached");

		fprintf(p->out, "%-7s %-7s %s %s\n", good ? "ok" : "-", pr->layer, pr->name,
			pr->state);
	}
	free(s);
	return 0;
}

/*
 * Whether @name's address in kallsyms is odd; 0 where it is not there or
 * its address is hidden (zero for an unprivileged reader).
 */
static int pf_ksym_odd(const struct pf *p, const char *name)
{
	char path[4200], line[512], addr[32], sym[256];
	int odd = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/kallsyms", p->root);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s %*s %255s", addr, sym) == 2 && !strcmp(sym, name)) {
			odd = strspn(addr, "0123456789abcdefABCDEF") == strlen(addr) &&
			      strchr("13579bdfBDF", addr[strlen(addr) - 1]);
			break;
		}
	fclose(f);
	return odd;
}

/*
 * What the kernel's build leaves unattached: the URING layer before 6.1
 * (no public struct io_kiocb), and the kretprobes (and with them the
 * URING layer) where they are unsafe: where ftrace takes bit 0 of a
 * callback's address as "jump" and functions lie at odd addresses
 * (compat.h), told as tests/vm/aio.sh tells it, by kprobe_ftrace_handler's
 * address. @major.@minor: the release, 0.0 if unknown.
 */
static void pf_kernel_build(struct pf *p, unsigned int major, unsigned int minor)
{
	if (pf_ksym_odd(p, "kprobe_ftrace_handler"))
		p->krp_unsafe = "kretprobes are unsafe on this kernel (kprobe_ftrace_handler at an "
				"odd address, see design.rst)";
	if (major && (major < 6 || (major == 6 && minor < 1)))
		snprintf(p->no_uring, sizeof(p->no_uring),
			 "a kernel before 6.1: io_uring reads make no record");
	else if (p->krp_unsafe)
		snprintf(p->no_uring, sizeof(p->no_uring),
			 "%s: the module leaves io_uring unfollowed, its reads make no record",
			 p->krp_unsafe);
}

/**
 * il_preflight() - Say which layers work on the machine under @root.
 * @root: "" for this machine; a directory holding proc/ and sys/ trees
 *	for tests
 * @out: where the report goes
 *
 * Return: 0 when every layer works, 1 when some layer (or part) cannot,
 * 2 when the module cannot load or show anything.
 */
int il_preflight(const char *root, FILE *out)
{
	static const char * const tracefs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	struct pf p = { .root = root, .out = out };
	char buf[512], path[4200], *v;
	unsigned int major = 0, minor = 0;
	size_t i;

	v = pf_line(&p, "/proc/sys/kernel/osrelease", buf, sizeof(buf));
	if (v)
		pf_say(&p, "ok", "kernel %s (tested: Debian's 5.10, 6.1, 6.12 and sid's newest; "
		       "see compat.rst)", v);
	else
		pf_say(&p, "?", "kernel release unknown");
	if (v && sscanf(v, "%u.%u", &major, &minor) != 2)
		major = minor = 0;
	v = pf_line(&p, "/sys/kernel/realtime", buf, sizeof(buf));
	if (v && !strcmp(v, "1"))
		pf_say(&p, "ok", "PREEMPT_RT kernel: the probes take entries from per-CPU lists "
		       "filled beforehand (a burst past them is dropped, counted as nomem); "
		       "files shows no paths (\"?\": d_path() may sleep there)");
	v = pf_line(&p, "/sys/kernel/security/lockdown", buf, sizeof(buf));
	if (v && strchr(v, '[') && strchr(v, ']') && !strstr(v, "[none]")) {
		char *mode = strchr(v, '[');

		mode[strcspn(mode, "]") + 1] = '\0';
		pf_say(&p, "-", "lockdown %s: the module must be signed with a key the kernel "
		       "trusts (DKMS's MOK)", mode);
		if (strstr(v, "[confidentiality]")) {
			pf_say(&p, "no", "confidentiality lockdown: debugfs is closed, nothing can be "
			       "read");
			p.fatal = 1;
		} else {
			pf_say(&p, "-", "integrity lockdown: debugfs is read-only; settings go "
			       "through " IOLAYERS_PARAMS_DIR);
		}
	}
	if (!pf_exists(&p, "/sys/kernel/debug/tracing") && !pf_exists(&p, "/sys/kernel/debug/block")) {
		pf_say(&p, "no", "debugfs is not mounted (mount -t debugfs none /sys/kernel/debug), "
		       "or this is not root");
		p.fatal = 1;
	}
	if (!p.fatal && pf_exists(&p, "/sys/module/iolayers") && !pf_loaded(&p))
		return p.lost ? 1 : 0;
	for (i = 0; i < sizeof(tracefs) / sizeof(tracefs[0]); i++) {
		snprintf(p.tracefs, sizeof(p.tracefs), "%s%s", root, tracefs[i]);
		snprintf(path, sizeof(path), "%s/available_filter_functions", p.tracefs);
		if (!pf_load_names(path, 0, &p.funcs))
			break;
		p.tracefs[0] = '\0';
	}
	if (!p.tracefs[0]) {
		pf_say(&p, "?", "tracefs not found (/sys/kernel/tracing): the layers cannot be "
		       "predicted; load the module and run --check again");
		return p.fatal ? 2 : 1;
	}
	pf_say(&p, "ok", "tracefs at %s (%zu functions traceable)", p.tracefs + strlen(root),
	       p.funcs.n);
	snprintf(path, sizeof(path), "%s/proc/kallsyms", root);
	pf_load_names(path, 2, &p.ksyms);
	pf_kernel_build(&p, major, minor);
	pf_predict(&p);
	free(p.funcs.v);
	free(p.ksyms.v);
	return p.fatal ? 2 : p.lost ? 1 : 0;
}
