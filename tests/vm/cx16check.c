// SPDX-License-Identifier: GPL-2.0
/*
 * Does the (emulated) CPU keep the arithmetic flags across CMPXCHG16B?
 *
 * A successful CMPXCHG16B sets ZF and leaves CF, PF, AF, SF and OF as they
 * were. QEMU 7.2's TCG (Debian bookworm's) computes the flags after it from
 * a stale record of the last flag-setting operation: pushfq right after it
 * shows the operand of the add before it as flags (0x895 gives 0xad7, where
 * 0x246 is right). SLUB's fast path runs cmpxchg16b with interrupts on; an
 * interrupt taken just after it pushes, and its iret restores, those bits,
 * TF and IOPL among them: a 6.12 guest died of a double fault in
 * __kmalloc_noprof that way, the flags it reported being the low half of
 * the freed object's address. run-vm gives TCG guests no CX16; the kernel
 * then emulates the instruction with interrupts off.
 *
 * Exit 0 when the CPU has no CMPXCHG16B (CPUID) or keeps the flags, 1 when
 * it does not. Built with -mno-red-zone: the asm pushes below the stack
 * pointer, where a leaf function may keep its locals.
 */
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>

static __attribute__((aligned(16))) uint64_t mem[2];

/*
 * popfq ends QEMU's translation block: the add and the exchange are
 * translated together, as in SLUB's fast path. Locked and not (SLUB's
 * per-CPU one is not).
 */
#define CX16_ADD_XCHG(lock) \
	"pushq $0x202; popfq\n\tadd %[s], %[acc]\n\t" lock "cmpxchg16b %[m]\n\tpushfq; popq %[f]"
#define CX16_OUT [f] "=r"(fl), [acc] "+r"(acc), [m] "+m"(mem), "+a"(lo), "+d"(hi)
#define CX16_IN [s] "r"(src), "b"(3ULL), "c"(4ULL)

int main(void)
{
	unsigned int a, b, c, d;
	int bad = 0, i;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_CMPXCHG16B)) {
		printf("cx16check: no cmpxchg16b\n");
		return 0;
	}
	for (i = 0; i < 2000; i++) {
		uint64_t src = 0x895 + ((uint64_t)i << 12), acc = 0, fl, want;
		uint64_t lo = 1, hi = 2;

		/* The add's own flags, and ZF as the exchange sets it. */
		__asm__ volatile("pushq $0x202; popfq; add %2, %1; pushfq; popq %0"
				 : "=r"(want), "+r"(acc) : "r"(src) : "cc");
		want |= 0x40;
		acc = 0;
		mem[0] = 1;
		mem[1] = 2;
		if (i & 1)
			__asm__ volatile(CX16_ADD_XCHG("") : CX16_OUT : CX16_IN : "cc", "memory");
		else
			__asm__ volatile(CX16_ADD_XCHG("lock ") : CX16_OUT : CX16_IN : "cc", "memory");
		if (mem[0] != 3 || mem[1] != 4) {
			printf("cx16check: the exchange did not happen\n");
			return 1;
		}
		if ((fl & 0x8d5) != (want & 0x8d5) && bad++ < 3)
			printf("cx16check: flags after cmpxchg16b %#llx, want %#llx\n",
			       (unsigned long long)fl, (unsigned long long)want);
	}
	printf("cx16check: %d of 2000 exchanges left wrong flags\n", bad);
	return bad != 0;
}
