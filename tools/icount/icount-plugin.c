// SPDX-License-Identifier: GPL-2.0
/*
 * Guest instruction counter, a QEMU TCG plugin (API v1, QEMU 7.2).
 *
 * Counts the guest instructions executed, kernel (addresses with the top
 * bit set) and user apart, with one inline add per translation block: an
 * instruction after a faulting one in the same block is counted, and
 * counted again when the block is re-run, which is deterministic under
 * -icount. Whenever the guest executes the marker (icount.h) the plugin
 * appends "M seq kernel user" (running totals) to the file given as
 * out=PATH and flushes it: the guest reads that file back over its 9p
 * root to learn the counts of the runs it measures.
 *
 * With profile=PATH it also counts per kernel translation block start
 * address and, at every marker, appends "M seq" then "pc insns" for every
 * block address that ran since the previous marker: per-symbol counts
 * after mapping the addresses with the guest's /proc/kallsyms. User space
 * is left to the totals (bpftrace's LLVM alone has more blocks than the
 * table holds).
 *
 * Usage: qemu-system-x86_64 -accel tcg,thread=single -smp 1
 *        -icount shift=0,sleep=on -plugin libicount.so,out=F[,profile=P]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qemu-plugin-v1.h"
#include "icount.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static const unsigned char mark[] = { IOLAYERS_MARK_BYTES };

/* [0] user, [1] kernel: the top bit of the block's address. */
static uint64_t insns[2];
static uint64_t marks;
static FILE *out, *prof;

/* Per block address, for profile=: open addressing, never shrinks. */
struct block_count {
	uint64_t pc;
	uint64_t count;
	uint64_t dumped;
};

#define PROF_SLOTS	(1u << 21)
static struct block_count *slots;
static uint32_t *used;
static uint32_t nr_used;

static struct block_count *block_slot(uint64_t pc)
{
	uint32_t i = (uint32_t)((pc * 0x9e3779b97f4a7c15ull) >> 43) & (PROF_SLOTS - 1);

	while (slots[i].pc && slots[i].pc != pc)
		i = (i + 1) & (PROF_SLOTS - 1);
	if (!slots[i].pc) {
		if (nr_used >= PROF_SLOTS / 2) {
			fprintf(stderr, "icount: more than %u block addresses\n", PROF_SLOTS / 2);
			abort();
		}
		slots[i].pc = pc;
		used[nr_used++] = i;
	}
	return &slots[i];
}

static void on_mark(unsigned int vcpu, void *udata)
{
	uint32_t k;

	(void)vcpu;
	(void)udata;
	marks++;
	fprintf(out, "M %llu %llu %llu\n", (unsigned long long)marks,
		(unsigned long long)insns[1], (unsigned long long)insns[0]);
	fflush(out);
	if (!prof)
		return;
	fprintf(prof, "M %llu\n", (unsigned long long)marks);
	for (k = 0; k < nr_used; k++) {
		struct block_count *b = &slots[used[k]];

		if (b->count == b->dumped)
			continue;
		fprintf(prof, "%llx %llu\n", (unsigned long long)b->pc,
			(unsigned long long)(b->count - b->dumped));
		b->dumped = b->count;
	}
	fflush(prof);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	uint64_t pc = qemu_plugin_tb_vaddr(tb);

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &insns[pc >> 63], n);
	if (prof && pc >> 63)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
							 &block_slot(pc)->count, n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (qemu_plugin_insn_size(insn) == sizeof(mark) &&
		    !memcmp(qemu_plugin_insn_data(insn), mark, sizeof(mark)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void on_exit_cb(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	fprintf(out, "E %llu %llu %llu\n", (unsigned long long)marks,
		(unsigned long long)insns[1], (unsigned long long)insns[0]);
	fclose(out);
	if (prof)
		fclose(prof);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *out_path = NULL, *prof_path = NULL;
	int i;

	if (!info->system_emulation || info->version.min > QEMU_PLUGIN_VERSION) {
		fprintf(stderr, "icount: needs system emulation and plugin API %d (QEMU: %d..%d)\n",
			QEMU_PLUGIN_VERSION, info->version.min,
			info->version.cur);
		return -1;
	}
	if (info->system.max_vcpus != 1) {
		fprintf(stderr, "icount: counts one vCPU only (-smp 1), not %d\n",
			info->system.max_vcpus);
		return -1;
	}
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out_path = argv[i] + 4;
		} else if (!strncmp(argv[i], "profile=", 8)) {
			prof_path = argv[i] + 8;
		} else {
			fprintf(stderr, "icount: unknown argument '%s'\n", argv[i]);
			return -1;
		}
	}
	if (!out_path) {
		fprintf(stderr, "icount: out=PATH is required\n");
		return -1;
	}
	out = fopen(out_path, "w");
	if (!out) {
		perror(out_path);
		return -1;
	}
	if (prof_path) {
		prof = fopen(prof_path, "w");
		slots = calloc(PROF_SLOTS, sizeof(*slots));
		used = calloc(PROF_SLOTS / 2, sizeof(*used));
		if (!prof || !slots || !used) {
			perror(prof_path);
			return -1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_exit_cb, NULL);
	return 0;
}
